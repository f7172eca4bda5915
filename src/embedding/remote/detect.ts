import type { EmbedderConfig } from '../../config/schema.ts';
import { RagsyncError, EXIT, errorMessage } from '../../core/errors.ts';
import { RemoteEmbedder, type RemoteDeps } from './embedder.ts';
import { PRESETS, resolveRemote, type RemoteSettings } from '../../config/presets.ts';

/**
 * A local server runs whatever model was pulled into it, so the size of its vectors may be known
 * neither to the config nor to the preset. The size is part of the fingerprint every vector is
 * stored under, so it must be known before a run starts: this asks the server once (one short
 * text through the usual client, retries included) and says so in the log.
 */

/** Thrown by createEmbedder when nobody has filled the size in (library use without withEmbedderDimensions). */
export function unknownDimensions(s: Pick<RemoteSettings, 'provider' | 'model'>): RagsyncError {
  const own = PRESETS[s.provider].model;
  return new RagsyncError(
    `embedder.dims: required for ${s.provider} model "${s.model}"${own ? `, the preset knows only ${own}'s` : ''} (got none); ` +
      'set it, or let the CLI ask the server (withEmbedderDimensions)',
    EXIT.usage,
  );
}

/** The config with `embedder.dimensions` filled in from the server's first reply when neither config nor preset knows it. */
export async function withEmbedderDimensions<C extends { embedder: EmbedderConfig }>(cfg: C, deps: RemoteDeps = {}): Promise<C> {
  if (cfg.embedder.provider === 'hash') return cfg;
  const settings = resolveRemote(cfg.embedder);
  if (settings.dimensions !== null) return cfg;
  // One short request: no retry storm against a server that is not up.
  const probe = new RemoteEmbedder({ ...settings, batchSize: 1, maxRetries: Math.min(settings.maxRetries, 2) }, deps);
  let dims: number;
  try {
    dims = (await probe.embed(['dimensions']))[0]!.length;
  } catch (err) {
    throw new RagsyncError(
      `embedder.dims: not set for ${settings.provider} model "${settings.model}", and asking ${settings.baseUrl} failed ` +
        `(${errorMessage(err)}): start the server, or set "dims" in config`,
      EXIT.usage,
    );
  } finally {
    await probe.close();
  }
  deps.log?.info(
    { embedder: `${settings.provider}:${settings.model}`, dimensions: dims },
    `embedder.dims not set: ${settings.provider} model "${settings.model}" returned ${dims}-dimensional vectors, using ${dims} ` +
      `(put "dims": ${dims} in config to skip this request)`,
  );
  return { ...cfg, embedder: { ...cfg.embedder, dimensions: dims } };
}

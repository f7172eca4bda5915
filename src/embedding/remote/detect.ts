import type { EmbedderConfig } from '../../config/schema.ts';
import { RagsyncError, EXIT } from '../../core/errors.ts';
import { RemoteEmbedder, type RemoteDeps } from './embedder.ts';
import { PRESETS, resolveRemote, type RemoteSettings } from '../../config/presets.ts';

/** Thrown by createEmbedder when nobody has filled the size in (library use without openEngine or withEmbedderDimensions). */
export function unknownDimensions(s: Pick<RemoteSettings, 'provider' | 'model'>): RagsyncError {
  const own = PRESETS[s.provider].model;
  return new RagsyncError(
    `embedder.dims: required for ${s.provider} model "${s.model}"${own ? `, the preset knows only ${own}'s` : ''} (got none); ` +
      'set it, or let ragsync ask the server (openEngine)',
    EXIT.usage,
  );
}

/**
 * The config with `embedder.dimensions` filled in from the server's first reply when neither config
 * nor preset knows it (RemoteEmbedder.learnDimensions). openEngine does this with the embedder it
 * keeps; this is for a library caller holding only a config.
 */
export async function withEmbedderDimensions<C extends { embedder: EmbedderConfig }>(cfg: C, deps: RemoteDeps = {}): Promise<C> {
  if (cfg.embedder.provider === 'hash') return cfg;
  const settings = resolveRemote(cfg.embedder);
  if (settings.dimensions !== null) return cfg;
  const probe = new RemoteEmbedder(settings, deps);
  try {
    return { ...cfg, embedder: { ...cfg.embedder, dimensions: await probe.learnDimensions() } };
  } finally {
    await probe.close();
  }
}

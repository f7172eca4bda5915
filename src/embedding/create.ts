import type { EmbedderConfig } from '../config/schema.ts';
import { HashEmbedder } from './hash.ts';
import { RemoteEmbedder, type RemoteDeps } from './remote/embedder.ts';
import { unknownDimensions } from './remote/detect.ts';
import { resolveRemote } from '../config/presets.ts';
import type { Embedder } from './types.ts';

/** The embedder a config names. `deps` carries the logger (and test/bench knobs) to remote ones. */
export function createEmbedder(cfg: EmbedderConfig, deps: RemoteDeps = {}): Embedder {
  switch (cfg.provider) {
    case 'hash':
      return new HashEmbedder(cfg.dims, cfg.batchSize);
    default: {
      const settings = resolveRemote(cfg);
      if (settings.dimensions === null) throw unknownDimensions(settings);
      return new RemoteEmbedder(settings, deps);
    }
  }
}

/**
 * The embedder a config names, its vector size known: a remote one whose size neither config nor
 * preset knows asks its server once (RemoteEmbedder.learnDimensions) — the same object then embeds.
 */
export async function openEmbedder(cfg: EmbedderConfig, deps: RemoteDeps = {}): Promise<Embedder> {
  if (cfg.provider === 'hash') return new HashEmbedder(cfg.dims, cfg.batchSize);
  const embedder = new RemoteEmbedder(resolveRemote(cfg), deps);
  try {
    await embedder.learnDimensions();
  } catch (err) {
    await embedder.close();
    throw err;
  }
  return embedder;
}

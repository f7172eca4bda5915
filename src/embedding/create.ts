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

/** `index --rpm/--tpm`: flags override the configured limits (the hash embedder has none). */
export function withRateLimits<C extends { embedder: EmbedderConfig }>(cfg: C, rpm?: number, tpm?: number): C {
  if (cfg.embedder.provider === 'hash' || (rpm === undefined && tpm === undefined)) return cfg;
  return { ...cfg, embedder: { ...cfg.embedder, ...(rpm !== undefined && { rpm }), ...(tpm !== undefined && { tpm }) } };
}

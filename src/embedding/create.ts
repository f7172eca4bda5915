import type { EmbedderConfig } from '../config/schema.ts';
import { HashEmbedder } from './hash.ts';
import type { Embedder } from './types.ts';

/** The embedder a config names. */
export function createEmbedder(cfg: EmbedderConfig): Embedder {
  switch (cfg.provider) {
    case 'hash':
      return new HashEmbedder(cfg.dims, cfg.batchSize);
  }
}

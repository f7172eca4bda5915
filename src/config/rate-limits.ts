import type { EmbedderConfig } from './schema.ts';

/** `index --rpm/--tpm`: flags override the configured limits (the hash embedder has none). */
export function withRateLimits<C extends { embedder: EmbedderConfig }>(cfg: C, rpm?: number, tpm?: number): C {
  if (cfg.embedder.provider === 'hash' || (rpm === undefined && tpm === undefined)) return cfg;
  return { ...cfg, embedder: { ...cfg.embedder, ...(rpm !== undefined && { rpm }), ...(tpm !== undefined && { tpm }) } };
}

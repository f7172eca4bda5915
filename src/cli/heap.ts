import { setV8Flag } from './v8-flags.ts';

/**
 * For the long-lived commands (serve, daemon --serve, mcp): V8's young generation starts small and
 * doubles under a search's allocation rate up to 2 × 16 MB, which then stays resident while every
 * object it holds dies young anyway. Keeping it at its initial size measured ~25 MB less RSS over
 * 400 searches and no slower searches (docs/benchmarks/query-path.md). Read by V8 each time the young
 * generation would grow, so it applies after start-up too.
 */
export function keepYoungGenerationSmall(): void {
  setV8Flag('semi-space-growth-factor', 1, 2);
}

/**
 * For the commands that index (index, daemon): V8 lets the old generation grow to up to four
 * times what survived the last full collection before collecting again. An index run builds its
 * documents a batch at a time and they are promoted while the batch is written, so in a long run
 * dead batches piled up to that limit: peak RSS grew with the corpus though the live heap did not
 * (docs/benchmarks/index-memory.md). At most 30 % growth over the live heap keeps the peak near
 * what a run holds, for a few more full collections.
 */
export function keepOldGenerationTight(): void {
  setV8Flag('heap-growing-percent', 30, 0);
}

import { setFlagsFromString } from 'node:v8';

/**
 * For the long-lived commands (serve, daemon --serve, mcp): V8's young generation starts small and
 * doubles under a search's allocation rate up to 2 × 16 MB, which then stays resident while every
 * object it holds dies young anyway. Keeping it at its initial size measured ~25 MB less RSS over
 * 400 searches and no slower searches (docs/benchmarks/query-path.md). Read by V8 each time the young
 * generation would grow, so it applies after start-up too.
 */
export function keepYoungGenerationSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}

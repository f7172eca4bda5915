import type { ChunkFilter } from '../../core/types.ts';
import type { RefScore } from '../roles.ts';
import type { VectorSource } from './vector-index.ts';
import type { RefFilters } from './vector-rows.ts';

/**
 * Vector top-n passing the filter from a vector source ranking in this process: exact top-k, then
 * the store drops what the filter rejects; the window widens until n pass or the index is
 * exhausted. A filter the store answers from memory is tested while ranking instead. References
 * and scores only, best first.
 */
export async function nearestRefs(
  store: RefFilters,
  vectors: VectorSource,
  query: Float32Array,
  n: number,
  filter?: ChunkFilter,
  exclude?: ReadonlySet<number>,
): Promise<RefScore[]> {
  const test = await store.refFilter(filter);
  // A filter the store answers from memory names the rows the scan may skip.
  const scope = test ? { key: JSON.stringify([filter?.sources ?? null, !!filter?.includeBroken]), accept: test, sources: filter?.sources } : undefined;
  const rank = await vectors.ranker(query, scope);
  if (test) {
    const matches = await rank(n, exclude ? (ref) => !exclude.has(ref) && test(ref) : test);
    return matches.map((m) => ({ ref: m.ref, score: m.score }));
  }
  let window = n * 4;
  for (;;) {
    const matches = await rank(window, exclude ? (ref) => !exclude.has(ref) : undefined);
    const pass = new Set(await store.filterRefs(matches.map((m) => m.ref), filter));
    const kept = matches.filter((m) => pass.has(m.ref));
    if (kept.length >= n || matches.length < window) return kept.slice(0, n).map((m) => ({ ref: m.ref, score: m.score }));
    window *= 4;
  }
}

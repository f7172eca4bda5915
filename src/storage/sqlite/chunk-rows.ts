import { LruCache } from '../../core/lru.ts';
import type { StoredHit } from '../../core/types.ts';
import type { ChunkText } from '../roles.ts';

/**
 * Rows a long-lived reader handed out lately, by chunk id: searches read the same chunks' texts,
 * terms and hits query after query (each row a JSON-array join and, for hits, two JSON parses).
 * Every transaction that changes chunks bumps the index's generation, and each read first checks
 * it: a moved generation empties every list, so a row is never older than the index it answers
 * for. Bounded: beyond its capacity a list drops its least recently used rows.
 */
export class ChunkRows {
  private generation = -1;
  readonly texts: LruCache<ChunkText, number>;
  readonly terms: LruCache<{ ref: number; terms: string }, number>;
  readonly hits: LruCache<StoredHit, number>;

  constructor(capacity: { texts: number; terms: number; hits: number } = CHUNK_ROWS) {
    this.texts = new LruCache(capacity.texts);
    this.terms = new LruCache(capacity.terms);
    this.hits = new LruCache(capacity.hits);
  }

  /** The lists, emptied first when the index is at another generation than when they were filled. */
  at(generation: number): this {
    if (generation !== this.generation) {
      this.texts.clear();
      this.terms.clear();
      this.hits.clear();
      this.generation = generation;
    }
    return this;
  }
}

/** Rows kept per list: chunks run to a few hundred characters, so each list holds a few MB at most. */
export const CHUNK_ROWS = { texts: 8192, terms: 8192, hits: 4096 };

/**
 * The rows of `refs` in their order (ids not in the index left out), those `cache` lacks read
 * together by `read` and remembered.
 */
export function cachedRows<T extends { ref: number }>(cache: LruCache<T, number>, refs: readonly number[], read: (missing: number[]) => T[]): T[] {
  const got = new Map<number, T>();
  const missing = new Set<number>();
  for (const r of refs) {
    const row = got.has(r) || missing.has(r) ? undefined : cache.get(r);
    if (row) got.set(r, row);
    else if (!got.has(r)) missing.add(r);
  }
  // Rows read now are kept here too: more refs than the capacity would push the first out again.
  if (missing.size) for (const row of read([...missing])) (cache.set(row.ref, row), got.set(row.ref, row));
  const out: T[] = [];
  for (const r of refs) {
    const row = got.get(r);
    if (row) out.push(row);
  }
  return out;
}

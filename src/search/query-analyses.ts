import { LruCache } from '../core/lru.ts';

/**
 * What a long-lived searcher made of recent queries (their terms, expansions, literal patterns),
 * by query and the options that shape it: clients repeat queries, and the analysis (the lexicon,
 * pinyin and glossary look-ups above all) costs more than some stages that use it. The corpus
 * lexicon changes with the index, so a moved generation empties the list. Bounded: beyond
 * `capacity` the least recently used go.
 */
export class QueryAnalyses<A> {
  private generation = -1;
  private readonly recent: LruCache<Promise<A>>;

  constructor(capacity = QUERY_ANALYSES) {
    this.recent = new LruCache(capacity);
  }

  /** The analysis under `key` at `generation`, made by `make` when not held (a failed one is not kept). */
  of(key: string, generation: number, make: () => Promise<A>): Promise<A> {
    if (generation !== this.generation) (this.recent.clear(), (this.generation = generation));
    let a = this.recent.get(key);
    if (!a) {
      // The promise is kept: requests for one query at once share one analysis.
      const made = make();
      this.recent.set(key, made);
      made.catch(() => this.recent.get(key) === made && this.recent.delete(key));
      a = made;
    }
    return a;
  }

  get size(): number {
    return this.recent.size;
  }
}

/** Analyses kept: a few KB each (the expansion lists), so a few MB at most. */
export const QUERY_ANALYSES = 1024;

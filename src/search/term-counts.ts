import type { SearchStore } from '../storage/roles.ts';

/** Counts kept before the cache starts over. */
const MAX_COUNTS = 200_000;

/**
 * How many chunks hold each keyword term (a CJK character or pair), asked of the store once per
 * term and kept until the index changes: query analysis weighs its guesses by the corpus's own
 * pairs of characters, the same pairs question after question.
 */
export class TermCountCache {
  private readonly counts = new Map<string, number>();
  private generation = -1;

  constructor(private readonly store: Pick<SearchStore, 'termCounts' | 'generation'>) {}

  /** Whether the store can count its terms at all. */
  get available(): boolean {
    return !!this.store.termCounts;
  }

  /** Makes the counts of `terms` known (n() reads them). */
  async load(terms: readonly string[]): Promise<void> {
    if (!this.store.termCounts) return;
    const generation = await this.store.generation();
    if (generation !== this.generation) (this.counts.clear(), (this.generation = generation));
    const missing = [...new Set(terms)].filter((t) => !this.counts.has(t));
    if (!missing.length) return;
    if (this.counts.size + missing.length > MAX_COUNTS) this.counts.clear();
    const n = await this.store.termCounts(missing);
    missing.forEach((t, i) => this.counts.set(t, n[i] ?? 0));
  }

  /** Chunks holding a term loaded before (0 when unknown). */
  n(term: string): number {
    return this.counts.get(term) ?? 0;
  }
}

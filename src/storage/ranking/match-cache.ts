/**
 * The chunk sets of recent terms (concept scoring asks for the same common words query after
 * query, and those are the costly ones), dropped when the index changes; least recently used
 * first out beyond MATCH_CACHE_REFS references (4 bytes each).
 */
const MATCH_CACHE_REFS = 1_000_000;
export class MatchCache {
  private readonly sets = new Map<string, Int32Array>();
  private refs = 0;
  constructor(readonly generation: number) {}
  get(key: string): Int32Array | undefined {
    const set = this.sets.get(key);
    if (set) (this.sets.delete(key), this.sets.set(key, set));
    return set;
  }
  set(key: string, set: Int32Array): void {
    this.sets.set(key, set);
    this.refs += set.length;
    for (const [k, old] of this.sets) {
      if (this.refs <= MATCH_CACHE_REFS) break;
      this.sets.delete(k);
      this.refs -= old.length;
    }
  }
}

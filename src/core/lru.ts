/** A small least-recently-used map (query vectors, chunk rows, query analyses): beyond `capacity` the least recent key goes. */
export class LruCache<V, K = string> {
  private readonly map = new Map<K, V>();
  hits = 0;
  misses = 0;

  constructor(readonly capacity: number) {}

  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    // Re-insert: a Map iterates in insertion order, so the first key is always the least recent.
    this.map.delete(key);
    this.map.set(key, v);
    return v;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    while (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value!);
  }

  delete(key: K): void {
    this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }

  get size(): number {
    return this.map.size;
  }
}

import type { IndexReader, VectorSet } from '../storage/roles.ts';
import { createDotKernel, type DotKernel } from './simd-dots.ts';

export interface VectorMatch {
  /** Row in the index (for vectorAt), and the chunk reference. */
  row: number;
  ref: number;
  score: number;
}

/** Picks the best k matches (exact cosine scores, best first) among the rows `accept` lets through. */
export type Rank = (k: number, accept?: (ref: number) => boolean) => Promise<VectorMatch[]>;

/**
 * Where a Searcher's vector candidates come from. The long-lived VectorIndex keeps the vectors in
 * memory; a one-shot process may scan the store instead. Scores are exact cosine similarities.
 */
export interface VectorSource {
  /** Scores the index against `query` once; the returned function may be called with growing k. */
  ranker(query: Float32Array): Promise<Rank>;
  /** The stored vector of a chunk scaled to unit length, or null. */
  vectorOf(ref: number): Promise<Float32Array | null>;
  /** Dimensions of the active fingerprint's vectors (0 when there are none). */
  dims(): Promise<number>;
}

/** Dot product of query with the row at base; four accumulators let V8 pipeline the loop. */
function dotAt(v: Float32Array, base: number, q: Float32Array, dims: number): number {
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  let j = 0;
  for (; j + 3 < dims; j += 4) {
    a += v[base + j]! * q[j]!;
    b += v[base + j + 1]! * q[j + 1]!;
    c += v[base + j + 2]! * q[j + 2]!;
    d += v[base + j + 3]! * q[j + 3]!;
  }
  for (; j < dims; j++) a += v[base + j]! * q[j]!;
  return a + b + c + d;
}

/**
 * Exact top-k over unit vectors: one pass of dot products over a Float32Array, keeping the best k
 * in a small sorted buffer. `accept` filters rows before they compete.
 */
export function topK(
  set: Pick<VectorSet, 'dims' | 'vectors' | 'refs'>,
  query: Float32Array,
  k: number,
  accept?: (row: number) => boolean,
): VectorMatch[] {
  const { dims, vectors, refs } = set;
  const n = refs.length;
  const best: VectorMatch[] = [];
  let floor = -Infinity;
  for (let row = 0; row < n; row++) {
    if (accept && !accept(row)) continue;
    const dot = dotAt(vectors, row * dims, query, dims);
    if (best.length === k && dot <= floor) continue;
    floor = offer(best, k, { row, ref: refs[row]!, score: dot });
  }
  return best;
}

/**
 * Inserts a match into a descending buffer of at most k (k is small: a few hundred at most) and
 * returns the score a new match must beat once the buffer is full.
 */
function offer(best: VectorMatch[], k: number, m: VectorMatch): number {
  let i = best.length < k ? best.length : k - 1;
  if (best.length < k) best.push(m);
  while (i > 0 && best[i - 1]!.score < m.score) {
    best[i] = best[i - 1]!;
    i--;
  }
  best[i] = m;
  return best.length === k ? best[k - 1]!.score : -Infinity;
}

/** Top k rows of precomputed scores (best first), `accept` filtering rows. */
export function topKOfScores(
  scores: Float32Array,
  refs: Int32Array,
  k: number,
  accept?: (row: number) => boolean,
): VectorMatch[] {
  const best: VectorMatch[] = [];
  let floor = -Infinity;
  for (let row = 0; row < scores.length; row++) {
    const dot = scores[row]!;
    if (best.length === k && dot <= floor) continue;
    if (accept && !accept(row)) continue;
    floor = offer(best, k, { row, ref: refs[row]!, score: dot });
  }
  return best;
}

/** Scales each row to unit length in place (cosine = dot product afterwards). */
export function normalizeRows(vectors: Float32Array, dims: number): void {
  for (let base = 0; base < vectors.length; base += dims) {
    let norm = 0;
    for (let j = 0; j < dims; j++) norm += vectors[base + j]! * vectors[base + j]!;
    if (norm > 0 && Math.abs(norm - 1) > 1e-6) {
      const inv = 1 / Math.sqrt(norm);
      for (let j = 0; j < dims; j++) vectors[base + j]! *= inv;
    }
  }
}

/**
 * The active fingerprint's vectors in memory, loaded on first use and reloaded when the store's
 * generation counter moves (a sync committed chunks or vectors) — checked per query, no timer.
 */
export class VectorIndex implements VectorSource {
  private set: VectorSet | null = null;
  private kernel: DotKernel | null = null;
  private rowOf: Map<number, number> | null = null;
  loads = 0;
  /** Whether the WASM SIMD kernel serves queries (else the JS loop). */
  get simd(): boolean {
    return this.kernel !== null;
  }

  constructor(
    private readonly store: Pick<IndexReader, 'loadVectors' | 'generation'>,
    readonly fingerprint: string,
  ) {}

  /** The current set, reloading if the store changed since it was loaded. */
  async current(): Promise<VectorSet> {
    const gen = await this.store.generation();
    if (!this.set || this.set.generation !== gen) {
      const set = await this.store.loadVectors(this.fingerprint);
      normalizeRows(set.vectors, set.dims);
      // Move the rows into wasm memory when SIMD is available; the JS copy is then dropped.
      this.kernel = null;
      this.set = null;
      const kernel = createDotKernel(set.refs.length, set.dims);
      if (kernel) {
        kernel.vectors.set(set.vectors);
        set.vectors = kernel.vectors;
        this.kernel = kernel;
      }
      this.set = set;
      this.rowOf = null;
      this.loads++;
    }
    return this.set;
  }

  async search(query: Float32Array, k: number, accept?: (ref: number) => boolean): Promise<VectorMatch[]> {
    return (await (await this.ranker(query))(k, accept));
  }

  /**
   * Scores every row against `query` once; the returned function picks the top k from those scores,
   * so a caller widening k (filters rejected too many) does not recompute the dot products.
   */
  async ranker(query: Float32Array): Promise<Rank> {
    const set = await this.current();
    if (!set.refs.length) return async () => [];
    if (query.length !== set.dims) throw new Error(`query has ${query.length} dims, index has ${set.dims}`);
    const q = Float32Array.from(query);
    normalizeRows(q, q.length);
    let scores: Float32Array;
    if (this.kernel) {
      scores = this.kernel.dots(q).slice(); // copy: the kernel reuses its output for the next query
    } else {
      scores = new Float32Array(set.refs.length);
      for (let row = 0; row < scores.length; row++) scores[row] = dotAt(set.vectors, row * set.dims, q, set.dims);
    }
    const refs = set.refs;
    return async (k, accept) => topKOfScores(scores, refs, k, accept ? (row) => accept(refs[row]!) : undefined);
  }

  async dims(): Promise<number> {
    return (await this.current()).dims;
  }

  /** The stored (unit) vector of a chunk, or null. */
  async vectorOf(ref: number): Promise<Float32Array | null> {
    const set = await this.current();
    if (!this.rowOf) this.rowOf = new Map(Array.from(set.refs, (r, i) => [r, i]));
    const row = this.rowOf.get(ref);
    return row === undefined ? null : set.vectors.subarray(row * set.dims, (row + 1) * set.dims);
  }
}

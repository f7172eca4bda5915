import type { VectorRows, VectorSet } from './vector-rows.ts';
import { encodeInt8, normalizeRows } from '../../core/quantize.ts';
import { createDotKernel, createInt8Kernel, type DotKernel, type Int8Kernel } from './simd-dots.ts';
import { indexOfSorted } from '../../core/sorted-ids.ts';
import { SCORE_TIE } from './score-order.ts';
import { LruCache } from '../../core/lru.ts';

export { normalizeRows, quantizeRow } from '../../core/quantize.ts';

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
  /**
   * Scores the index against `query` once; the returned function may be called with growing k.
   * `scope`: the rows every later `accept` will reject anyway may be left unscored (see RankScope).
   */
  ranker(query: Float32Array, scope?: RankScope): Promise<Rank>;
  /** The stored vector of a chunk scaled to unit length, or null. */
  vectorOf(ref: number): Promise<Float32Array | null>;
  /** Dimensions of the active fingerprint's vectors (0 when there are none). */
  dims(): Promise<number>;
}

/**
 * A filter known before the scan (sources, broken chunks): `accept` is the same test the ranking
 * will be given, `key` names it (equal keys, equal tests within a generation), so the index can
 * keep which of its rows pass and scan only those.
 */
export interface RankScope {
  key: string;
  accept: (ref: number) => boolean;
  /** The sources every accepted row belongs to (all when absent): a store may read only theirs. */
  sources?: readonly string[];
}

/** A scope whose passing rows form more runs than this is scanned whole (the runs would cost more than they save). */
const MAX_RUNS = 64;

/** Dot product of query with the row at base (the JS fallback); four accumulators let V8 pipeline the loop. */
export function dotAt(v: Float32Array, base: number, q: Float32Array, dims: number): number {
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
  for (let row = 0, rows = scores.length; row < rows; row++) {
    const dot = scores[row]!;
    if (best.length === k && dot <= floor) continue;
    if (accept && !accept(row)) continue;
    floor = offer(best, k, { row, ref: refs[row]!, score: dot });
  }
  return best;
}

/** What the index needs of the store: the rows once per generation, exact vectors for rescoring. */
export type VectorStore = Pick<VectorRows, 'loadVectors' | 'scanVectors' | 'streamCodes' | 'vectorsOf' | 'vectorScores' | 'generation'>;

export interface VectorIndexOptions {
  /**
   * Keep int8 rows (one byte a dimension) and rescore the best `k × rescore` exactly against the
   * float32 rows in the store; false keeps float32 rows in memory. Default true.
   */
  quantize?: boolean;
  /** Candidates rescored per result wanted (see RESCORE). */
  rescore?: number;
}

/**
 * At most this many candidates rescored per result wanted. The rows rescored are those whose
 * approximate score plus its error bound reaches the k-th exact score: about 1.1 k on both
 * corpora, so the cap is a guard, and results are the exact top k (bench/int8-recall).
 */
export const RESCORE = 4;

/** The int8 copy of a generation: rows scaled per vector, refs ascending. */
interface Quantised {
  kind: 'int8';
  generation: number;
  dims: number;
  refs: Int32Array;
  /** Per row: unit row ≈ scale × int8 row, and the norm of the difference (bounds the score error). */
  scales: Float32Array;
  residuals: Float32Array;
  /** The largest of them. */
  maxResidual: number;
  kernel: Int8Kernel;
  /** Per scope key: the [start, end) row runs that pass it, or null to scan every row. */
  runs: Map<string, [number, number][] | null>;
  /**
   * What recent query vectors (by their bytes) scored: a repeated query would scan every row again
   * and rescore the same rows, each a read of its float32 row from the store. Held with the rows,
   * so a new generation starts empty.
   */
  queries: LruCache<QueryScores>;
}

/** A query vector's scores: approximate per scope key (every row), exact per ref rescored. */
interface QueryScores {
  iq: Int8Query;
  approx: Map<string, Float32Array>;
  exact: Map<number, number>;
}

/** Approximate scores kept in all (4 bytes each): the number of queries kept is this over the rows, within the bounds below. */
const QUERY_SCORES = 4_000_000;
const QUERIES_KEPT = { min: 16, max: 512 };

/** What a load of int8 rows fills, allocated when the store announces how many rows come. */
class Int8Rows {
  kernel: Int8Kernel | null = null;
  refs = new Int32Array(0);
  scales = new Float32Array(0);
  residuals = new Float32Array(0);

  /** Throws NO_INT8 when no kernel serves n × dims (the caller falls back to float32 rows). */
  start(n: number, dims: number): void {
    this.kernel = n > 0 ? createInt8Kernel(n, dims) : null;
    if (!this.kernel) throw NO_INT8;
    this.refs = new Int32Array(n);
    this.scales = new Float32Array(n);
    this.residuals = new Float32Array(n);
  }

  set(i: number, ref: number, scale: number, residual: number): void {
    this.refs[i] = ref;
    this.scales[i] = scale;
    this.residuals[i] = residual;
  }
}

/** The first `count` rows loaded into a kernel, as the index holds them. */
function quantised(
  generation: number,
  dims: number,
  count: number,
  refs: Int32Array,
  scales: Float32Array,
  residuals: Float32Array,
  kernel: Int8Kernel,
): Quantised {
  let maxResidual = 0;
  for (let i = 0; i < count; i++) maxResidual = Math.max(maxResidual, residuals[i]!);
  return {
    kind: 'int8',
    generation,
    dims,
    refs: refs.subarray(0, count),
    scales: scales.subarray(0, count),
    residuals: residuals.subarray(0, count),
    maxResidual,
    runs: new Map(),
    queries: new LruCache(Math.min(QUERIES_KEPT.max, Math.max(QUERIES_KEPT.min, Math.floor(QUERY_SCORES / Math.max(1, count))))),
    kernel,
  };
}

interface Floats {
  kind: 'float32';
  set: VectorSet;
  kernel: DotKernel | null;
}

/**
 * Best first; scores within float32 rounding of each other tie and keep row order, as the float32
 * scan orders equal scores (the store's cosine rounds differently: rows of one direction and
 * different lengths score equal after normalisation there, 1e-7 apart here). Rows are in reference
 * order, so this is byScoreThenRef.
 */
const byScore = (a: VectorMatch, b: VectorMatch) => (Math.abs(a.score - b.score) <= SCORE_TIE ? a.row - b.row : b.score - a.score);

/** Thrown from a scan to abandon it when the int8 kernel cannot serve its shape. */
const NO_INT8 = Symbol('no int8 kernel');

/** A unit query scaled to the int8 kernel's integers, and what that rounding lost. */
export interface Int8Query {
  qi: Int16Array;
  qscale: number;
  /** ‖query − qscale × qi‖ and ‖query‖₁: they bound the approximate scores' error. */
  qres: number;
  qabs: number;
}

export function int8Query(q: Float32Array, queryMax: number): Int8Query {
  let qmax = 0;
  for (let j = 0; j < q.length; j++) qmax = Math.max(qmax, Math.abs(q[j]!));
  const qscale = qmax / queryMax || 1;
  const qi = new Int16Array(q.length);
  let qres = 0;
  for (let j = 0; j < q.length; j++) {
    qi[j] = Math.round(q[j]! / qscale);
    const e = q[j]! - qi[j]! * qscale;
    qres += e * e;
  }
  qres = Math.sqrt(qres);
  let qabs = 0;
  for (let j = 0; j < q.length; j++) qabs += Math.abs(q[j]!);
  return { qi, qscale, qres, qabs };
}

/** Int8 rows scored against one query: approx[row] = int8 dot × row scale × query scale; refs ascending. */
export interface Int8Scores {
  refs: Int32Array;
  scales: Float32Array;
  residuals: Float32Array;
  approx: Float32Array;
  /** The largest residual, when known: rows far below the k-th exact score are then skipped unexamined. */
  maxResidual?: number;
}

/**
 * The exact top k from approximate int8 scores: the best k by approximate score are rescored
 * exactly, then every row whose approximate score plus its error bound still reaches the k-th
 * exact score (at most k × `rescoreCap`). The in-memory index and the one-shot scan of stored
 * int8 rows rank through this one function, so both return the same matches.
 */
export function int8Rank(
  st: Int8Scores,
  iq: Int8Query,
  rescoreExact: (refs: number[], exact: Map<number, number>) => Promise<void>,
  rescoreCap: number,
): Rank {
  const { refs, scales, residuals, approx } = st;
  const { qres, qabs } = iq;
  const n = refs.length;
  // |exact − approx| ≤ |q · row residual| + |query residual · quantised row|. The first is at most
  // ‖row residual‖ (Cauchy–Schwarz) and at most ‖q‖₁ × half a quantisation step (each component
  // rounds by at most that), whichever is smaller — the second wins for sparse queries. Plus
  // slack for float rounding: a row whose approx + bound is below the k-th exact score found so
  // far cannot be in the top k.
  const bound = (row: number) => Math.min(residuals[row]!, (qabs * scales[row]!) / 2) + qres * (1 + residuals[row]!) + 1e-5;
  // No row's bound exceeds this (twice the largest it can be), so rows below floor − maxBound need no bound worked out.
  const maxBound = st.maxResidual === undefined ? Infinity : 2 * (st.maxResidual + qres * (1 + st.maxResidual) + 1e-5);
  // Exact scores survive between calls: a caller widening k rescores only the new candidates.
  const exact = new Map<number, number>();
  const rescore = async (rows: number[]) => {
    const missing = rows.map((r) => refs[r]!).filter((ref) => !exact.has(ref));
    if (missing.length) await rescoreExact(missing, exact);
  };
  return async (k, accept) => {
    const pass = accept ? (row: number) => accept(refs[row]!) : undefined;
    const head = topKOfScores(approx, refs, Math.min(n, k), pass).map((m) => m.row);
    await rescore(head);
    const scored = (rows: number[]) =>
      rows.flatMap((row) => {
        const score = exact.get(refs[row]!);
        return score === undefined || Number.isNaN(score) ? [] : [{ row, ref: refs[row]!, score }];
      });
    let found = scored(head).sort(byScore);
    if (found.length >= k) {
      // Every row that could still beat the k-th exact score is rescored too (at most k × rescore:
      // past that, the best by their upper bound, which in practice never happens).
      const floor = found[k - 1]!.score;
      const taken = new Set(head);
      let band: number[] = [];
      const cut = floor - maxBound;
      for (let row = 0; row < n; row++) {
        const a = approx[row]!;
        if (a < cut) continue;
        if (a + bound(row) >= floor && !taken.has(row) && (!pass || pass(row))) band.push(row);
      }
      const cap = Math.ceil(k * rescoreCap);
      if (band.length > cap) band = band.sort((a, b) => approx[b]! + bound(b) - approx[a]! - bound(a)).slice(0, cap);
      await rescore(band);
      found = [...found, ...scored(band)].sort(byScore);
    }
    return found.slice(0, k);
  };
}

/**
 * The active fingerprint's vectors in memory, loaded on first use and reloaded when the store's
 * generation counter moves (a sync committed chunks or vectors) — checked per query, no timer.
 * With WASM SIMD the rows are kept as int8 (a quarter of float32), scanned with the int8 kernel,
 * and the best candidates rescored against the exact float32 rows read from the store; without
 * it (or with `quantize: false`) float32 rows are kept and scored exactly.
 */
export class VectorIndex implements VectorSource {
  private state: Quantised | Floats | null = null;
  loads = 0;
  /** Rows rescored exactly so far (benches report it per query). */
  rescored = 0;
  private readonly quantize: boolean;
  private readonly rescore: number;

  /** Whether a WASM SIMD kernel serves queries (else the JS loop). */
  get simd(): boolean {
    return this.state?.kind === 'int8' || (this.state?.kind === 'float32' && this.state.kernel !== null);
  }

  /** Whether the rows are held as int8. */
  get quantized(): boolean {
    return this.state?.kind === 'int8';
  }

  /** Rows held (after the first load). */
  get size(): number {
    return !this.state ? 0 : this.state.kind === 'int8' ? this.state.refs.length : this.state.set.refs.length;
  }

  constructor(
    private readonly store: VectorStore,
    readonly fingerprint: string,
    opts: VectorIndexOptions = {},
  ) {
    this.quantize = opts.quantize ?? true;
    this.rescore = opts.rescore ?? RESCORE;
  }

  private async load(): Promise<Quantised | Floats> {
    const gen = await this.store.generation();
    const cur = this.state;
    if (cur && (cur.kind === 'int8' ? cur.generation : cur.set.generation) === gen) return cur;
    this.state = null; // let the old rows go before the new ones are allocated
    this.state = (this.quantize && ((await this.loadCodes()) ?? (await this.loadInt8()))) || (await this.loadFloats());
    this.loads++;
    return this.state;
  }

  /**
   * The int8 codes the store keeps beside the vectors (computed as loadInt8 would): a quarter of
   * the bytes to read and nothing to quantise. Null when the store has no complete set of codes
   * or the kernel cannot serve this shape.
   */
  private async loadCodes(): Promise<Quantised | null> {
    if (!this.store.streamCodes) return null;
    const rows = new Int8Rows();
    let done: { generation: number; dims: number; count: number } | null;
    try {
      done = await this.store.streamCodes(this.fingerprint, {
        start: (n, dims) => rows.start(n, dims),
        row(i, ref, scale, residual, code) {
          rows.kernel!.vectors.set(code, i * code.length);
          rows.set(i, ref, scale, residual);
        },
        rows(first, refs, scales, residuals, codes) {
          rows.kernel!.vectors.set(codes, first * (codes.length / refs.length));
          for (let j = 0; j < refs.length; j++) rows.set(first + j, refs[j]!, scales[j]!, residuals[j]!);
        },
      });
    } catch (err) {
      if (err === NO_INT8) return null;
      throw err;
    }
    if (!done) return null;
    const { generation, dims, count } = done;
    const { refs, scales, residuals } = rows;
    const k = rows.kernel!;
    // The store streams rows in its own order: put them in chunk order (refs ascending), as loadInt8
    // holds them — in place, cycle by cycle with one row of scratch (a copy of every code would
    // double the peak memory of the load).
    const order = Int32Array.from({ length: count }, (_, i) => i).sort((a, b) => refs[a]! - refs[b]!);
    const v = k.vectors;
    const placed = new Uint8Array(count);
    const scratch = new Int8Array(dims);
    for (let start = 0; start < count; start++) {
      if (placed[start]) continue;
      scratch.set(v.subarray(start * dims, (start + 1) * dims));
      const [ref0, scale0, residual0] = [refs[start]!, scales[start]!, residuals[start]!];
      // Each row of the cycle takes the row `order` names for it; the last takes the saved first.
      for (let row = start; ; ) {
        placed[row] = 1;
        const from = order[row]!;
        if (from === start) {
          v.set(scratch, row * dims);
          [refs[row], scales[row], residuals[row]] = [ref0, scale0, residual0];
          break;
        }
        v.copyWithin(row * dims, from * dims, (from + 1) * dims);
        [refs[row], scales[row], residuals[row]] = [refs[from]!, scales[from]!, residuals[from]!];
        row = from;
      }
    }
    // Rows past `count` (the start count is an upper bound) stay zero and are never returned.
    return quantised(generation, dims, count, refs, scales, residuals, k);
  }

  /** Streams the rows into int8 wasm memory; null when the kernel cannot serve this shape. */
  private async loadInt8(): Promise<Quantised | null> {
    const rows = new Int8Rows();
    try {
      const { generation, dims, count } = await this.store.scanVectors(this.fingerprint, {
        start: (n, dims) => rows.start(n, dims),
        row(i, ref, v) {
          normalizeRows(v, v.length);
          const code = encodeInt8(v, rows.kernel!.vectors.subarray(i * v.length, (i + 1) * v.length));
          rows.set(i, ref, code.scale, code.residual);
        },
      });
      // Rows skipped by the scan (foreign dimensions) leave zero rows at the end: never returned.
      return quantised(generation, dims, count, rows.refs, rows.scales, rows.residuals, rows.kernel!);
    } catch (err) {
      if (err === NO_INT8) return null;
      throw err;
    }
  }

  private async loadFloats(): Promise<Floats> {
    const set = await this.store.loadVectors(this.fingerprint);
    normalizeRows(set.vectors, set.dims);
    // Move the rows into wasm memory when SIMD is available; the JS copy is then dropped.
    const kernel = createDotKernel(set.refs.length, set.dims);
    if (kernel) {
      kernel.vectors.set(set.vectors);
      set.vectors = kernel.vectors;
    }
    return { kind: 'float32', set, kernel };
  }

  /** The current float32 set (for benches and tests of the float path). */
  async current(): Promise<VectorSet | null> {
    const st = await this.load();
    return st.kind === 'float32' ? st.set : null;
  }

  async dims(): Promise<number> {
    const st = await this.load();
    return st.kind === 'int8' ? st.dims : st.set.dims;
  }

  async search(query: Float32Array, k: number, accept?: (ref: number) => boolean): Promise<VectorMatch[]> {
    return (await this.ranker(query))(k, accept);
  }

  /**
   * Scores every row against `query` once; the returned function picks the top k from those scores,
   * so a caller widening k (filters rejected too many) does not recompute the dot products.
   */
  async ranker(query: Float32Array, scope?: RankScope): Promise<Rank> {
    const st = await this.load();
    const dims = st.kind === 'int8' ? st.dims : st.set.dims;
    const refs = st.kind === 'int8' ? st.refs : st.set.refs;
    if (!refs.length) return async () => [];
    if (query.length !== dims) throw new Error(`query has ${query.length} dims, index has ${dims}`);
    const q = Float32Array.from(query);
    normalizeRows(q, q.length);
    if (st.kind === 'int8') return this.int8Ranker(st, q, scope);
    let scores: Float32Array;
    if (st.kernel) {
      scores = st.kernel.dots(q).slice(); // copy: the kernel reuses its output for the next query
    } else {
      scores = new Float32Array(refs.length);
      for (let row = 0; row < scores.length; row++) scores[row] = dotAt(st.set.vectors, row * dims, q, dims);
    }
    return async (k, accept) => topKOfScores(scores, refs, k, accept ? (row) => accept(refs[row]!) : undefined);
  }

  private int8Ranker(st: Quantised, q: Float32Array, scope: RankScope | undefined): Rank {
    const { refs, scales, residuals, kernel } = st;
    const key = Buffer.from(q.buffer, q.byteOffset, q.byteLength).toString('latin1');
    let held = st.queries.get(key);
    if (!held) st.queries.set(key, (held = { iq: int8Query(q, kernel.queryMax), approx: new Map(), exact: new Map() }));
    const { iq, exact: known } = held;
    const scopeKey = scope?.key ?? '';
    let approx = held.approx.get(scopeKey);
    if (!approx) {
      const runs = scope ? runsOf(st, scope) : null;
      const dots = kernel.dots(iq.qi, runs ?? undefined);
      approx = new Float32Array(refs.length);
      if (!runs) for (let row = 0; row < approx.length; row++) approx[row] = dots[row]! * scales[row]! * iq.qscale;
      else {
        // Rows outside the scope's runs are rejected by every accept to come: never candidates.
        approx.fill(-Infinity);
        for (const [start, end] of runs) for (let row = start; row < end; row++) approx[row] = dots[row]! * scales[row]! * iq.qscale;
      }
      held.approx.set(scopeKey, approx);
    }
    const rescoreExact = async (missing: number[], exact: Map<number, number>) => {
      const unknown = missing.filter((r) => !known.has(r));
      if (unknown.length) await this.rescoreExact(q, unknown, known);
      for (const r of missing) exact.set(r, known.get(r)!);
    };
    return int8Rank({ refs, scales, residuals, approx, maxResidual: st.maxResidual }, iq, rescoreExact, this.rescore);
  }

  /** Exact cosine of the stored float32 rows of `refs`, computed by the store (a row gone from it scores NaN). */
  private async rescoreExact(q: Float32Array, refs: number[], exact: Map<number, number>): Promise<void> {
    this.rescored += refs.length;
    const scores = await this.store.vectorScores(this.fingerprint, refs, q);
    for (const r of refs) exact.set(r, scores.get(r) ?? NaN);
  }

  /** The stored vector of a chunk scaled to unit length, or null. */
  async vectorOf(ref: number): Promise<Float32Array | null> {
    const st = await this.load();
    if (st.kind === 'float32') {
      const { refs, vectors, dims } = st.set;
      const row = indexOfSorted(refs, ref);
      return row < 0 ? null : vectors.subarray(row * dims, (row + 1) * dims);
    }
    if (indexOfSorted(st.refs, ref) < 0) return null;
    const v = (await this.store.vectorsOf(this.fingerprint, [ref])).get(ref);
    if (!v || v.length !== st.dims) return null;
    normalizeRows(v, st.dims);
    return v;
  }
}

/** The row runs passing a scope, worked out once per scope and generation. */
function runsOf(st: Quantised, scope: RankScope): [number, number][] | null {
  let runs = st.runs.get(scope.key);
  if (runs !== undefined) return runs;
  runs = [];
  let start = -1;
  for (let row = 0; row <= st.refs.length; row++) {
    const pass = row < st.refs.length && scope.accept(st.refs[row]!);
    if (pass && start < 0) start = row;
    else if (!pass && start >= 0) {
      runs.push([start, row]);
      start = -1;
      if (runs.length > MAX_RUNS) break;
    }
  }
  if (runs.length > MAX_RUNS) runs = null;
  if (st.runs.size > 100) st.runs.clear();
  st.runs.set(scope.key, runs);
  return runs;
}


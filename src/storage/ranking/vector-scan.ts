import type { CodeSink, VectorRows, VectorSink } from './vector-rows.ts';
import { createDotKernel, createInt8Kernel, type DotKernel, type Int8Kernel } from './simd-dots.ts';
import { dotAt, int8Query, int8Rank, normalizeRows, RESCORE, topKOfScores, type Int8Query, type Rank, type RankScope, type VectorSource } from './vector-index.ts';

/**
 * A picker putting the first `count` rows of parallel arrays in chunk order (refs ascending), as the
 * in-memory index holds them: equal scores then rank alike. An array already in order and of that
 * length is returned as it is (the callers only read them), any other is copied.
 */
function inChunkOrder(refs: Int32Array, count: number): <T extends Float32Array | Int32Array>(from: T) => T {
  // Packed codes come in chunk order already (one source's, or each source's in turn): no sort then.
  let sorted = true;
  for (let row = 1; row < count && sorted; row++) sorted = refs[row - 1]! < refs[row]!;
  if (sorted) return (from) => (from.length === count ? from : (from.slice(0, count) as typeof from));
  const order = Int32Array.from({ length: count }, (_, i) => i).sort((a, b) => refs[a]! - refs[b]!);
  return (from) => {
    const to = new (from.constructor as new (n: number) => typeof from)(count);
    for (let row = 0; row < count; row++) to[row] = from[order[row]!]!;
    return to;
  };
}

/** What the scan reads of the store. */
export type ScanStore = Pick<VectorRows, 'streamVectors' | 'streamCodes' | 'vectorScores' | 'vectorsOf'>;

/** Rows scored per kernel call: 256 × 1024 dims is 1 MB of wasm memory, whatever the index size. */
const BLOCK = 256;

/** dots[row] += w × column[row] for every row of the column. */
function addScaled(dots: Int32Array, column: Int8Array, w: number): void {
  for (let row = 0, rows = column.length; row < rows; row++) dots[row]! += w * column[row]!;
}

/** A query with at most one non-zero dimension in this many is scored from the codes of those dimensions alone. */
const SPARSE = 8;

/** Thrown by a sink that has what it needed (the dimensions) to stop the scan early. */
class Enough extends Error {}

/** Thrown from a code scan when no int8 kernel serves its shape (the float32 rows are streamed instead). */
class NoInt8 extends Error {}

/**
 * The one-shot strategy of VectorSource: each query streams the stored rows out of the database
 * and scores them block by block, keeping a few numbers per row. A process that answers a single
 * query (the CLI) pays neither for loading every vector into memory nor for holding them: the
 * heap stays bounded by the block. When the store keeps int8 codes beside the vectors (a quarter
 * of the bytes), those are scanned and ranked through the same int8Rank as the in-memory
 * VectorIndex, the best candidates rescored exactly against the float32 rows: the same matches
 * and scores. Otherwise the float32 rows are scaled to unit length and scored with the in-memory
 * index's float kernel.
 */
export class VectorScan implements VectorSource {
  private knownDims: number | null = null;

  /** Rows rescored exactly so far (as VectorIndex.rescored). */
  rescored = 0;

  constructor(
    private readonly store: ScanStore,
    readonly fingerprint: string,
  ) {}

  async ranker(query: Float32Array, scope?: RankScope): Promise<Rank> {
    const q = Float32Array.from(query);
    normalizeRows(q, q.length);
    return (await this.codeRanker(q, scope?.sources)) ?? this.floatRanker(q);
  }

  /** Ranks over the stored int8 codes; null when the store has none to offer or no kernel serves them. */
  private async codeRanker(q: Float32Array, sources?: readonly string[]): Promise<Rank | null> {
    if (!this.store.streamCodes) return null;
    let kernel: Int8Kernel | null = null;
    let iq: Int8Query | null = null;
    let refs = new Int32Array(0);
    let scales = new Float32Array(0);
    let residuals = new Float32Array(0);
    let approx = new Float32Array(0);
    let dims = 0;
    let filled = 0; // rows in the block not yet scored
    let base = 0; // index of the block's first row
    const flush = () => {
      if (!filled) return;
      const dots = kernel!.dots(iq!.qi);
      for (let r = 0; r < filled; r++) approx[base + r] = dots[r]! * scales[base + r]! * iq!.qscale;
      base += filled;
      filled = 0;
    };
    // A sparse query (the hash embedder's: a dozen non-zero dimensions of 1,024) needs only its
    // non-zero dimensions' codes: the other products are zero, so the integer dots are the same.
    const only: number[] = [];
    let dots = new Int32Array(0);
    for (let j = 0; j < q.length && only.length * SPARSE <= q.length; j++) if (q[j] !== 0) only.push(j);
    const sink: CodeSink = {
      only: only.length * SPARSE <= q.length ? only : undefined,
      start(count, d) {
        dims = d;
        if (count && d !== q.length) throw new Error(`query has ${q.length} dims, index has ${d}`);
        kernel = createInt8Kernel(BLOCK, d);
        if (!kernel) throw new NoInt8();
        iq = int8Query(q, kernel.queryMax);
        refs = new Int32Array(count);
        scales = new Float32Array(count);
        residuals = new Float32Array(count);
        approx = new Float32Array(count);
      },
      row(i, ref, scale, residual, code) {
        kernel!.vectors.set(code, filled * dims);
        refs[i] = ref;
        scales[i] = scale;
        residuals[i] = residual;
        if (++filled === BLOCK) flush();
      },
      rows(first, r, s, res, codes) {
        refs.set(r, first);
        scales.set(s, first);
        residuals.set(res, first);
        for (let at = 0; at < r.length; ) {
          const take = Math.min(BLOCK - filled, r.length - at);
          kernel!.vectors.set(codes.subarray(at * dims, (at + take) * dims), filled * dims);
          at += take;
          if ((filled += take) === BLOCK) flush();
        }
      },
      columns(first, r, s, res, cols) {
        flush();
        refs.set(r, first);
        scales.set(s, first);
        residuals.set(res, first);
        if (dots.length < r.length) dots = new Int32Array(r.length);
        dots.fill(0, 0, r.length);
        for (let j = 0; j < cols.length; j++) {
          const w = iq!.qi[only[j]!]!;
          if (w) addScaled(dots, cols[j]!, w);
        }
        // As flush computes it from the kernel's dots: the same float32 values.
        const qscale = iq!.qscale;
        for (let row = 0, rows = dots.length; row < rows; row++) approx[first + row] = dots[row]! * scales[first + row]! * qscale;
        base = first + r.length;
      },
    };
    let done: { count: number; dims: number } | null;
    try {
      done = await this.store.streamCodes(this.fingerprint, sink, sources);
    } catch (err) {
      if (err instanceof NoInt8) return null;
      throw err;
    }
    if (!done) return null;
    flush();
    this.knownDims = done.dims;
    const pick = inChunkOrder(refs, done.count);
    const rows = { refs: pick(refs), scales: pick(scales), residuals: pick(residuals), approx: pick(approx), maxResidual: 0 };
    // As the in-memory index keeps it: rows far below the k-th exact score then skip their bound.
    let maxResidual = 0;
    for (let row = 0, picked = rows.residuals, n = picked.length; row < n; row++) maxResidual = Math.max(maxResidual, picked[row]!);
    rows.maxResidual = maxResidual;
    return int8Rank(rows, iq!, (missing, exact) => this.rescoreExact(q, missing, exact), RESCORE);
  }

  /** Exact cosine of the stored float32 rows, computed by the store as VectorIndex has it computed. */
  private async rescoreExact(q: Float32Array, refs: number[], exact: Map<number, number>): Promise<void> {
    this.rescored += refs.length;
    const scores = await this.store.vectorScores(this.fingerprint, refs, q);
    for (const r of refs) exact.set(r, scores.get(r) ?? NaN);
  }

  /** Scores the float32 rows exactly, block by block. */
  private async floatRanker(q: Float32Array): Promise<Rank> {
    let scores = new Float32Array(0);
    let refs = new Int32Array(0);
    let kernel: DotKernel | null = null;
    let block: Float32Array = new Float32Array(0);
    let dims = 0;
    let filled = 0; // rows in the block not yet scored
    let base = 0; // index of the block's first row
    const flush = () => {
      if (!filled) return;
      if (kernel) scores.set(kernel.dots(q).subarray(0, filled), base);
      else for (let r = 0; r < filled; r++) scores[base + r] = dotAt(block, r * dims, q, dims);
      base += filled;
      filled = 0;
    };
    const sink: VectorSink = {
      start(count, d) {
        dims = d;
        if (count && d !== q.length) throw new Error(`query has ${q.length} dims, index has ${d}`);
        scores = new Float32Array(count);
        refs = new Int32Array(count);
        kernel = createDotKernel(BLOCK, d);
        block = kernel ? kernel.vectors : new Float32Array(BLOCK * d);
      },
      row(i, ref, vector) {
        const at = filled * dims;
        block.set(vector, at);
        normalizeRows(block.subarray(at, at + dims), dims);
        refs[i] = ref;
        if (++filled === BLOCK) flush();
      },
    };
    const { count } = await this.store.streamVectors(this.fingerprint, sink);
    flush();
    this.knownDims = dims;
    const pick = inChunkOrder(refs, count);
    const s = pick(scores);
    const r = pick(refs);
    return async (k, accept) => topKOfScores(s, r, k, accept ? (row) => accept(r[row]!) : undefined);
  }

  /** The stored vector of one chunk, scaled to unit length, read on demand. */
  async vectorOf(ref: number): Promise<Float32Array | null> {
    const v = (await this.store.vectorsOf(this.fingerprint, [ref])).get(ref);
    if (!v) return null;
    normalizeRows(v, v.length);
    return v;
  }

  async dims(): Promise<number> {
    if (this.knownDims === null) {
      // The scan announces the dimensions before its first row: stop it there.
      await this.store
        .streamVectors(this.fingerprint, {
          start: (count, d) => {
            this.knownDims = count ? d : 0;
            throw new Enough();
          },
          row: () => {},
        })
        .catch((err: unknown) => {
          if (!(err instanceof Enough)) throw err;
        });
    }
    return this.knownDims ?? 0;
  }
}

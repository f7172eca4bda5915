import type { IndexReader, VectorSink } from '../storage/roles.ts';
import { createDotKernel, type DotKernel } from './simd-dots.ts';
import { normalizeRows, topKOfScores, type Rank, type VectorSource } from './vector-index.ts';

/** Rows scored per kernel call: 256 × 1024 dims is 1 MB of wasm memory, whatever the index size. */
const BLOCK = 256;

/** Thrown by a sink that has what it needed (the dimensions) to stop the scan early. */
class Enough extends Error {}

/**
 * The one-shot strategy of VectorSource: each query streams the stored float32 rows out of the
 * database and scores them block by block, keeping only one score and one reference per row. A
 * process that answers a single query (the CLI, an MCP server spawned per session) pays neither
 * for loading every vector into memory nor for holding them: the heap stays bounded by the block.
 * Rows are scaled to unit length and scored with the same kernel as the in-memory VectorIndex, so
 * both return the same scores and the same order.
 */
export class VectorScan implements VectorSource {
  private knownDims: number | null = null;

  constructor(
    private readonly store: Pick<IndexReader, 'streamVectors' | 'vectorsOf'>,
    readonly fingerprint: string,
  ) {}

  async ranker(query: Float32Array): Promise<Rank> {
    const q = Float32Array.from(query);
    normalizeRows(q, q.length);
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
      else for (let r = 0; r < filled; r++) scores[base + r] = dot(block, r * dims, q, dims);
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
    // Rows in chunk order, as the in-memory index holds them: equal scores then rank alike.
    const order = Array.from({ length: count }, (_, i) => i).sort((a, b) => refs[a]! - refs[b]!);
    const s = Float32Array.from(order, (i) => scores[i]!);
    const r = Int32Array.from(order, (i) => refs[i]!);
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

/** The JS fallback's dot product (when WASM SIMD is missing), as VectorIndex computes it. */
function dot(v: Float32Array, base: number, q: Float32Array, dims: number): number {
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

/** The Searcher option of a process that answers one query and exits (`vectors` in SearcherOptions). */
export const oneShotVectors = (store: Pick<IndexReader, 'streamVectors' | 'vectorsOf'>, fingerprint: string): VectorSource =>
  new VectorScan(store, fingerprint);

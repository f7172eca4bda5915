/**
 * All-rows dot products with WebAssembly SIMD: float32 rows (f32x4), the hot loop of exact vector
 * search, about 4× the scalar JS loop; and int8 rows against an int16 query (i16x8 widening +
 * i32x4.dot_i16x8_s), a quarter of the bytes to stream for the quantised index. The module is tiny and assembled here byte by byte (no toolchain, no
 * dependency); callers fall back to JS when WASM SIMD is missing, dims is not a multiple of 16, or
 * the vectors do not fit in a 4 GB wasm32 memory.
 *
 * Layout of the memory: [vectors: n × dims f32][query: dims f32][out: n f32].
 * Export dots(vecs, q, n, dims, out): out[row] = Σ vecs[row·dims + j] · q[j].
 */

const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
};
const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
const name = (s: string) => [...uleb(s.length), ...Buffer.from(s, 'utf8')];

const I32 = 0x7f;
const V128 = 0x7b;
const get = (i: number) => [0x20, i];
const set = (i: number) => [0x21, i];
const i32 = (n: number) => [0x41, ...(n < 64 ? [n] : [(n & 0x7f) | 0x80, n >> 7])]; // SLEB for 0 ≤ n < 8192
const simd = (op: number) => [0xfd, ...uleb(op)];
const v128load = (offset: number) => [...simd(0x00), 0, ...uleb(offset)];
const v128zero = [...simd(0x0c), ...new Array(16).fill(0)];
const F32X4_ADD = simd(0xe4);
const F32X4_MUL = simd(0xe6);
const lane = (l: number) => [...simd(0x1f), l];

// params: 0 vecs, 1 q, 2 n, 3 dims, 4 out; locals: 5 row, 6 p, 7 qq, 8 qend (i32), 9… accumulators (v128)
const [V, Q, N, D, OUT, ROW, P, QQ, QE, A] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

/**
 * The loop both kernels share: for each row, zero `accs` accumulators, run `step` until the query
 * pointer reaches the query's end (`queryBytes` a dimension), fold the accumulators into A with
 * `fold`, and store the sum of A's four lanes (`lanes`) at out with `store`.
 */
const rowLoop = (accs: number, queryBytes: number, step: number[], fold: number[], lanes: number[], store: number) => [
  ...get(V), ...set(P),
  0x02, 0x40, // block $done
  0x03, 0x40, // loop $rows
  ...get(ROW), ...get(N), 0x4f /* i32.ge_u */, 0x0d, 1, // br_if $done
  ...Array.from({ length: accs }, (_, i) => [...v128zero, ...set(A + i)]).flat(),
  ...get(Q), ...set(QQ),
  ...get(Q), ...get(D), ...i32(queryBytes), 0x6c /* i32.mul */, 0x6a /* i32.add */, ...set(QE),
  0x02, 0x40, // block $inner_done
  0x03, 0x40, // loop $inner
  ...get(QQ), ...get(QE), 0x4f, 0x0d, 1,
  ...step,
  0x0c, 0, // br $inner
  0x0b, 0x0b, // end loop, end block
  ...fold,
  ...get(OUT),
  ...lanes,
  store, 2, 0, // store align=4 offset=0
  ...get(OUT), ...i32(4), 0x6a, ...set(OUT),
  ...get(ROW), ...i32(1), 0x6a, ...set(ROW),
  0x0c, 0, // br $rows
  0x0b, 0x0b, // end loop, end block
  0x0b, // end function
];

/** A module importing env.memory and exporting one function (vecs, q, n, dims, out) with `accs` v128 locals. */
const kernelModule = (exportName: string, accs: number, code: number[]) => {
  const body = [...uleb(2), ...uleb(4), I32, ...uleb(accs), V128, ...code];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 5, I32, I32, I32, I32, I32, 0]),
    ...section(2, [1, ...name('env'), ...name('memory'), 0x02, 0x00, 1]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name(exportName), 0x00, 0]),
    ...section(10, [1, ...uleb(body.length), ...body]),
  ]);
};

/** A module's bytes, assembled on first use: a process that never scans vectors (an index no-op) assembles none. */
function assembledOnce(make: () => Uint8Array<ArrayBuffer>): () => Uint8Array<ArrayBuffer> {
  let bytes: Uint8Array<ArrayBuffer> | undefined;
  return () => (bytes ??= make());
}

// The float32 kernel: 16 floats per turn in four accumulators.
const accumulate = (acc: number, offset: number) => [
  ...get(acc), ...get(P), ...v128load(offset), ...get(QQ), ...v128load(offset), ...F32X4_MUL, ...F32X4_ADD, ...set(acc),
];
const MODULE = assembledOnce(() => kernelModule('dots', 4, rowLoop(4, 4,
  [
    ...accumulate(A, 0), ...accumulate(A + 1, 16), ...accumulate(A + 2, 32), ...accumulate(A + 3, 48),
    ...get(P), ...i32(64), 0x6a, ...set(P),
    ...get(QQ), ...i32(64), 0x6a, ...set(QQ),
  ],
  [...get(A), ...get(A + 1), ...F32X4_ADD, ...get(A + 2), ...get(A + 3), ...F32X4_ADD, ...F32X4_ADD, ...set(A)],
  [...get(A), ...lane(0), ...get(A), ...lane(1), 0x92 /* f32.add */, ...get(A), ...lane(2), 0x92, ...get(A), ...lane(3), 0x92],
  0x38, // f32.store
)));

// The int8 kernel: dots8(vecs, q, n, dims, out): out[row] = Σ vecs[row·dims + j] · q[j] as i32, rows
// of int8, the query pre-widened to int16 (so only the rows are widened in the loop); 16 dims per
// turn (16 bytes of the row, 32 of the query).
const I16X8_EXTEND_LOW_I8X16_S = simd(0x87);
const I16X8_EXTEND_HIGH_I8X16_S = simd(0x88);
const I32X4_DOT_I16X8_S = simd(0xba);
const I32X4_ADD = simd(0xae);
const ilane = (l: number) => [...simd(0x1b), l];
const MODULE8 = assembledOnce(() => kernelModule('dots8', 2, rowLoop(2, 2,
  [
    ...get(A), ...get(P), ...v128load(0), ...I16X8_EXTEND_LOW_I8X16_S, ...get(QQ), ...v128load(0), ...I32X4_DOT_I16X8_S, ...I32X4_ADD, ...set(A),
    ...get(A + 1), ...get(P), ...v128load(0), ...I16X8_EXTEND_HIGH_I8X16_S, ...get(QQ), ...v128load(16), ...I32X4_DOT_I16X8_S, ...I32X4_ADD, ...set(A + 1),
    ...get(P), ...i32(16), 0x6a, ...set(P),
    ...get(QQ), ...i32(32), 0x6a, ...set(QQ),
  ],
  [...get(A), ...get(A + 1), ...I32X4_ADD, ...set(A)],
  [...get(A), ...ilane(0), ...get(A), ...ilane(1), 0x6a, ...get(A), ...ilane(2), 0x6a, ...get(A), ...ilane(3), 0x6a],
  0x36, // i32.store
)));

const compiled = new Map<Uint8Array<ArrayBuffer>, WebAssembly.Module | null>();
function module(bytes: Uint8Array<ArrayBuffer>): WebAssembly.Module | null {
  if (!compiled.has(bytes)) {
    let m: WebAssembly.Module | null = null;
    try {
      m = WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
    } catch {
      m = null;
    }
    compiled.set(bytes, m);
  }
  return compiled.get(bytes)!;
}

const PAGE = 65536;
const MAX_BYTES = 4 * 1024 ** 3 - PAGE;

type KernelFn = (v: number, q: number, n: number, d: number, out: number) => void;

/** A kernel module instantiated over a fresh memory of `bytes`, or null (no WASM SIMD, too big, out of memory). */
function instantiate(bytes: Uint8Array<ArrayBuffer>, exportName: string, size: number): { memory: WebAssembly.Memory; dotsFn: KernelFn } | null {
  if (size > MAX_BYTES) return null;
  const mod = module(bytes);
  if (!mod) return null;
  let memory: WebAssembly.Memory;
  try {
    memory = new WebAssembly.Memory({ initial: Math.ceil(size / PAGE) });
  } catch {
    return null;
  }
  const instance = new WebAssembly.Instance(mod, { env: { memory } });
  return { memory, dotsFn: instance.exports[exportName] as KernelFn };
}

export interface DotKernel {
  /** n × dims, inside wasm memory: fill it (or pass `source`), then call dots(). */
  readonly vectors: Float32Array;
  /** Dot product of every row (or of the first `rows`) with `query`; the returned view is reused by the next call. */
  dots(query: Float32Array, rows?: number): Float32Array;
}

/** A SIMD kernel for n × dims vectors, or null when the JS loop must be used. */
export function createDotKernel(n: number, dims: number): DotKernel | null {
  if (dims % 16 !== 0 || n < 1) return null;
  const bytes = (n * dims + dims + n) * 4;
  const k = instantiate(MODULE(), 'dots', bytes);
  if (!k) return null;
  const { memory, dotsFn } = k;
  const vectors = new Float32Array(memory.buffer, 0, n * dims);
  const qOffset = n * dims * 4;
  const outOffset = qOffset + dims * 4;
  const q = new Float32Array(memory.buffer, qOffset, dims);
  const out = new Float32Array(memory.buffer, outOffset, n);
  return {
    vectors,
    dots(query: Float32Array, rows = n): Float32Array {
      q.set(query);
      dotsFn(0, qOffset, Math.min(rows, n), dims, outOffset);
      return rows < n ? out.subarray(0, rows) : out;
    },
  };
}

export interface Int8Kernel {
  /** n × dims int8 rows inside wasm memory: fill them, then call dots(). */
  readonly vectors: Int8Array;
  /** The widest query component that cannot overflow an i32 sum over `dims` products. */
  readonly queryMax: number;
  /**
   * Σ row[j] · query[j] for every row (query already scaled to integers ≤ queryMax), or only for
   * the rows of `ranges` ([start, end) pairs: the others keep what an earlier call left); the view is reused.
   */
  dots(query: Int16Array, ranges?: readonly (readonly [number, number])[]): Int32Array;
}

/** An int8 SIMD kernel for n × dims rows, or null (no WASM SIMD, dims not a multiple of 16, too big). */
export function createInt8Kernel(n: number, dims: number): Int8Kernel | null {
  if (dims % 16 !== 0 || n < 1) return null;
  const qOffset = Math.ceil((n * dims) / 16) * 16;
  const outOffset = qOffset + dims * 2;
  const bytes = outOffset + n * 4;
  const k = instantiate(MODULE8(), 'dots8', bytes);
  if (!k) return null;
  const { memory, dotsFn } = k;
  const vectors = new Int8Array(memory.buffer, 0, n * dims);
  const q = new Int16Array(memory.buffer, qOffset, dims);
  const out = new Int32Array(memory.buffer, outOffset, n);
  return {
    vectors,
    // |row| ≤ 127: dims products of at most 127 · queryMax stay below 2^31.
    queryMax: Math.min(32767, Math.floor(2147483647 / (dims * 127))),
    dots(query: Int16Array, ranges?: readonly (readonly [number, number])[]): Int32Array {
      q.set(query);
      if (!ranges) dotsFn(0, qOffset, n, dims, outOffset);
      else for (const [start, end] of ranges) if (end > start) dotsFn(start * dims, qOffset, end - start, dims, outOffset + start * 4);
      return out;
    },
  };
}

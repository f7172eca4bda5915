import type { ChunkFilter } from '../../core/types.ts';

/**
 * What the rankings in this process (ranking/) read of a store that keeps its vectors where this
 * process can stream them (SQLite): not part of the reader role, which ranks behind `nearest`.
 */

/** The active fingerprint's vectors, one row per chunk, for the in-memory index. */
export interface VectorSet {
  generation: number;
  dims: number;
  /** Chunk references (StoredHit.ref), parallel to the rows of `vectors`. */
  refs: Int32Array;
  /** refs.length × dims floats, row-major. */
  vectors: Float32Array;
}

/**
 * Receives a scan of the stored int8 codes: `start` once with an upper bound of the row count,
 * then each row (the code array is reused): unit vector ≈ scale × code, residual = what that lost.
 */
export interface CodeSink {
  start(count: number, dims: number): void;
  row(i: number, ref: number, scale: number, residual: number, code: Int8Array): void;
  /** Rows `first …` at once, their codes back to back (a packed copy): one copy instead of one per row. */
  rows(first: number, refs: Int32Array, scales: Float64Array, residuals: Float64Array, codes: Int8Array): void;
  /**
   * The dimensions the sink needs (a query's non-zero ones): a store that keeps its codes by
   * dimension too may hand over only those, through `columns`, instead of whole rows.
   */
  only?: readonly number[];
  /** Rows `first …` with the codes of the dimensions in `only` (columns[j]: dimension only[j], a code per row). */
  columns?(first: number, refs: Int32Array, scales: Float64Array, residuals: Float64Array, columns: Int8Array[]): void;
}

/** Receives a vector scan: `start` once with the row count (an upper bound), then each row. */
export interface VectorSink {
  start(count: number, dims: number): void;
  row(i: number, ref: number, vector: Float32Array): void;
}

/** The vector rows and codes of a store, for the rankings of this process. */
export interface VectorRows {
  /** Bumped by every commit that changes chunks or vectors. */
  generation(): Promise<number>;
  /** Every chunk's vector for `fingerprint` (chunks without one are left out). */
  loadVectors(fingerprint: string): Promise<VectorSet>;
  /**
   * Every chunk's vector for `fingerprint`, one row at a time (the array passed to `row` is reused):
   * lets an index keep a compact copy without first holding all float32 rows. One snapshot.
   */
  scanVectors(fingerprint: string, sink: VectorSink): Promise<{ generation: number; dims: number; count: number }>;
  /**
   * Like scanVectors, but rows come in whatever order the store reads them fastest and with the
   * least memory (a one-shot query orders its few scores itself; sorting the rows would hold them all).
   */
  streamVectors(fingerprint: string, sink: VectorSink): Promise<{ generation: number; dims: number; count: number }>;
  /**
   * Like streamVectors, over the int8 codes stored beside the vectors (a quarter of the bytes);
   * null, having read nothing, when the store keeps no codes or not one for every vector of
   * `fingerprint` (the caller then streams the float32 rows). `sources`: the caller will reject
   * every row of other sources, so the store may leave them out (it may also stream them).
   */
  streamCodes?(fingerprint: string, sink: CodeSink, sources?: readonly string[]): Promise<{ generation: number; dims: number; count: number } | null>;
  /**
   * Exact cosine similarity of `query` with the stored float32 vectors of some chunks, computed in
   * the store (no vector crosses into JavaScript); chunks without a vector are left out.
   */
  vectorScores(fingerprint: string, refs: readonly number[], query: Float32Array): Promise<Map<number, number>>;
  /** The stored float32 vectors of some chunks, by reference; missing ones left out. */
  vectorsOf(fingerprint: string, refs: readonly number[]): Promise<Map<number, Float32Array>>;
}

/** The filter as a ranking in this process applies it. */
export interface RefFilters {
  /**
   * The filter as a synchronous test of references when the store can answer it from memory
   * (sources, broken chunks), so a vector ranking can skip rejected rows; null when it cannot.
   */
  refFilter(filter?: ChunkFilter): Promise<((ref: number) => boolean) | null>;
  /** The references among `refs` whose chunks pass `filter`, in order. */
  filterRefs(refs: readonly number[], filter?: ChunkFilter): Promise<number[]>;
}

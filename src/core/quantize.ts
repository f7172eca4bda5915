/**
 * The int8 form of a vector, shared by what stores it (storage writes it beside each float32 row)
 * and what scores it (search's int8 kernels): both must compute it bit for bit alike, so that a
 * stored copy ranks exactly as one quantised on load.
 */

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
 * Quantises a unit row into `out` (int8, symmetric, one scale per row) and returns the scale.
 * Per-row scales measured better than per-dimension ones on both corpora (sparse hashed vectors
 * have few large components) and need no second pass over the rows.
 */
export function quantizeRow(row: Float32Array, out: Int8Array): number {
  let max = 0;
  for (let j = 0; j < row.length; j++) {
    const a = Math.abs(row[j]!);
    if (a > max) max = a;
  }
  if (max === 0) {
    out.fill(0);
    return 0;
  }
  const inv = 127 / max;
  for (let j = 0; j < row.length; j++) out[j] = Math.round(row[j]! * inv);
  return max / 127;
}

/**
 * The int8 code of a unit row: `out` ≈ row / scale, and the norm of what quantising lost (it bounds
 * a score's error). Both figures as float32 values, as they are kept and stored.
 */
export function encodeInt8(row: Float32Array, out: Int8Array): { scale: number; residual: number } {
  const scale = quantizeRow(row, out);
  let r = 0;
  for (let j = 0; j < row.length; j++) {
    const e = row[j]! - out[j]! * scale;
    r += e * e;
  }
  return { scale: Math.fround(scale), residual: Math.fround(Math.sqrt(r)) };
}

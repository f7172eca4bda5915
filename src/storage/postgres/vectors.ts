/** pgvector's text form of a vector: float32 values printed exactly (they parse back to the same floats). */
export const vectorLiteral = (v: Float32Array) => `[${Array.from(v).join(',')}]`;

/**
 * pgvector's binary form (`vector_send(embedding)`: uint16 dims, uint16 unused, then big-endian
 * float32s) as a Float32Array: exact, and far cheaper to read than the text form.
 */
export function decodeVectorSend(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dims = view.getUint16(0);
  const out = new Float32Array(dims);
  for (let i = 0; i < dims; i++) out[i] = view.getFloat32(4 + 4 * i);
  return out;
}

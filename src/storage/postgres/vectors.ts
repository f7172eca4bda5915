/**
 * pgvector's text form of a vector, each float32 exactly: 9 significant digits always parse back
 * (strtof) to the same float32, and print in about two thirds of the characters (and time) of the
 * shortest double form that `String` gives a widened float32.
 */
export function vectorLiteral(v: Float32Array): string {
  let s = '[';
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    s += (i ? ',' : '') + (x === 0 ? '0' : x.toPrecision(9));
  }
  return `${s}]`;
}

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

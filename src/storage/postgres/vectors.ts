/** pgvector's text form '[1,2.5,…]' as float32 (the server prints each float so that it reads back the same). */
export function parseVector(text: string): Float32Array {
  const body = text.slice(1, -1);
  if (!body) return new Float32Array(0);
  const parts = body.split(',');
  const out = new Float32Array(parts.length);
  for (let i = 0; i < parts.length; i++) out[i] = Number(parts[i]);
  return out;
}

/** pgvector's text form of a vector: float32 values printed exactly (they parse back to the same floats). */
export const vectorLiteral = (v: Float32Array) => `[${Array.from(v).join(',')}]`;

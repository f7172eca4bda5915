import { endianness } from 'node:os';

const LITTLE = endianness() === 'LE';

/**
 * Vectors are stored as float32 little-endian BLOBs (4 bytes per dimension), the format sqlite-vec
 * reads, so `vec_to_json(embedding)` works in the sqlite3 shell.
 */
export function encodeVector(v: Float32Array): Buffer {
  const buf = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  if (LITTLE) return Buffer.from(buf); // copy: callers may reuse their array
  const out = Buffer.alloc(v.length * 4);
  for (let i = 0; i < v.length; i++) out.writeFloatLE(v[i]!, i * 4);
  return out;
}

export function decodeVector(blob: Uint8Array): Float32Array {
  if (blob.byteLength % 4 !== 0) throw new Error(`vector blob of ${blob.byteLength} bytes is not float32`);
  const n = blob.byteLength / 4;
  if (LITTLE) {
    // Copy into an aligned buffer: better-sqlite3 hands out Buffers that may share a pool.
    const out = new Float32Array(n);
    new Uint8Array(out.buffer).set(blob);
    return out;
  }
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

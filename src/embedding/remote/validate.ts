import { ProviderError } from '../../core/remote/errors.ts';
import { WIRE_FORMATS, type WireFormat } from './wire.ts';
import { isZeroVector } from './vector-checks.ts';

/**
 * Checks a 2xx embeddings reply and returns one vector per input, in input order. Rejects the whole
 * batch — so nothing of it is stored — unless there is exactly one entry per input (indices cover
 * 0..n-1 once each where the format numbers them), every vector has `dims` entries and every entry
 * is a finite number. A wrong dimension is a configuration mismatch (not retried); the rest may be
 * a glitch (retried). With `dims` null (not configured, being detected) every vector must have the
 * size of the first.
 */
export function parseVectors(body: string, n: number, dims: number | null, label: string, wire: WireFormat = WIRE_FORMATS.openai): Float32Array[] {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new ProviderError(`${label}: malformed JSON in response (${body.length} bytes)`, true);
  }
  const list = wire.vectors(json, n, label);
  const size = dims ?? (Array.isArray(list[0]) ? list[0].length : 0);
  return list.map((e, index) => {
    if (!Array.isArray(e)) throw new ProviderError(`${label}: entry ${index} has no embedding array; batch rejected`, true);
    if (dims === null && e.length !== size) {
      throw new ProviderError(`${label}: vectors of ${size} and ${e.length} dimensions in one reply; batch rejected`, true);
    }
    if (e.length !== size) {
      throw new ProviderError(`${label}: got ${e.length}-dimensional vectors, config says dimensions ${dims}; batch rejected`, false);
    }
    if (size === 0) throw new ProviderError(`${label}: empty vector in response; batch rejected`, true);
    const v = new Float32Array(size);
    for (let k = 0; k < size; k++) {
      const x = e[k];
      if (typeof x !== 'number' || !Number.isFinite(x)) {
        throw new ProviderError(`${label}: non-finite value in vector ${index}; batch rejected`, true);
      }
      v[k] = x; // a double beyond float32 range would become Infinity: checked below
      if (!Number.isFinite(v[k]!)) throw new ProviderError(`${label}: value out of float32 range in vector ${index}; batch rejected`, true);
    }
    // An all-zero vector has no direction: cosine against it is NaN, so it would rank nowhere or
    // everywhere. It is a provider fault like NaN, not a vector to keep.
    if (isZeroVector(v)) throw new ProviderError(`${label}: zero vector (norm 0) for input ${index}; batch rejected`, true);
    return v;
  });
}

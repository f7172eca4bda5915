import { ProviderError } from './errors.ts';

/**
 * A vector of zeros has no direction: cosine against it is 0/0, so stored it would either poison
 * scores with NaN or never match anything, while its text counts as embedded and is never sent
 * again. A provider that returns one is faulty like one that returns NaN: the whole batch is
 * rejected (retried, then the run fails) and nothing of it is stored.
 */
export function rejectZeroVectors(vectors: Float32Array[], label: string): void {
  vectors.forEach((v, i) => {
    for (let k = 0; k < v.length; k++) if (v[k] !== 0) return;
    throw new ProviderError(`${label}: vector ${i} is all zeros (zero norm); batch rejected`, true);
  });
}

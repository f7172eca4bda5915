import { describe, expect, it } from 'vitest';
import { createDotKernel } from '../../src/storage/ranking/simd-dots.ts';
import { topK, topKOfScores } from '../../src/storage/ranking/vector-index.ts';

function random(n: number, seed: number): Float32Array {
  let x = seed;
  return Float32Array.from({ length: n }, () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31 - 0.5;
  });
}

describe('WASM SIMD dot kernel', () => {
  it('matches the JS loop: same scores (float32 tolerance), same top-k', () => {
    const n = 777;
    const dims = 64;
    const data = random(n * dims, 3);
    const q = random(dims, 9);
    const kernel = createDotKernel(n, dims);
    expect(kernel).not.toBeNull();
    kernel!.vectors.set(data);
    const scores = kernel!.dots(q);
    for (let r = 0; r < n; r++) {
      let s = 0;
      for (let j = 0; j < dims; j++) s += data[r * dims + j]! * q[j]!;
      expect(Math.abs(scores[r]! - s)).toBeLessThan(1e-4);
    }
    const refs = Int32Array.from({ length: n }, (_, i) => i * 2);
    const js = topK({ dims, vectors: data, refs }, q, 10).map((m) => m.ref);
    expect(topKOfScores(scores, refs, 10).map((m) => m.ref)).toEqual(js);
    const odd = (row: number) => row % 3 === 1;
    expect(topKOfScores(kernel!.dots(q), refs, 5, odd).map((m) => m.ref)).toEqual(
      topK({ dims, vectors: data, refs }, q, 5, odd).map((m) => m.ref),
    );
  });

  it('declines shapes it does not handle (the JS loop serves them)', () => {
    expect(createDotKernel(10, 24)).toBeNull();
    expect(createDotKernel(0, 64)).toBeNull();
    expect(createDotKernel(2_000_000, 1024)).toBeNull(); // > 4 GB of wasm32 memory
  });
});

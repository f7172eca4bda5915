import { describe, expect, it } from 'vitest';
import { capPerDocument, collapseDuplicates, jaccard, jaccardAtLeast, mmr, rrf, RRF_K, shingles, temporalDecay, type Candidate } from '../../src/search/fuse.ts';
import { topK } from '../../src/storage/ranking/vector-index.ts';

const h = (ref: number, content = `text ${ref}`, score = 1) => ({ ref, content, score });

describe('rrf', () => {
  it('sums weighted reciprocal ranks and records component ranks', () => {
    const out = rrf([h(1), h(2), h(3)], [h(3), h(4)], { vector: 1, keyword: 2 });
    const byRef = new Map(out.map((c) => [c.ref, c]));
    expect(byRef.get(3)!.score).toBeCloseTo(1 / (RRF_K + 3) + 2 / (RRF_K + 1));
    expect(byRef.get(3)!.vector).toEqual({ rank: 3, score: 1 });
    expect(byRef.get(3)!.keyword).toEqual({ rank: 1, score: 1 });
    expect(out[0]!.ref).toBe(3);
    expect(out.map((c) => c.ref).sort()).toEqual([1, 2, 3, 4]);
  });
});

describe('collapseDuplicates', () => {
  it('keeps the best of near-identical texts and counts the rest', () => {
    const list: Candidate[] = [
      { ref: 1, content: '伤官配印，贵不可言；伤官生财，亦主富。', score: 3 },
      { ref: 2, content: '正官者，克我而阴阳相异者也。', score: 2 },
      { ref: 3, content: '伤官配印 贵不可言 伤官生财 亦主富', score: 1 },
    ];
    const out = collapseDuplicates(list);
    expect(out.map((c) => c.ref)).toEqual([1, 2]);
    expect(out[0]!.duplicates).toEqual([3]);
  });
});

describe('shingles', () => {
  // Bigrams as two-character strings: what the numeric sets must agree with.
  const reference = (text: string) => {
    const chars = Array.from(text.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ''));
    const out = new Set<string>();
    for (let i = 0; i + 1 < chars.length; i++) out.add(chars[i]! + chars[i + 1]!);
    if (chars.length === 1) out.add(chars[0]!);
    return out;
  };
  it('give the sizes and Jaccard similarities of character-bigram strings (CJK, astral characters, one character, none)', () => {
    const texts = ['伤官配印，贵不可言', '伤官配印 贵不可言！', '傷官配印', 'Retry with JITTER', 'retry with jitter!', '𠀀𠀁𠀀𠀁 a', '𠀀', 'a', 'ab', 'ba', '', '…', 'ＡＢＣ abc', '甲乙甲乙甲'];
    const setJaccard = (a: Set<string>, b: Set<string>) => {
      if (!a.size && !b.size) return 1;
      const inter = [...a].filter((x) => b.has(x)).length;
      return inter / (a.size + b.size - inter);
    };
    for (const a of texts) {
      expect(shingles(a).length).toBe(reference(a).size);
      for (const b of texts) expect(jaccard(shingles(a), shingles(b))).toBe(setJaccard(reference(a), reference(b)));
    }
  });

  it('answer a threshold as jaccard does, stopping early or not (texts near and far, every threshold)', () => {
    // Texts sharing most, some or none of their bigrams: a seeded walk of edits from one base.
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const base = Array.from({ length: 300 }, () => String.fromCodePoint(0x4e00 + rand(60))).join('');
    const texts = ['', 'a', base];
    for (const edits of [1, 3, 10, 30, 100, 300]) {
      const t = Array.from(base);
      for (let e = 0; e < edits; e++) t[rand(t.length)] = String.fromCodePoint(0x4e00 + rand(200));
      texts.push(t.join(''), t.join('').slice(rand(50)));
    }
    let checked = 0;
    for (const a of texts.map(shingles)) {
      for (const b of texts.map(shingles)) {
        for (const t of [0, 0.1, 0.5, 0.8, 0.9, 0.95, 1, jaccard(a, b)]) {
          expect(jaccardAtLeast(a, b, t), `${a.length} ${b.length} ${t}`).toBe(jaccard(a, b) >= t);
          checked++;
        }
      }
    }
    expect(checked).toBe(15 * 15 * 8);
  });
});

describe('temporalDecay', () => {
  it('halves the score per half-life and leaves undated items', () => {
    const now = Date.parse('2024-03-01T00:00:00Z');
    const list: Candidate[] = [
      { ref: 1, content: 'a', score: 1, date: '2024-02-20T00:00:00Z' },
      { ref: 2, content: 'b', score: 0.9, date: '2024-02-29T00:00:00Z' },
      { ref: 3, content: 'c', score: 0.5, date: null },
    ];
    const out = temporalDecay(list, 10, now);
    expect(out.map((c) => c.ref)).toEqual([2, 1, 3]);
    expect(out.find((c) => c.ref === 1)!.decay).toBeCloseTo(0.5);
  });
});

describe('mmr', () => {
  it('prefers a different text over a near-copy of the first pick', () => {
    const list: Candidate[] = [
      { ref: 1, content: '甲木参天脱胎要火', score: 1 },
      { ref: 2, content: '甲木参天脱胎要火春', score: 0.99 },
      { ref: 3, content: '印绶喜官星生之', score: 0.9 },
    ];
    expect(mmr(list, 2, 0.5).map((c) => c.ref)).toEqual([1, 3]);
    expect(mmr(list, 2, 1).map((c) => c.ref)).toEqual([1, 2]);
  });
});

describe('topK', () => {
  it('returns the exact top k by dot product, best first', () => {
    const dims = 4;
    const n = 200;
    const vectors = new Float32Array(n * dims);
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    for (let i = 0; i < vectors.length; i++) vectors[i] = rnd();
    const refs = Int32Array.from({ length: n }, (_, i) => 1000 + i);
    const q = Float32Array.from([0.5, -0.2, 0.1, 0.8]);
    const brute = Array.from({ length: n }, (_, r) => ({
      ref: 1000 + r,
      s: [0, 1, 2, 3].reduce((a, j) => a + vectors[r * dims + j]! * q[j]!, 0),
    })).sort((a, b) => b.s - a.s);
    const got = topK({ dims, vectors, refs }, q, 10);
    expect(got.map((m) => m.ref)).toEqual(brute.slice(0, 10).map((b) => b.ref));
    const even = topK({ dims, vectors, refs }, q, 5, (row) => row % 2 === 0);
    expect(even.map((m) => m.ref)).toEqual(brute.filter((b) => b.ref % 2 === 0).slice(0, 5).map((b) => b.ref));
  });
});

describe('capPerDocument', () => {
  it('keeps the best n of each document in rank order, up to a limit; the rest fill in last when asked', () => {
    const doc = new Map([[1, 7], [2, 7], [3, 8], [4, 7], [5, 9], [6, 8]]);
    const list = [1, 2, 3, 4, 5, 6].map((ref) => ({ ...h(ref), ref }));
    const cap = (n: number, limit?: number) => capPerDocument(list, n, (c) => doc.get(c.ref), limit).map((c) => c.ref);
    expect(cap(1)).toEqual([1, 3, 5]);
    expect(cap(2)).toEqual([1, 2, 3, 5, 6]);
    expect(cap(2, 3)).toEqual([1, 2, 3]);
    // With fill (nothing else to come) the capped ones follow the rest.
    expect(capPerDocument(list, 1, (c) => doc.get(c.ref), Infinity, true).map((c) => c.ref)).toEqual([1, 3, 5, 2, 4, 6]);
    expect(capPerDocument(list, 1, (c) => doc.get(c.ref), 4, true).map((c) => c.ref)).toEqual([1, 3, 5, 2]);
    // A candidate whose document is unknown is kept.
    expect(capPerDocument([h(10), h(11)], 1, () => undefined).map((c) => c.ref)).toEqual([10, 11]);
  });
});

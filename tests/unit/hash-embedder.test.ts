import { describe, expect, it } from 'vitest';
import { HashEmbedder, hashEmbed, forEachFeature } from '../../src/embedding/hash.ts';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe('hash embedder (lexical, offline)', () => {
  it('is deterministic, L2-normalised, of the configured dimension', async () => {
    const e = new HashEmbedder(1024);
    const [a, b] = await e.embed(['伤官配印，贵不可言。', '伤官配印，贵不可言。']);
    expect(a).toEqual(b);
    expect(a!.length).toBe(1024);
    expect(dot(a!, a!)).toBeCloseTo(1, 5);
    expect(e.info).toEqual({ fingerprint: 'hash:cjk-ngram@1:1024', provider: 'hash', model: 'cjk-ngram@1', dims: 1024 });
    expect(new HashEmbedder(256).info.fingerprint).toBe('hash:cjk-ngram@1:256');
  });

  it('puts texts sharing CJK bigrams and words closer than unrelated ones', () => {
    const q = hashEmbed('伤官配印', 1024);
    const near = hashEmbed('论伤官：伤官配印则贵，伤官见官为祸。', 1024);
    const far = hashEmbed('甲子乙丑海中金，丙寅丁卯炉中火。', 1024);
    expect(dot(q, near)).toBeGreaterThan(dot(q, far) + 0.2);
    const en = hashEmbed('exponential backoff with jitter', 1024);
    expect(dot(en, hashEmbed('Retry using exponential backoff and jitter.', 1024))).toBeGreaterThan(
      dot(en, hashEmbed('SQLite in WAL mode', 1024)) + 0.2,
    );
  });

  it('emits unigrams and bigrams for Han runs, words and word pairs for other scripts', () => {
    const kinds: string[] = [];
    forEachFeature('甲木 Hello World', (_h, k) => kinds.push(k));
    expect(kinds).toEqual(['unigram', 'unigram', 'bigram', 'word', 'word', 'wordPair']);
  });

  it('gives an all-zero vector (not NaN) for text with no features', () => {
    const v = hashEmbed('。，！', 64);
    expect([...v].every((x) => x === 0)).toBe(true);
  });
});

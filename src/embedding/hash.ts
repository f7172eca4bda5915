import type { Embedder, EmbedStats } from './types.ts';
import { estimateTokens } from '../chunking/tokens.ts';

/**
 * The offline embedder: feature hashing of CJK character unigrams + bigrams and Latin words +
 * word bigrams, log-scaled term frequency, signed buckets, L2-normalised.
 *
 * It is LEXICAL: two texts are close when they share characters and words, not meaning. It needs
 * no network, no model and no key, so a fresh machine can index and search with npm alone.
 */
export const HASH_ALGORITHM = 'cjk-ngram';
/** Bump when features or hashing change: vectors get a new fingerprint and are re-embedded. */
export const HASH_VERSION = 1;

const HAN = /\p{Script=Han}/u;
// Runs of Han characters, or words of letters/digits from other scripts.
const TOKEN = /\p{Script=Han}+|[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;

/** FNV-1a 32-bit over UTF-16 code units: fast, stable across platforms and versions. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Feature strings of a text, with repeats (the counts are the term frequencies). */
export function hashFeatures(text: string): string[] {
  const features: string[] = [];
  let prevWord: string | null = null;
  for (const m of text.normalize('NFKC').toLowerCase().matchAll(TOKEN)) {
    const tok = m[0];
    if (HAN.test(tok[0]!)) {
      prevWord = null;
      const chars = Array.from(tok);
      for (let i = 0; i < chars.length; i++) {
        features.push('u' + chars[i]);
        if (i + 1 < chars.length) features.push('b' + chars[i] + chars[i + 1]);
      }
    } else {
      features.push('w' + tok);
      if (prevWord !== null) features.push('p' + prevWord + ' ' + tok);
      prevWord = tok;
    }
  }
  return features;
}

export function hashEmbed(text: string, dims: number): Float32Array {
  const counts = new Map<string, number>();
  for (const f of hashFeatures(text)) counts.set(f, (counts.get(f) ?? 0) + 1);
  const v = new Float32Array(dims);
  for (const [f, tf] of counts) {
    const h = fnv1a(f);
    // Bigrams carry more meaning than single characters, so they weigh more.
    const weight = (1 + Math.log(tf)) * (f[0] === 'u' ? 0.5 : 1);
    // The top bit decides the sign so collisions cancel out on average instead of piling up.
    v[h % dims]! += h & 0x80000000 ? -weight : weight;
  }
  let norm = 0;
  for (let i = 0; i < dims; i++) norm += v[i]! * v[i]!;
  if (norm > 0) {
    const inv = 1 / Math.sqrt(norm);
    for (let i = 0; i < dims; i++) v[i]! *= inv;
  }
  return v;
}

export class HashEmbedder implements Embedder {
  readonly info;
  readonly normalized = true;
  readonly stats: EmbedStats = { requests: 0, tokens: 0, retries: 0 };

  constructor(
    readonly dims = 1024,
    readonly batchSize = 256,
  ) {
    this.info = {
      fingerprint: `hash:${HASH_ALGORITHM}@${HASH_VERSION}:${dims}`,
      provider: 'hash',
      model: `${HASH_ALGORITHM}@${HASH_VERSION}`,
      dims,
    };
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    this.stats.requests++;
    for (const t of texts) this.stats.tokens += estimateTokens(t);
    return texts.map((t) => hashEmbed(t, this.dims));
  }
}

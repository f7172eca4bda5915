import type { Embedder, EmbedStats } from './types.ts';
import { estimateTokens } from '../core/text/tokens.ts';

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

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
// Seeds keep the feature kinds apart: the character 木 and the word "木" never share a hash.
const SEED_UNIGRAM = 0x9e3779b1;
const SEED_BIGRAM = 0x85ebca77;
const SEED_WORD = 0xc2b2ae3d;
const SEED_WORD_PAIR = 0x27d4eb2f;

const fnvStep = (h: number, c: number) => Math.imul(h ^ c, FNV_PRIME) >>> 0;

/** Han ideographs (BMP blocks and the supplementary planes). */
function isHan(c: number): boolean {
  return (c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0x20000 && c <= 0x3ffff);
}

const WORD_CHAR = /[\p{L}\p{N}]/u;
function isWordChar(c: number): boolean {
  if (c < 128) return (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
  return WORD_CHAR.test(String.fromCodePoint(c));
}

export type FeatureKind = 'unigram' | 'bigram' | 'word' | 'wordPair';

/**
 * Calls `emit(hash, kind)` once per feature occurrence. Hashes are FNV-1a over code points, seeded
 * per kind: stable across platforms and versions, and no feature strings are built.
 */
export function forEachFeature(text: string, emit: (hash: number, kind: FeatureKind) => void): void {
  const s = text.normalize('NFKC').toLowerCase();
  let prevHan = -1; // previous code point if it was Han
  let word = FNV_OFFSET; // hash of the word being read
  let inWord = false;
  let prevWord = -1; // hash of the previous word, for word pairs
  const endWord = () => {
    if (!inWord) return;
    const w = fnvStep(word, SEED_WORD);
    emit(w, 'word');
    if (prevWord >= 0) emit(fnvStep(fnvStep(prevWord, w), SEED_WORD_PAIR), 'wordPair');
    prevWord = w;
    inWord = false;
    word = FNV_OFFSET;
  };
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (isHan(c)) {
      endWord();
      prevWord = -1;
      emit(fnvStep(fnvStep(FNV_OFFSET, c), SEED_UNIGRAM), 'unigram');
      if (prevHan >= 0) emit(fnvStep(fnvStep(fnvStep(FNV_OFFSET, prevHan), c), SEED_BIGRAM), 'bigram');
      prevHan = c;
    } else if (isWordChar(c)) {
      prevHan = -1;
      word = fnvStep(word, c);
      inWord = true;
    } else {
      prevHan = -1;
      endWord();
    }
  }
  endWord();
}

export function hashEmbed(text: string, dims: number): Float32Array {
  // Term frequency per feature (keyed by its 32-bit hash), then log-scaled into signed buckets.
  const counts = new Map<number, number>();
  const unigrams = new Set<number>();
  forEachFeature(text, (h, kind) => {
    counts.set(h, (counts.get(h) ?? 0) + 1);
    if (kind === 'unigram') unigrams.add(h);
  });
  const v = new Float32Array(dims);
  for (const [h, tf] of counts) {
    // Bigrams carry more meaning than single characters, so single characters weigh half.
    const weight = (1 + Math.log(tf)) * (unigrams.has(h) ? 0.5 : 1);
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
    // In-process work, unlike a provider's request: a batch of long texts is tens of ms, so the
    // event loop (a daemon's /healthz and searches) gets a turn every few ms of it.
    const out: Float32Array[] = [];
    let resumeBy = performance.now() + EMBED_SLICE_MS;
    for (const t of texts) {
      out.push(hashEmbed(t, this.dims));
      if (performance.now() >= resumeBy) {
        await new Promise((resolve) => setImmediate(resolve));
        resumeBy = performance.now() + EMBED_SLICE_MS;
      }
    }
    return out;
  }
}

/** Longest stretch of embedding between two turns of the event loop. */
const EMBED_SLICE_MS = 10;

/**
 * Fusion and post-processing of ranked lists: reciprocal rank fusion, collapse of (near-)identical
 * texts, temporal decay, MMR diversification. Pure functions over candidates; no I/O.
 */
import { LruCache } from '../core/lru.ts';

export interface Candidate {
  ref: number;
  content: string;
  /** Final score, set by the stages below. */
  score: number;
  /** 1-based rank and raw score in each component list. */
  vector?: { rank: number; score: number };
  keyword?: { rank: number; score: number };
  /** Rank and raw score in the expansion list, and the expansion weight the hit earned there. */
  expansion?: { rank: number; score: number; weight: number };
  /** Rank and raw score in the list of a profile's own expansions, and the expansion weight earned there. */
  profileExpansion?: { rank: number; score: number; weight: number };
  /** ISO date used by temporal decay. */
  date?: string | null;
  /** Refs of collapsed near-duplicates. */
  duplicates?: number[];
  decay?: number;
  /** Holds the query's words in order (literal.ts). */
  literal?: boolean;
}

export interface RrfWeights {
  vector: number;
  keyword: number;
}

/** RRF's damping constant: 60 as in Cormack et al.; rank 1 is worth 1/61. */
export const RRF_K = 60;

type Ranked = { ref: number; content?: string; score: number };

/**
 * A list fused below the query's own: the keyword hits of expansion terms. Each hit counts
 * weight × weightOf(hit) / (RRF_K + rank), weightOf being the expansion weight it earned; `field`
 * names where explain shows its rank.
 */
export interface ExpansionList {
  field: 'expansion' | 'profileExpansion';
  list: Ranked[];
  weight: number;
  weightOf(hit: Ranked): number;
}

/** A candidate's share of the fused score from the query's own lists (vector and keyword) alone, as rrf adds it. */
export function ownListsScore(c: Pick<Candidate, 'vector' | 'keyword'>, weights: RrfWeights): number {
  return (c.vector ? weights.vector / (RRF_K + c.vector.rank) : 0) + (c.keyword ? weights.keyword / (RRF_K + c.keyword.rank) : 0);
}

/** Merges ranked lists by Σ weight / (RRF_K + rank). */
export function rrf(vector: Ranked[], keyword: Ranked[], weights: RrfWeights = { vector: 1, keyword: 1 }, expansions: ExpansionList[] = []): Candidate[] {
  const byRef = new Map<number, Candidate>();
  const add = (list: typeof vector, which: 'vector' | 'keyword', w: number) =>
    list.forEach((h, i) => {
      const c = byRef.get(h.ref) ?? { ref: h.ref, content: h.content ?? '', score: 0 };
      c[which] = { rank: i + 1, score: h.score };
      c.score += w / (RRF_K + i + 1);
      byRef.set(h.ref, c);
    });
  add(vector, 'vector', weights.vector);
  add(keyword, 'keyword', weights.keyword);
  for (const ex of expansions) {
    ex.list.forEach((h, i) => {
      const c = byRef.get(h.ref) ?? { ref: h.ref, content: h.content ?? '', score: 0 };
      const w = ex.weightOf(h);
      c[ex.field] = { rank: i + 1, score: h.score, weight: w };
      c.score += (ex.weight * w) / (RRF_K + i + 1);
      byRef.set(h.ref, c);
    });
  }
  return [...byRef.values()].sort((a, b) => b.score - a.score || a.ref - b.ref);
}

/**
 * Character-bigram set of a text, whitespace and punctuation ignored (for near-duplicate tests):
 * each bigram the number first × 0x110000 + second (code points), a lone character its code point,
 * sorted ascending without repeats — the set of two-character strings, compared by merging.
 */
export function shingles(text: string): Float64Array {
  const s = text.normalize('NFKC').toLowerCase();
  const codes = new Float64Array(s.length);
  let n = 0;
  let prev = -1;
  let lone = -1;
  for (let i = 0; i < s.length; ) {
    const c = s.codePointAt(i)!;
    i += c > 0xffff ? 2 : 1;
    if (!letterOrDigit(c)) continue; // dropped: its neighbours pair up
    if (prev >= 0) codes[n++] = prev * 0x110000 + c;
    else lone = c;
    prev = c;
  }
  if (n === 0 && lone >= 0) codes[n++] = lone; // a text of one character
  const sorted = codes.subarray(0, n).sort();
  let m = 0;
  for (let i = 0; i < n; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[m++] = sorted[i]!;
  return sorted.slice(0, m);
}

const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;
const classified = new Map<number, boolean>();
/** \p{L} or \p{N}: ASCII and the original CJK block (all letters) answered directly, the rest by the regex, remembered. */
function letterOrDigit(c: number): boolean {
  if (c < 0x80) return (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a);
  if (c >= 0x4e00 && c <= 0x9fa5) return true;
  let v = classified.get(c);
  if (v === undefined) {
    v = LETTER_OR_DIGIT.test(String.fromCodePoint(c));
    if (classified.size > 10_000) classified.clear();
    classified.set(c, v);
  }
  return v;
}

/** Jaccard similarity of two shingle sets (sorted, distinct). */
export function jaccard(a: Float64Array, b: Float64Array): number {
  if (!a.length && !b.length) return 1;
  let inter = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i] === b[j]) inter++, i++, j++;
    else if (a[i]! < b[j]!) i++;
    else j++;
  }
  return inter / (a.length + b.length - inter);
}

/**
 * Whether jaccard(a, b) ≥ threshold, the same answer, but the walk stops once the bigrams left
 * cannot bring the shared count to what the threshold needs (texts that differ part early).
 */
export function jaccardAtLeast(a: Float64Array, b: Float64Array, threshold: number): boolean {
  if (!a.length && !b.length) return 1 >= threshold;
  const total = a.length + b.length;
  // The ratio grows with the shared count: the least count that reaches the threshold, as jaccard computes the ratio.
  const reaches = (inter: number) => inter / (total - inter) >= threshold;
  let need = Math.max(0, Math.floor((threshold * total) / (1 + threshold)) - 2);
  while (need <= Math.min(a.length, b.length) && !reaches(need)) need++;
  if (need > Math.min(a.length, b.length)) return false;
  let inter = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i] === b[j]) inter++, i++, j++;
    else {
      if (a[i]! < b[j]!) i++;
      else j++;
      if (inter + Math.min(a.length - i, b.length - j) < need) return false;
    }
  }
  return reaches(inter);
}

/**
 * Shingles of recent texts, by the text itself: the same passages come up query after query (a
 * text is its own key, so an edited chunk is a new entry). Bounded: each set takes 8 bytes a
 * character of its text, and beyond SHINGLE_TEXTS the least recently used go.
 */
const SHINGLE_TEXTS = 4096;
const recentShingles = new LruCache<Float64Array>(SHINGLE_TEXTS);
export function shinglesOf(text: string): Float64Array {
  let sh = recentShingles.get(text);
  if (!sh) recentShingles.set(text, (sh = shingles(text)));
  return sh;
}
const candidateShingles = (c: Candidate): Float64Array => shinglesOf(c.content);

/**
 * Keeps the best of each group of identical or near-identical texts (Jaccard of character bigrams ≥
 * threshold): corpora reprint passages across files. Input must be best-first.
 */
export function collapseDuplicates<T extends Candidate>(list: T[], threshold = 0.9, limit = Infinity): T[] {
  const kept: { c: T; sh: Float64Array }[] = [];
  for (const c of list) {
    if (kept.length >= limit) break; // callers that need only the top `limit` stop here
    const sh = candidateShingles(c);
    // Jaccard ≥ t needs the smaller set to be ≥ t × the larger: skip the set walk otherwise.
    const same = kept.find(
      (k) => Math.min(k.sh.length, sh.length) >= threshold * Math.max(k.sh.length, sh.length) && jaccardAtLeast(k.sh, sh, threshold),
    );
    if (same) (same.c.duplicates ??= []).push(c.ref);
    else kept.push({ c, sh });
  }
  return kept.map((k) => k.c);
}

/**
 * At most `perDoc` candidates of each document ahead of every other document's, best first, so one
 * long document cannot take every place; `docOf` names a candidate's document. The ones beyond
 * the cap drop out, or with `fill` (the list is all there is) follow the rest in their order, so a
 * search over few documents still fills its places. Stops at `limit`. Input must be best-first.
 */
export function capPerDocument<T extends Candidate>(list: T[], perDoc: number, docOf: (c: T) => number | undefined, limit = Infinity, fill = false): T[] {
  const seen = new Map<number, number>();
  const out: T[] = [];
  const over: T[] = [];
  for (const c of list) {
    if (out.length >= limit) break;
    const doc = docOf(c);
    const n = doc === undefined ? 0 : (seen.get(doc) ?? 0);
    if (n >= perDoc) {
      over.push(c);
      continue;
    }
    if (doc !== undefined) seen.set(doc, n + 1);
    out.push(c);
  }
  return fill ? [...out, ...over].slice(0, limit) : out;
}

/** score × 0.5^(age / halfLife) for candidates with a date; undated ones are left as they are. */
export function temporalDecay<T extends Candidate>(list: T[], halfLifeDays: number, now = Date.now()): T[] {
  for (const c of list) {
    const t = c.date ? Date.parse(c.date) : NaN;
    if (Number.isNaN(t)) continue;
    const ageDays = Math.max(0, (now - t) / 86_400_000);
    c.decay = Math.pow(0.5, ageDays / halfLifeDays);
    c.score *= c.decay;
  }
  return list.sort((a, b) => b.score - a.score || a.ref - b.ref);
}

/**
 * Maximal marginal relevance: picks k items trading relevance (score scaled to 0..1) against
 * similarity to what is already picked. lambda 1 = pure relevance.
 */
export function mmr<T extends Candidate>(list: T[], k: number, lambda: number): T[] {
  if (lambda >= 1 || list.length <= 1) return list.slice(0, k);
  const max = Math.max(...list.map((c) => c.score)) || 1;
  const sh = list.map((c) => shinglesOf(c.content));
  const picked: number[] = [];
  const left = new Set(list.map((_, i) => i));
  while (picked.length < k && left.size) {
    let bestI = -1;
    let bestV = -Infinity;
    for (const i of left) {
      let sim = 0;
      for (const p of picked) sim = Math.max(sim, jaccard(sh[i]!, sh[p]!));
      const v = lambda * (list[i]!.score / max) - (1 - lambda) * sim;
      if (v > bestV) (bestV = v), (bestI = i);
    }
    picked.push(bestI);
    left.delete(bestI);
  }
  return picked.map((i) => list[i]!);
}

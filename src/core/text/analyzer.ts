import { stemmer } from 'stemmer';
import { foldText } from './fold.ts';

/**
 * The keyword tokeniser, shared by indexing (chunks_fts) and queries so both sides agree.
 *
 * CJK runs become unigrams + bigrams (a two-character term such as 甲木 or 伤官 is one token, so it
 * matches as a whole and ranks by its own IDF); other words are lowercased. What text goes in is
 * the analyzer's: each source's profile may bring its own normaliser and query stop words.
 */

export interface Analyzer {
  /**
   * Changes whenever the terms it makes change: a document indexed under another id is
   * re-indexed by the next run (its vectors are kept: the embedded text is not the analyzer's).
   */
  readonly id: string;
  /** Applied to indexed text and queries alike, after NFKC and lower-casing. */
  normalize(text: string): string;
  /** Applied before them, to what case still tells (identifiers in camelCase: their words). */
  readonly beforeFold?: (text: string) => string;
  /**
   * Dropped from queries only (indexed text keeps everything). Longest first where one contains
   * another; a Latin word only as a whole word.
   */
  readonly queryStopWords?: readonly string[];
}

/** The engine's own analysis: language-level folding, no stop words. */
export const defaultAnalyzer: Analyzer = { id: 'fold@1', normalize: (t) => foldText(t) };

/**
 * English words are stemmed (Porter) on both sides, so "retries" meets "retry" and "queues"
 * "queue". RAGSYNC_STEM=0 turns it off, for comparisons; the fingerprint below says which.
 */
export function stemming(): boolean {
  return process.env.RAGSYNC_STEM !== '0';
}

/**
 * What keyword rows made under an analyzer depend on: its own id, stemming, the row layout
 * (head/body columns since migration 008) and the tokens (CJK apart from Latin words). A document written under another value is re-indexed
 * by the next run (keyword rows only: the embedded text does not change).
 */
export function analyzerFingerprint(a: Analyzer): string {
  return `${a.id}+${stemming() ? 'porter' : 'nostem'}+head+cjk-apart`;
}

// ASCII words only: the Porter stemmer is English's, and short words are mostly names and acronyms.
const ENGLISH_WORD = /^[a-z]{4,}$/;
const stems = new Map<string, string>();
function latinTerm(tok: string, stem: boolean): string {
  if (!stem || !ENGLISH_WORD.test(tok)) return tok;
  let s = stems.get(tok);
  if (s === undefined) {
    s = stemmer(tok);
    if (stems.size > 100_000) stems.clear();
    stems.set(tok, s);
  }
  return s;
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
// A Latin word stops where CJK starts ("JIRA票务" is jira + 票务: each side matches on its own).
const TOKEN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+|(?:[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\P{L}]|\p{N})+/gu;

function prepare(a: Analyzer, text: string): string {
  return a.normalize((a.beforeFold ? a.beforeFold(text) : text).normalize('NFKC').toLowerCase());
}

/** Tokens stored for a chunk: every unigram and bigram of each CJK run, every other word. */
export function indexTokens(a: Analyzer, text: string): string[] {
  const out: string[] = [];
  const stem = stemming();
  for (const m of prepare(a, text).matchAll(TOKEN)) {
    const tok = m[0];
    if (!CJK.test(tok[0]!)) {
      out.push(latinTerm(tok, stem));
      continue;
    }
    const chars = Array.from(tok);
    for (let i = 0; i < chars.length; i++) {
      out.push(chars[i]!);
      if (i + 1 < chars.length) out.push(chars[i]! + chars[i + 1]!);
    }
  }
  return out;
}

/** The FTS column value for a chunk. */
export function indexTerms(a: Analyzer, text: string): string {
  return indexTokens(a, text).join(' ');
}

const stopRes = new WeakMap<Analyzer, RegExp | null>();
function stopRe(a: Analyzer): RegExp | null {
  let re = stopRes.get(a);
  if (re === undefined) {
    const words = a.queryStopWords ?? [];
    // A Latin word is dropped whole ("the", not the end of "other"); CJK words wherever they occur.
    const alt = words.map((w) => {
      const e = w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      return /^[a-z0-9']+$/.test(w) ? `(?<![\\p{L}\\p{N}])${e}(?![\\p{L}\\p{N}])` : e;
    });
    re = words.length ? new RegExp(alt.join('|'), 'gu') : null;
    stopRes.set(a, re);
  }
  return re;
}

/**
 * Query terms, distinct, in order. CJK runs give their bigrams (a run of one character gives the
 * character): unigrams of a longer run would match nearly every passage. `unigrams: true` is the
 * fallback when the bigrams match nothing. Stop words are dropped unless nothing else is left.
 */
export function queryTerms(a: Analyzer, query: string, opts: { unigrams?: boolean } = {}): string[] {
  const out = new Set<string>();
  const prepared = prepare(a, query);
  const re = stopRe(a);
  const stripped = re ? prepared.replace(re, ' ') : prepared;
  const stem = stemming();
  for (const m of (stripped.trim() ? stripped : prepared).matchAll(TOKEN)) {
    const tok = m[0];
    if (!CJK.test(tok[0]!)) {
      out.add(latinTerm(tok, stem));
      continue;
    }
    const chars = Array.from(tok);
    if (chars.length === 1 || opts.unigrams) for (const c of chars) out.add(c);
    for (let i = 0; i + 1 < chars.length; i++) out.add(chars[i]! + chars[i + 1]!);
  }
  return [...out];
}

/** An FTS5 MATCH expression ORing the tokens (each quoted: tokens are letters/digits only). */
export function matchExpression(tokens: string[]): string {
  return tokens.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ');
}

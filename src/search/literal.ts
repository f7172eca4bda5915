import { indexTokens, type Analyzer } from '../core/text/analyzer.ts';

/**
 * The literal stage of hybrid search: a passage that holds the query's own words in order — as the
 * analyzer sees both (traditional → simplified, a profile's spellings, punctuation and spacing
 * ignored, English words by their stems) — ranks above every passage that only expansions, the
 * vector leg or concept terms brought. An agent quoting a line or naming a term expects that
 * passage first; what the other lists find fills the places below, and carries the search when
 * the literal words find nothing.
 *
 * Compared on the keyword terms the index already stores for each chunk (no text is folded again
 * at query time): the query's units — each CJK character and each other word, in order — must
 * follow one another there, with at most the bigram of two characters between them (absent where
 * the text had punctuation: punctuation and spacing do not matter).
 */

const CJK_CHAR = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]$/u;
const isCjkChar = (t: string) => CJK_CHAR.test(t);

/** A CJK bigram token: two characters (Latin words never hold CJK, analyzer.ts). */
const isBigram = (t: string) => {
  const cs = [...t];
  return cs.length === 2 && isCjkChar(cs[0]!) && isCjkChar(cs[1]!);
};

/** The units of index tokens (analyzer.ts indexTokens): characters and words, in order, bigrams left out. */
export const termUnits = (tokens: readonly string[]): string[] => tokens.filter((t) => !isBigram(t));

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A pattern over stored terms (space-separated index tokens) matching the units in order: between
 * two characters of one CJK run the stored terms hold their bigram, which may be absent (the text
 * had punctuation there); otherwise the units are neighbours.
 */
export function unitsPattern(units: readonly string[]): RegExp {
  let src = `(?:^| )${escape(units[0]!)}`;
  for (let i = 1; i < units.length; i++) {
    const [a, b] = [units[i - 1]!, units[i]!];
    src += isCjkChar(a) && isCjkChar(b) ? `(?: ${escape(a + b)})? ${escape(b)}` : ` ${escape(b)}`;
  }
  return new RegExp(`${src}(?= |$)`, 'u');
}

/**
 * Patterns of the query's units under each analyzer in force (distinct): a chunk's stored terms
 * hold the query's words in order when one matches. None when the query has no letters or digits.
 */
export function literalPatterns(query: string, analyzers: readonly Analyzer[]): RegExp[] {
  const seen = new Map<string, RegExp>();
  for (const a of analyzers) {
    const units = termUnits(indexTokens(a, query));
    const key = units.join(' ');
    if (units.length && !seen.has(key)) seen.set(key, unitsPattern(units));
  }
  return [...seen.values()];
}

/** The candidates in `literal` first, each part in its fused order (stable). */
export function literalFirst<T extends { ref: number; literal?: boolean }>(list: T[], literal: ReadonlySet<number>): T[] {
  if (!literal.size) return list;
  const first: T[] = [];
  const rest: T[] = [];
  for (const c of list) {
    if (literal.has(c.ref)) (c.literal = true), first.push(c);
    else rest.push(c);
  }
  return [...first, ...rest];
}

import { indexTokens, type Analyzer } from '../core/text/analyzer.ts';

/**
 * The literal stage of hybrid search: a passage that holds the query's own words in order — as the
 * analyzer sees both (traditional → simplified, a profile's spellings, English words by their
 * stems), the query's punctuation optional — ranks above every passage that only expansions, the
 * vector leg or concept terms brought. An agent quoting a line or naming a term expects that
 * passage first; what the other lists find fills the places below, and carries the search when
 * the literal words find nothing.
 *
 * Compared on the keyword terms the index already stores for each chunk (no text is folded again
 * at query time): the query's own index tokens must follow one another there, and where the query
 * breaks a CJK run (punctuation, a space) the text may join it (克我者，应为 finds 克我者应为).
 * Such a passage holds every keyword term of the query: search reads only the hits the store
 * counts as holding them all.
 */

const CJK_CHAR = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]$/u;
const isCjkChar = (t: string) => CJK_CHAR.test(t);
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A pattern over stored terms (space-separated index tokens) matching the query's tokens in order;
 * between two CJK characters the query has apart, the text's bigram of them may stand.
 */
export function tokensPattern(tokens: readonly string[]): RegExp {
  let src = `(?:^| )${escape(tokens[0]!)}`;
  for (let i = 1; i < tokens.length; i++) {
    const [a, b] = [tokens[i - 1]!, tokens[i]!];
    if (isCjkChar(a) && isCjkChar(b)) src += `(?: ${escape(a + b)})?`;
    src += ` ${escape(b)}`;
  }
  return new RegExp(`${src}(?= |$)`, 'u');
}

/**
 * Patterns of the query under each analyzer in force (distinct): a chunk's stored terms hold the
 * query's words in order when one matches. None when the query has no letters or digits.
 */
export function literalPatterns(query: string, analyzers: readonly Analyzer[]): RegExp[] {
  const seen = new Map<string, RegExp>();
  for (const a of analyzers) {
    const tokens = indexTokens(a, query);
    const key = tokens.join(' ');
    if (tokens.length && !seen.has(key)) seen.set(key, tokensPattern(tokens));
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

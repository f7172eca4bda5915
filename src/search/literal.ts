import { prepare, type Analyzer } from '../core/text/analyzer.ts';

/**
 * The literal stage of hybrid search: a passage that holds the query's own words in order — as the
 * analyzer sees both (traditional → simplified, a profile's spellings), punctuation and spacing
 * between CJK characters ignored — ranks above every passage that only expansions, the vector
 * leg or concept terms brought. An agent quoting a line or naming a term expects that passage
 * first; what the other lists find fills the places below, and carries the search when the
 * literal words find nothing.
 */

const SEPARATORS = /[^\p{L}\p{N}]+/gu;
const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}';
// Spacing means nothing next to a CJK character (books and queries write 克我者，应为官杀 or 克我者应为官杀).
const SPACE_BY_CJK = new RegExp(`(?<=[${CJK}]) | (?=[${CJK}])`, 'gu');
const WORD_CHAR = /[\p{L}\p{N}]/u;
const CJK_CHAR = new RegExp(`[${CJK}]`, 'u');

/** A text's literal key: the analyzer's form, punctuation runs as one space, no space beside CJK. */
export function literalKey(a: Analyzer, text: string): string {
  return prepare(a, text).replace(SEPARATORS, ' ').replace(SPACE_BY_CJK, '').trim();
}

/** A Latin word character: a match must not start or end inside a word ("art" is not in "start"). */
const inWord = (ch: string | undefined) => !!ch && WORD_CHAR.test(ch) && !CJK_CHAR.test(ch);

/** Whether `text` (a literal key) holds `query` (a literal key) on word boundaries. */
export function holdsLiteral(text: string, query: string): boolean {
  if (!query) return false;
  const edgeStart = inWord(query[0]);
  const edgeEnd = inWord(query[query.length - 1]);
  for (let i = text.indexOf(query); i >= 0; i = text.indexOf(query, i + 1)) {
    if (edgeStart && inWord(text[i - 1])) continue;
    if (edgeEnd && inWord(text[i + query.length])) continue;
    return true;
  }
  return false;
}

/**
 * A matcher of texts against the query's literal key under each analyzer in force (a text counts
 * when one of them finds the query in it); null when the query has no letters or digits.
 */
export function literalMatcher(query: string, analyzers: readonly Analyzer[]): ((...fields: string[]) => boolean) | null {
  // Analyzers sharing a normaliser see the same text.
  const distinct = [...new Map(analyzers.map((a) => [a.normalize, a])).values()];
  const keys = distinct.map((a) => ({ a, key: literalKey(a, query) })).filter((k) => k.key);
  if (!keys.length) return null;
  return (...fields) => keys.some(({ a, key }) => fields.some((f) => f && holdsLiteral(literalKey(a, f), key)));
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

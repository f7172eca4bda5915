import { SIMPLIFIED, TRADITIONAL } from './t2s-table.ts';

/**
 * Language-level folding for keyword search, the way case folding is for Latin text: the engine's
 * default analysis of every source. Profiles add their own field's spellings on top.
 */

/**
 * Traditional → simplified by character, and one character class of every traditional character
 * (the regex engine skips the usual runs of simplified text natively instead of a Map lookup and a
 * string append per character). Built on the first fold: a run that folds nothing (the hourly no-op)
 * skips it.
 */
let table: { map: Map<string, string>; re: RegExp } | undefined;
function traditional(): { map: Map<string, string>; re: RegExp } {
  if (!table) {
    const map = new Map<string, string>();
    const s = [...SIMPLIFIED];
    [...TRADITIONAL].forEach((ch, i) => map.set(ch, s[i]!));
    table = { map, re: new RegExp(`[${[...map.keys()].join('').replace(/[\\\]^-]/g, '\\$&')}]`, 'gu') };
  }
  return table;
}

/** Traditional → simplified, character by character. */
export function toSimplified(text: string): string {
  const { map, re } = traditional();
  return text.replace(re, (ch) => map.get(ch)!);
}

const HAN = '\\p{Script=Han}';
// CJK punctuation, quotes, ellipsis and middle dots: separators, like the spaces some files use instead.
const CJK_PUNCT = /[\u3000-\u303f\u2018-\u201f\u2026\u00b7\u2027\u30fb\ufe10-\ufe1f\ufe30-\ufe4f]/gu;
// ASCII punctuation next to a Han character is Chinese punctuation that NFKC turned into ASCII (，→,).
const ASCII_PUNCT_BY_HAN = new RegExp(`(?<=${HAN})[,.;:!?()\\[\\]"'<>]+|[,.;:!?()\\[\\]"'<>]+(?=${HAN})`, 'gu');
const MARKUP = /\*+|`+|^#+\s|^>\s?/gmu;

/**
 * NFKC (full-width → half-width), lower case, traditional → simplified, Markdown emphasis dropped,
 * and punctuation and whitespace alike turned into single spaces. `between` runs after the
 * character folding and before punctuation goes (where a profile rewrites its own terms).
 */
export function foldText(text: string, between?: (s: string) => string): string {
  let s = toSimplified(text.normalize('NFKC').toLowerCase());
  if (between) s = between(s);
  s = s.replace(MARKUP, ' ');
  s = s.replace(CJK_PUNCT, ' ').replace(ASCII_PUNCT_BY_HAN, ' ');
  return s.replace(/\s+/gu, ' ').trim();
}

/**
 * Han, kana, hangul, CJK punctuation and full-width forms: about one token per character for
 * current tokenizers. Numeric ranges instead of a Unicode-property regex: this runs over every
 * character of every file, and the regex was the indexer's hottest spot.
 */
export function isCjkCode(c: number): boolean {
  return (
    (c >= 0x4e00 && c <= 0x9fff) ||
    (c >= 0x3400 && c <= 0x4dbf) ||
    (c >= 0x3000 && c <= 0x30ff) ||
    (c >= 0xff00 && c <= 0xffef) ||
    (c >= 0xac00 && c <= 0xd7af) ||
    (c >= 0xf900 && c <= 0xfaff) ||
    (c >= 0x1100 && c <= 0x11ff) ||
    (c >= 0x20000 && c <= 0x3ffff)
  );
}

export function isCjk(ch: string): boolean {
  return isCjkCode(ch.codePointAt(0) ?? 0);
}

const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13) || c === 0xa0;

/**
 * Estimated tokens: one per CJK character plus one per ~4 other characters (runs of white space
 * count as one). Cheap, deterministic and close enough for chunk sizing and rate limits.
 */
export function estimateTokens(text: string): number {
  let cjk = 0;
  let other = 0;
  let pendingSpace = false;
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      c = text.codePointAt(i)!;
      i++;
    }
    if (isSpace(c)) {
      if (other > 0 || cjk > 0) pendingSpace = true;
      continue;
    }
    if (isCjkCode(c)) {
      cjk++;
      pendingSpace = false;
      continue;
    }
    if (pendingSpace) other++;
    pendingSpace = false;
    other++;
  }
  return cjk + Math.ceil(other / 4);
}

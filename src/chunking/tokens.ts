/** Han, kana, hangul and CJK punctuation: roughly one token per character for current tokenizers. */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/gu;

const CJK_ONE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/u;

export function isCjk(ch: string): boolean {
  return CJK_ONE.test(ch);
}

/**
 * Estimated tokens: one per CJK character plus one per ~4 other non-space characters.
 * Cheap, deterministic and close enough for chunk sizing and rate limits.
 */
export function estimateTokens(text: string): number {
  let cjk = 0;
  for (const _ of text.matchAll(CJK)) cjk++;
  const rest = text.replace(CJK, '').replace(/\s+/g, ' ').trim().length;
  return cjk + Math.ceil(rest / 4);
}

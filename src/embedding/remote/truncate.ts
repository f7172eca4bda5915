import { estimateTokens } from '../../core/text/tokens.ts';

/**
 * Cuts `text` to at most `maxTokens` estimated tokens (we truncate rather than split and average:
 * chunks are sized well under every model's limit, so this only catches outliers, and a truncated
 * chunk still embeds its beginning, usually its heading and topic). Returns the text unchanged when
 * it fits. Binary search over code points, so a CJK character or surrogate pair is never cut in half.
 */
export function truncateToTokens(text: string, maxTokens: number): { text: string; tokens: number; truncated: boolean } {
  const tokens = estimateTokens(text);
  if (tokens <= maxTokens) return { text, tokens, truncated: false };
  const chars = Array.from(text);
  let lo = 0;
  let hi = chars.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (estimateTokens(chars.slice(0, mid).join('')) <= maxTokens) lo = mid;
    else hi = mid - 1;
  }
  const cut = chars.slice(0, lo).join('');
  return { text: cut, tokens: estimateTokens(cut), truncated: true };
}

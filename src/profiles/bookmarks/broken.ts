/**
 * Summaries the pipeline got wrong: empty, a model's refusal or request for input, a leftover
 * `</think>`, or a summary of an error page instead of the article. Judged on the TL;DR (short,
 * about the article as a whole) except for `</think>`, which is looked for everywhere — on a line
 * of its own, so an article that discusses the token in running text is not flagged.
 */
export type BrokenReason = 'empty' | 'think' | 'refusal' | 'fetch-error';

const THINK = /^\s*<\/?think>\s*/m;
const REFUSAL = /请提供|被拒绝|拒绝了该请求|I(?:'|’)m sorry|I can(?:no|'|’)t (?:help|assist)|as an AI/i;
const FETCH_ERROR =
  /^(?:该错误|此内容为错误页面|参数验证失败)|错误页面|404页面|(?:错误码|状态码)[（(]?\s*4\d\d|返回40\d|40\d错误|Robot Challenge|Wait a moment|Just a moment|核心内容未完整加载|无法获取文章/i;

export function brokenReason(tldr: string, summary: string): BrokenReason | null {
  if (THINK.test(tldr) || THINK.test(summary)) return 'think';
  const t = tldr.trim();
  if (REFUSAL.test(t)) return 'refusal';
  if (FETCH_ERROR.test(t)) return 'fetch-error';
  if (!t || !summary.trim()) return 'empty';
  return null;
}

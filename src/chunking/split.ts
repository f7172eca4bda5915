import { estimateTokens, isCjk } from '../core/text/tokens.ts';

/** A piece of text to pack: `text` includes its separator from the previous piece. */
export interface Unit {
  text: string;
  tokens: number;
}

// A sentence ends at 。！？；!?; (with closing quotes/brackets) or at '.' followed by space, or at a line end.
const SENTENCE = /(?:[^。！？；!?;.\n]|\.(?!\s|$))*(?:[。！？；!?;]+[”’」』）)"']*|\.(?=\s|$)[”’」』）)"']*|\n|$)\s*/gu;

/** Splits a paragraph into sentences whose concatenation is the paragraph. */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(SENTENCE)) {
    if (m[0] === '') continue;
    out.push(m[0]);
  }
  return out.length ? out : [text];
}

/** Cuts text with no usable sentence end into pieces of about `maxTokens`. */
export function hardSplit(text: string, maxTokens: number): string[] {
  const out: string[] = [];
  let buf = '';
  let tokens = 0;
  for (const ch of text) {
    buf += ch;
    tokens += isCjk(ch) ? 1 : 0.25;
    if (tokens >= maxTokens) {
      out.push(buf);
      buf = '';
      tokens = 0;
    }
  }
  if (buf) out.push(buf);
  return out;
}

/** Paragraph → units no larger than maxTokens (sentences, hard-split when a sentence is too long). */
export function paragraphUnits(paragraph: string, sep: string, maxTokens: number): Unit[] {
  const whole = estimateTokens(paragraph);
  if (whole <= maxTokens) return [{ text: sep + paragraph, tokens: whole }];
  const units: Unit[] = [];
  for (const sentence of splitSentences(paragraph)) {
    const t = estimateTokens(sentence);
    const pieces = t <= maxTokens ? [sentence] : hardSplit(sentence, maxTokens);
    for (const p of pieces) units.push({ text: (units.length === 0 ? sep : '') + p, tokens: estimateTokens(p) });
  }
  return units;
}

/**
 * Greedy packing up to `target` tokens. Each new chunk starts with the trailing units of the
 * previous one worth at most `overlapTokens`, so a passage cut at a boundary is whole in one of them.
 */
export function pack(units: Unit[], target: number, overlapTokens: number): string[] {
  const chunks: string[] = [];
  let cur: Unit[] = [];
  let curTokens = 0;
  let fresh = 0; // units in cur that are not overlap
  for (const u of units) {
    if (cur.length && fresh > 0 && curTokens + u.tokens > target) {
      chunks.push(join(cur));
      const tail: Unit[] = [];
      let t = 0;
      for (let i = cur.length - 1; i > 0; i--) {
        const c = cur[i]!;
        // Whole sentences only; a last sentence a little over the budget still carries over.
        const fits = t + c.tokens <= overlapTokens || (tail.length === 0 && c.tokens <= 2 * overlapTokens);
        if (!fits) break;
        tail.unshift(c);
        t += c.tokens;
      }
      // The carried-over tail never pushes the next chunk past the target: drop it when it would.
      const keep = t + u.tokens <= target;
      cur = keep ? tail : [];
      curTokens = keep ? t : 0;
      fresh = 0;
    }
    cur.push(u);
    curTokens += u.tokens;
    fresh++;
  }
  if (fresh > 0) chunks.push(join(cur));
  return chunks.filter((c) => c.length > 0);
}

function join(units: Unit[]): string {
  return units
    .map((u) => u.text)
    .join('')
    .trim();
}

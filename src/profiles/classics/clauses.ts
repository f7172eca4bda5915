import { hardSplit, type Unit } from '../../chunking/split.ts';
import { estimateTokens } from '../../core/text/tokens.ts';

/**
 * The upstream re-punctuates whole books without changing a word: ，and 。 become spaces, a 。 at
 * a line end or before a quote is dropped. Chunk boundaries and embedded texts are therefore
 * computed on a canonical form in which both spellings read the same — every run of ，/。 and
 * spaces is one space, none is left at a line end or before a quote — so such an edit costs no
 * embedding. The content shown keeps the text as written.
 */

// A separator: a run of ，/。 and spaces; at a line end or before a quote or bracket (group 1:
// "十有九贵。”" is re-punctuated "十有九贵”") the canonical form drops it.
const SEPARATOR = /((?:[，。 \t\u3000]+)(?=\n|$|[“”‘’「」『』（）《》〈〉【】〔〕]))|[，。 \t\u3000]+/gu;
// Sentence ends that re-punctuation leaves alone, with their closing quotes.
const SENTENCE_END = /[！？；!?;]+[”’」』）)"']*/gu;

/** The punctuation-neutral form of classical text (see above). */
export function canonicalClauses(text: string): string {
  return text.replace(SEPARATOR, (_m, atLineEnd: string | undefined) => (atLineEnd !== undefined ? '' : ' '));
}

/**
 * Size of canonical text in estimated tokens, plus one per separator, per line break and for the
 * end: the places where a punctuated copy has a ，/。 token. Both spellings get the same size, and
 * neither is much larger as written.
 */
function canonicalTokens(canonical: string, atEnd: boolean): number {
  let marks = atEnd ? 1 : 0;
  for (let i = 0; i < canonical.length; i++) {
    const c = canonical.charCodeAt(i);
    if (c === 32 || c === 10) marks++;
  }
  return estimateTokens(canonical) + marks;
}

/** Size in estimated tokens, the same for every punctuation of the text (see canonicalTokens). */
export function clauseTokens(text: string): number {
  return canonicalTokens(canonicalClauses(text), true);
}

/**
 * Cuts after every separator inside a line, every sentence end and every line break (not between
 * a line-end separator and its break: one spelling has the separator, the other not). Each piece
 * comes with its size measured on the canonical form of the whole text, so a separator's weight
 * does not depend on where the cut falls. The pieces concatenate back to `text`.
 */
export function clausePieces(text: string): { text: string; tokens: number }[] {
  // Canonical offset of each original offset that ends a replaced run, to size pieces in canonical form.
  const cuts = new Set<number>();
  const shift: { end: number; delta: number }[] = [];
  let canonical = '';
  let last = 0;
  let delta = 0;
  for (const m of text.matchAll(SEPARATOR)) {
    const atLineEnd = m[1] !== undefined;
    const repl = atLineEnd ? '' : ' ';
    const end = m.index! + m[0].length;
    canonical += text.slice(last, m.index!) + repl;
    last = end;
    delta += m[0].length - repl.length;
    shift.push({ end, delta });
    if (!atLineEnd) cuts.add(end);
  }
  canonical += text.slice(last);
  for (const m of text.matchAll(SENTENCE_END)) cuts.add(m.index! + m[0].length);
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) cuts.add(i + 1);
  cuts.add(text.length);

  // Original offset → canonical offset; only called at cuts, which never fall inside a replaced run.
  let k = 0;
  const toCanonical = (o: number) => {
    while (k < shift.length && shift[k]!.end <= o) k++;
    return o - (k ? shift[k - 1]!.delta : 0);
  };
  const out: { text: string; tokens: number }[] = [];
  let start = 0;
  let cStart = 0;
  for (const end of [...cuts].sort((a, b) => a - b)) {
    if (end <= start) continue;
    const cEnd = toCanonical(end);
    const piece = text.slice(start, end);
    out.push({ text: piece, tokens: canonicalTokens(canonical.slice(cStart, cEnd), end === text.length) });
    start = end;
    cStart = cEnd;
  }
  return out;
}

/**
 * Paragraph → units no larger than maxTokens (by clauseTokens). A paragraph that fits is one unit;
 * a longer one is cut into clauses — not sentences, because a re-punctuated copy has no 。 left to
 * tell sentence ends from commas — and a clause still too long is hard-split.
 */
export function clauseUnits(paragraph: string, sep: string, maxTokens: number): Unit[] {
  const whole = clauseTokens(paragraph);
  if (whole <= maxTokens) return [{ text: sep + paragraph, tokens: whole }];
  const units: Unit[] = [];
  const push = (text: string, tokens: number) => units.push({ text: (units.length === 0 ? sep : '') + text, tokens });
  for (const piece of clausePieces(paragraph)) {
    if (piece.tokens <= maxTokens) push(piece.text, piece.tokens);
    else for (const p of hardSplit(piece.text, maxTokens)) push(p, clauseTokens(p));
  }
  return units;
}

import { estimateTokens } from '../../core/text/tokens.ts';

/** A file's lines with their estimated tokens, for cutting ranges of rows (0-based, inclusive). */
export class Rows {
  readonly tokens: number[];
  constructor(readonly lines: readonly string[]) {
    this.tokens = lines.map((l) => estimateTokens(l) + 1);
  }

  sum(from: number, to: number): number {
    let t = 0;
    for (let i = from; i <= to; i++) t += this.tokens[i]!;
    return t;
  }

  text(from: number, to: number): string {
    return this.lines.slice(from, to + 1).join('\n');
  }

  blank(row: number): boolean {
    return this.lines[row]!.trim() === '';
  }

  /**
   * Cuts rows [from, to] into ranges of at most `target` tokens, after rows in `cuts` (statement
   * ends); a segment between cuts that is larger on its own is cut after blank lines, then after
   * any line. Every row lands in exactly one range: nothing is dropped.
   */
  cut(from: number, to: number, cuts: readonly number[] | null, target: number): [number, number][] {
    const ends = [...new Set((cuts ?? this.blankRows(from, to)).filter((c) => c >= from && c < to))].sort((a, b) => a - b);
    ends.push(to);
    const out: [number, number][] = [];
    let start = from;
    let tokens = 0;
    let segStart = from;
    for (const end of ends) {
      const seg = this.sum(segStart, end);
      if (tokens > 0 && tokens + seg > target) {
        out.push([start, segStart - 1]);
        start = segStart;
        tokens = 0;
      }
      if (seg > target) {
        // Too large alone: cut finer (blank lines, then single lines), then go on after it.
        const finer = cuts === null ? this.byLine(segStart, end, target) : this.cut(segStart, end, null, target);
        out.push(...finer);
        start = end + 1;
        tokens = 0;
      } else tokens += seg;
      segStart = end + 1;
    }
    if (start <= to) out.push([start, to]);
    // A closing brace or two left alone joins the part before it.
    const last = out[out.length - 1]!;
    if (out.length > 1 && this.sum(last[0], last[1]) <= target * 0.05) {
      out.pop();
      out[out.length - 1]![1] = last[1];
    }
    return out;
  }

  private blankRows(from: number, to: number): number[] {
    const out: number[] = [];
    for (let i = from; i < to; i++) if (this.blank(i)) out.push(i);
    return out;
  }

  private byLine(from: number, to: number, target: number): [number, number][] {
    const out: [number, number][] = [];
    let start = from;
    let tokens = 0;
    for (let i = from; i <= to; i++) {
      if (tokens > 0 && tokens + this.tokens[i]! > target) {
        out.push([start, i - 1]);
        start = i;
        tokens = 0;
      }
      tokens += this.tokens[i]!;
    }
    out.push([start, to]);
    return out;
  }
}

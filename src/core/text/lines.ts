import type { Chunk } from '../types.ts';

/**
 * Line ranges for chunks a chunker made without them: each chunk's first and last non-empty
 * content lines are looked up in the document, in order, from where the previous chunk began
 * (overlapping chunks start before the previous one ends). A chunker that rewrites its text
 * (normalised punctuation, joined lines) leaves the chunks it cannot find without a range.
 */
export function locateLines(text: string, chunks: readonly Chunk[]): Chunk[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n').map((l) => l.trim());
  let cursor = 0;
  return chunks.map((c) => {
    if (c.startLine !== undefined) return c;
    const own = c.content.split('\n').map((l) => l.trim()).filter((l) => l.length > 0);
    if (!own.length) return c;
    const start = findLine(lines, own[0]!, cursor);
    if (start < 0) return c;
    const end = own.length === 1 ? start : findLine(lines, own[own.length - 1]!, start);
    if (end < 0) return c;
    cursor = start;
    return { ...c, startLine: start + 1, endLine: end + 1 };
  });
}

/** Index of the first line from `from` that is `line`, or that contains it (a chunk may begin mid-line). */
function findLine(lines: readonly string[], line: string, from: number): number {
  for (let i = from; i < lines.length; i++) if (lines[i] === line) return i;
  for (let i = from; i < lines.length; i++) if (lines[i]!.includes(line)) return i;
  return -1;
}

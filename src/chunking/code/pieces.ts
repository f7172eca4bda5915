import type { CodeSymbol, Outline } from './symbols.ts';
import type { Rows } from './rows.ts';

/** A part of a file to become one chunk. Rows are 0-based and inclusive. */
export interface Piece {
  start: number;
  end: number;
  content: string;
  kind: 'symbol' | 'outline' | 'module' | 'imports' | 'lines';
  /** The symbol(s) it holds: one, or several small neighbours packed together. */
  symbols: CodeSymbol[];
  /** Of a large symbol cut at statement boundaries: this part's number and how many there are. */
  part?: [number, number];
}

/** Symbols under this share of the target are packed with small neighbours of the same kind. */
const SMALL = 0.15;
/** A pack closes at this share of the target. */
const PACK = 0.5;

/** FNV-1a: a pack ends after a symbol whose name hashes to 0 mod 3, so adding a symbol moves only its own pack's edges. */
function closesPack(name: string): boolean {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return (h >>> 0) % 3 === 0;
}

/**
 * The pieces of a parsed file, in row order: one per symbol (a container's outline, then its
 * members), small neighbours packed, large symbols cut at statement ends (the signature is
 * repeated in each part's text by the caller), and the module code between them.
 */
export function piecesOf(outline: Outline, rows: Rows, target: number): Piece[] {
  const out: Piece[] = [];
  const emitList = (symbols: CodeSymbol[]) => {
    let pack: CodeSymbol[] = [];
    let packTokens = 0;
    const flush = () => {
      if (pack.length) {
        const first = pack[0]!;
        const last = pack[pack.length - 1]!;
        out.push({ start: first.start, end: last.end, content: rows.text(first.start, last.end), kind: 'symbol', symbols: pack });
      }
      pack = [];
      packTokens = 0;
    };
    for (const s of symbols) {
      const tokens = rows.sum(s.start, s.end);
      if (s.members.length || tokens >= target * SMALL) {
        flush();
        emitSymbol(s, tokens);
        continue;
      }
      const prev = pack[pack.length - 1];
      if (prev && !(prev.type === s.type && gapIsBlank(rows, prev.end, s.start) && packTokens + tokens <= target * PACK)) flush();
      pack.push(s);
      packTokens += tokens;
      if (closesPack(s.name)) flush();
    }
    flush();
  };
  const emitSymbol = (s: CodeSymbol, tokens: number) => {
    if (s.members.length) {
      emitOutline(s);
      emitList(s.members);
      return;
    }
    if (tokens <= target) {
      out.push({ start: s.start, end: s.end, content: rows.text(s.start, s.end), kind: 'symbol', symbols: [s] });
      return;
    }
    const ranges = rows.cut(s.start, s.end, s.cuts, target);
    ranges.forEach(([a, b], i) =>
      out.push({ start: a, end: b, content: rows.text(a, b), kind: 'symbol', symbols: [s], part: [i + 1, ranges.length] }),
    );
  };
  // A container's own chunk: its header, fields and closing lines, each member shown by its first line.
  const emitOutline = (s: CodeSymbol) => {
    const lines: string[] = [];
    let row = s.start;
    for (const m of s.members) {
      for (; row < m.start; row++) lines.push(rows.lines[row]!);
      lines.push(`${rows.lines[m.declStart]!.replace(/\s*\{?\s*$/, '')} …`);
      row = m.end + 1;
    }
    for (; row <= s.end; row++) lines.push(rows.lines[row]!);
    out.push({ start: s.start, end: s.end, content: lines.join('\n'), kind: 'outline', symbols: [s] });
  };
  emitList(outline.symbols);
  for (const m of outline.module) {
    // Only blank lines or lone comments left between symbols: no piece of their own.
    if (rows.text(m.start, m.end).trim() === '') continue;
    for (const [a, b] of rows.cut(m.start, m.end, null, target)) {
      out.push({ start: a, end: b, content: rows.text(a, b), kind: m.imports ? 'imports' : 'module', symbols: [] });
    }
  }
  return out.sort((a, b) => a.start - b.start || (a.kind === 'outline' ? -1 : b.kind === 'outline' ? 1 : 0));
}

function gapIsBlank(rows: Rows, after: number, before: number): boolean {
  for (let i = after + 1; i < before; i++) if (!rows.blank(i)) return false;
  return true;
}

/** Line windows for a file without a parser (or whose parse failed): cut after blank lines where possible. */
export function windowsOf(rows: Rows, target: number): Piece[] {
  if (!rows.lines.length) return [];
  return rows
    .cut(0, rows.lines.length - 1, null, target)
    .map(([a, b]): Piece => ({ start: a, end: b, content: rows.text(a, b), kind: 'lines', symbols: [] }))
    .filter((p) => p.content.trim() !== '');
}

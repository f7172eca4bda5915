import { createScanner, findNodeAtLocation, parseTree } from 'jsonc-parser';

// jsonc-parser's SyntaxKind values (a const enum its typings declare, which this build cannot import).
const LINE_COMMENT = 12;
const BLOCK_COMMENT = 13;
const EOF = 17;

/**
 * In-place edits of a JSON-with-comments file: an element appended to or removed from an array
 * member of the top-level object, every other byte (comments, order, spacing, line ends) kept.
 * jsonc-parser finds the array and its elements; the layout around them is read from the text with
 * comments blanked (same offsets), so a bracket or comma inside a comment is never taken for structure.
 * (Its own `modify` re-formats what it inserts, and removes an element without the lines it stood
 * on: a removal would not give back the file an addition was made to.)
 */

/** A value's extent in the text: [start, end). */
interface Span {
  start: number;
  end: number;
}

/**
 * The text with every comment blanked (line ends kept), offsets unchanged. (jsonc-parser's own
 * stripComments shifts them: it blanks the whitespace before a comment as well.)
 */
function blankComments(text: string): string {
  const out = text.split('');
  const scanner = createScanner(text, false);
  for (let kind = scanner.scan(); kind !== EOF; kind = scanner.scan()) {
    if (kind !== LINE_COMMENT && kind !== BLOCK_COMMENT) continue;
    const start = scanner.getTokenOffset();
    for (let i = start; i < start + scanner.getTokenLength(); i++) if (out[i] !== '\n' && out[i] !== '\r') out[i] = ' ';
  }
  return out.join('');
}

const skipWs = (s: string, i: number): number => {
  while (i < s.length && /\s/.test(s[i]!)) i++;
  return i;
};

const lineStartOf = (s: string, i: number) => s.lastIndexOf('\n', i - 1) + 1;
const lineEndOf = (s: string, i: number) => {
  const n = s.indexOf('\n', i);
  return n < 0 ? s.length : n;
};
/** The whitespace before the text on the line of `i`. */
const indentAt = (s: string, i: number) => /^[ \t]*/.exec(s.slice(lineStartOf(s, i)))![0];

/** `value` as JSON laid out like `like`: multi-line at its indentation, or on one line. */
function layout(value: unknown, like: { multiline: boolean; indent: string; unit: string; eol: string }): string {
  if (!like.multiline) {
    const one = (v: unknown): string =>
      v && typeof v === 'object' && !Array.isArray(v)
        ? `{ ${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${one(x)}`).join(', ')} }`
        : Array.isArray(v)
          ? `[${v.map(one).join(', ')}]`
          : JSON.stringify(v);
    return one(value);
  }
  return JSON.stringify(value, null, like.unit).split('\n').join(`${like.eol}${like.indent}`);
}

/** The array at the top-level member `key`, or a one-line reason it cannot be edited. */
function arrayAt(text: string, key: string): { stripped: string; array: Span; elements: Span[] } {
  const root = parseTree(text, [], { allowTrailingComma: true });
  const node = root?.type === 'object' ? findNodeAtLocation(root, [key]) : undefined;
  if (!node) throw new Error(`no top-level "${key}" to edit`);
  if (node.type !== 'array') throw new Error(`"${key}" is not an array`);
  const span = (n: { offset: number; length: number }): Span => ({ start: n.offset, end: n.offset + n.length });
  return { stripped: blankComments(text), array: span(node), elements: (node.children ?? []).map(span) };
}

/** The text with `value` appended to the array at the top-level member `key`, laid out as its last element is. */
export function appendToArray(text: string, key: string, value: unknown): string {
  const { stripped, array, elements } = arrayAt(text, key);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const last = elements.at(-1);
  if (!last) {
    // An empty array: the element on its own line, one step in from the key's line.
    const indent = indentAt(stripped, array.start);
    const unit = /^\t/.test(indent) ? '\t' : '  ';
    const body = layout(value, { multiline: true, indent: indent + unit, unit, eol });
    return `${text.slice(0, array.start)}[${eol}${indent}${unit}${body}${eol}${indent}]${text.slice(array.end)}`;
  }
  const multiline = stripped.slice(last.start, last.end).includes('\n');
  const indent = indentAt(stripped, last.start);
  const inner = multiline ? /\n([ \t]*)\S/.exec(stripped.slice(last.start, last.end))?.[1] ?? '' : '';
  const unit = inner.length > indent.length && inner.startsWith(indent) ? inner.slice(indent.length) : '  ';
  const body = layout(value, { multiline, indent, unit, eol });
  const ownLine = stripped.slice(lineStartOf(stripped, last.start), last.start).trim() === '';
  const lineEnd = lineEndOf(stripped, last.end);
  const rest = stripped.slice(last.end, lineEnd).trim();
  if (ownLine && (rest === '' || rest === ',')) {
    // Under the last element, after its line (a comment there stays with it); a trailing comma
    // the file writes after its last element, written after the new one too.
    const trailing = rest === ',';
    const at = lineEnd > 0 && text[lineEnd - 1] === '\r' ? lineEnd - 1 : lineEnd;
    return `${text.slice(0, last.end)}${trailing ? '' : ','}${text.slice(last.end, at)}${eol}${indent}${body}${trailing ? ',' : ''}${text.slice(at)}`;
  }
  return `${text.slice(0, last.end)}, ${body}${text.slice(last.end)}`;
}

/**
 * The text without element `index` of the array at the top-level member `key`: an element on lines
 * of its own goes with those lines (and a comment on its last line); comments elsewhere stay.
 */
export function removeFromArray(text: string, key: string, index: number): string {
  const { stripped, elements } = arrayAt(text, key);
  const el = elements[index];
  if (!el) throw new Error(`"${key}" has no element ${index}`);
  const isLast = index === elements.length - 1;
  const prev = elements[index - 1];
  // The comma after it (or, for the last one, the one after the element before it).
  const after = skipWs(stripped, el.end);
  const commaAfter = stripped[after] === ',' ? after : -1;
  const start = lineStartOf(stripped, el.start);
  const ownLines = stripped.slice(start, el.start).trim() === '' && stripped.slice(commaAfter >= 0 ? commaAfter + 1 : el.end, lineEndOf(stripped, el.end)).trim() === '';
  let out: string;
  if (ownLines) {
    const end = Math.min(text.length, lineEndOf(stripped, commaAfter >= 0 ? commaAfter : el.end) + 1);
    out = text.slice(0, start) + text.slice(end);
    // The element before a removed last one keeps no comma of its own (a .json file stays JSON).
    if (isLast && prev && commaAfter < 0) {
      const comma = skipWs(stripped, prev.end);
      if (stripped[comma] === ',' && comma < start) out = out.slice(0, comma) + out.slice(comma + 1);
    }
  } else if (commaAfter >= 0) {
    out = text.slice(0, el.start) + text.slice(skipWs(stripped, commaAfter + 1));
  } else {
    out = text.slice(0, prev ? prev.end : el.start) + text.slice(el.end);
  }
  return out;
}

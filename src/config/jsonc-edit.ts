import { stripJsonc } from './jsonc.ts';

/**
 * In-place edits of a JSON-with-comments file: an element appended to or removed from an array
 * member of the top-level object, every other byte (comments, order, spacing, line ends) kept.
 * Positions are found in the text with comments blanked (stripJsonc keeps offsets), so a bracket
 * or comma inside a comment or a string is never taken for structure.
 */

/** A value's extent in the text: [start, end). */
interface Span {
  start: number;
  end: number;
}

/** The end of the string starting at `i` (its closing quote + 1). */
function stringEnd(s: string, i: number): number {
  let j = i + 1;
  while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
  return j + 1;
}

const skipWs = (s: string, i: number): number => {
  while (i < s.length && /\s/.test(s[i]!)) i++;
  return i;
};

/** The end of the value starting at `i` (a string, object, array or literal). */
function valueEnd(s: string, i: number): number {
  const c = s[i];
  if (c === '"') return stringEnd(s, i);
  if (c !== '{' && c !== '[') {
    while (i < s.length && !/[\s,\]}]/.test(s[i]!)) i++;
    return i;
  }
  let depth = 0;
  for (let j = i; j < s.length; j++) {
    const d = s[j];
    if (d === '"') j = stringEnd(s, j) - 1;
    else if (d === '{' || d === '[') depth++;
    else if (d === '}' || d === ']') {
      if (--depth === 0) return j + 1;
    }
  }
  throw new Error('unbalanced brackets');
}

/** The items of the object or array whose opening bracket is at `open`: each key (objects) and value span. */
function items(s: string, open: number): { key?: string; value: Span }[] {
  const out: { key?: string; value: Span }[] = [];
  const isObject = s[open] === '{';
  let i = skipWs(s, open + 1);
  while (i < s.length && s[i] !== '}' && s[i] !== ']') {
    let key: string | undefined;
    if (isObject) {
      const kEnd = stringEnd(s, i);
      key = JSON.parse(s.slice(i, kEnd)) as string;
      i = skipWs(s, kEnd);
      i = skipWs(s, i + 1); // past ':'
    }
    const end = valueEnd(s, i);
    out.push({ key, value: { start: i, end } });
    i = skipWs(s, end);
    if (s[i] === ',') i = skipWs(s, i + 1);
  }
  return out;
}

/** The top-level object's member `key`: where its value is. */
function member(stripped: string, key: string): Span | undefined {
  const root = skipWs(stripped, 0);
  if (stripped[root] !== '{') return undefined;
  return items(stripped, root).find((m) => m.key === key)?.value;
}

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
  const stripped = stripJsonc(text, false);
  const array = member(stripped, key);
  if (!array) throw new Error(`no top-level "${key}" to edit`);
  if (stripped[array.start] !== '[') throw new Error(`"${key}" is not an array`);
  return { stripped, array, elements: items(stripped, array.start).map((e) => e.value) };
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

import { normalizeMarkdown, splitFrontMatter } from './normalize.ts';

/**
 * A document's title and heading structure, read so that formatting edits leave them alone: a
 * title in front matter (`title: X`) or as the leading `# X` gives the same title and the same
 * section paths; paths are nesting, not levels (`##` or `###` under the title reads the same); line
 * endings, BOM and invisible characters (soft hyphens, zero-width spaces) make no difference.
 * Chunk texts embed these paths, so each such edit would otherwise cost a re-embed of the file.
 */

export interface Section {
  /** Headings above this text, outermost first, without the document title. */
  path: string[];
  /** Heading levels of `path`, same length. */
  levels: number[];
  body: string;
}

export interface Outline {
  /** Front matter `title`, else a leading `#` heading; null when there is neither. */
  title: string | null;
  /** The first `#` heading anywhere (title or not), for chunkers that fall back to it. */
  firstH1: string | null;
  frontMatter: Record<string, string>;
  /** The body after the front matter, normalised (LF line ends, no BOM, `<br>` as line breaks). */
  body: string;
  sections: Section[];
}

const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
// Format characters that render as nothing: soft hyphen, zero-width space/non-joiner, direction
// marks, word joiner, BOM. (The zero-width joiner stays: emoji sequences need it.)
const INVISIBLE = /[\u00ad\u200b\u200c\u200e\u200f\u2060\ufeff]/g;

/** Heading or title text as shown: no emphasis markup, no invisible characters, single spaces. */
export function cleanTitle(text: string): string {
  return text.replace(INVISIBLE, '').replace(/[*_`]/g, '').replace(/\s+/g, ' ').trim();
}

/** Drops invisible characters only (file names: "notes\u00ad.md" is notes). */
export function stripInvisible(text: string): string {
  return text.replace(INVISIBLE, '');
}

const sameText = (a: string, b: string) => a.replace(/\s+/g, '').toLowerCase() === b.replace(/\s+/g, '').toLowerCase();

/** Heading path parts with empty ones and repeats of the part before dropped ("Summary › Summary"). */
export function dedupeAdjacent(parts: string[]): string[] {
  const out: string[] = [];
  for (const p of parts) {
    if (!p.trim()) continue;
    if (out.length && sameText(out[out.length - 1]!, p)) continue;
    out.push(p);
  }
  return out;
}

/** Splits a body at ATX headings (not inside fenced code), tracking the heading path and levels. */
export function scanSections(body: string): Section[] {
  const out: Section[] = [];
  const stack: { level: number; text: string }[] = [];
  let lines: string[] = [];
  let fence: string | null = null;
  const flush = () => {
    out.push({ path: stack.map((h) => h.text), levels: stack.map((h) => h.level), body: lines.join('\n') });
    lines = [];
  };
  for (const line of body.split('\n')) {
    const f = FENCE.exec(line);
    if (f) {
      if (fence === null) fence = f[1]![0]!;
      else if (f[1]![0] === fence) fence = null;
    }
    const h = fence === null ? HEADING.exec(line) : null;
    if (!h) {
      lines.push(line);
      continue;
    }
    flush();
    const level = h[1]!.length;
    const text = cleanTitle(h[2]!);
    while (stack.length && stack[stack.length - 1]!.level >= level) stack.pop();
    if (text) stack.push({ level, text });
  }
  flush();
  return out;
}

/**
 * Title and sections of a Markdown file. The leading `#` heading is the title when it is the first
 * heading and front matter names no other title; its level is then left out of every path under it.
 * `prepare` rewrites the body (after normalisation) before headings are read.
 */
export function outline(raw: string, prepare?: (body: string) => string): Outline {
  const split = splitFrontMatter(normalizeMarkdown(raw));
  const body = prepare ? prepare(split.body) : split.body;
  const scanned = scanSections(body);
  const fmTitle = split.data.title ? cleanTitle(split.data.title) || null : null;
  // A `#` heading empties the stack, so it is always the first element of a path.
  const firstH1 = scanned.find((s) => s.levels[0] === 1)?.path[0] ?? null;
  const first = scanned.find((s) => s.path.length > 0);
  const lead = first && first.levels[0] === 1 && (!fmTitle || sameText(fmTitle, first.path[0]!)) ? first.path[0]! : null;
  const sections = lead
    ? scanned.map((s) => (s.levels[0] === 1 && s.path[0] === lead ? { ...s, path: s.path.slice(1), levels: s.levels.slice(1) } : s))
    : scanned;
  return { title: fmTitle ?? lead, firstH1, frontMatter: split.data, body, sections };
}

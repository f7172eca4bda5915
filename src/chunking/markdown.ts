import { normalizeMarkdown, splitFrontMatter } from './normalize.ts';
import { pack, paragraphUnits, type Unit } from './split.ts';
import type { Chunk, ChunkInput, ChunkedDocument, Chunker, ChunkerFactory, ChunkingSettings } from '../core/types.ts';

/** Bump when the output of the same input changes: every document is then re-chunked. */
const VERSION = 1;
export const HEADING_SEPARATOR = ' › ';

interface Section {
  path: string[];
  body: string;
}

const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Splits the body at ATX headings (not inside fenced code), tracking the heading path. */
export function sections(body: string): { sections: Section[]; firstH1: string | null } {
  const out: Section[] = [];
  const stack: { level: number; text: string }[] = [];
  let lines: string[] = [];
  let fence: string | null = null;
  let firstH1: string | null = null;
  const flush = () => {
    out.push({ path: stack.map((h) => h.text), body: lines.join('\n') });
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
    const text = h[2]!.replace(/[*_`]/g, '').trim();
    if (level === 1 && firstH1 === null) firstH1 = text;
    while (stack.length && stack[stack.length - 1]!.level >= level) stack.pop();
    if (text) stack.push({ level, text });
  }
  flush();
  return { sections: out, firstH1 };
}

function fileTitle(path: string): string {
  const base = path.split('/').pop() ?? path;
  return base.replace(/\.(md|markdown)$/i, '');
}

/** Heading path shown with each chunk; it starts with the document title. */
function headingPath(title: string, path: string[]): string {
  const parts = path[0] === title ? path : [title, ...path];
  return parts.join(HEADING_SEPARATOR);
}

export function chunkMarkdown(input: ChunkInput, settings: ChunkingSettings): ChunkedDocument {
  const { data, body } = splitFrontMatter(normalizeMarkdown(input.text));
  const parsed = sections(body);
  const title = data.title || parsed.firstH1 || fileTitle(input.path);
  const overlap = Math.floor(settings.targetTokens * settings.overlap);
  const chunks: Chunk[] = [];
  for (const s of parsed.sections) {
    const paragraphs = s.body
      .split(/\n[ \t]*\n/)
      .map((p) => p.trim())
      .filter((p) => p.length > 0);
    if (!paragraphs.length) continue;
    const units: Unit[] = paragraphs.flatMap((p, i) => paragraphUnits(p, i === 0 ? '' : '\n\n', settings.targetTokens));
    const heading = headingPath(title, s.path);
    for (const content of pack(units, settings.targetTokens, overlap)) {
      chunks.push({
        key: `${input.path}#${chunks.length}`,
        heading,
        content,
        text: `${heading}\n\n${content}`,
        metadata: {},
      });
    }
  }
  return { title, metadata: Object.keys(data).length ? { frontMatter: data } : {}, chunks };
}

export const markdownChunker: ChunkerFactory = (settings): Chunker => ({
  fingerprint: `markdown@${VERSION}:t${settings.targetTokens}:o${settings.overlap}`,
  chunk: (input) => chunkMarkdown(input, settings),
});

import { dedupeAdjacent, outline, stripInvisible } from './outline.ts';
import { pack, paragraphUnits, type Unit } from './split.ts';
import type { Chunk, ChunkInput, ChunkedDocument, Chunker, ChunkerFactory, ChunkingSettings } from '../core/types.ts';

/** Bump when the output of the same input changes: every document is then re-chunked. */
const VERSION = 2; // 2: titles and paths the same whatever the title's form; no repeated parts
export const HEADING_SEPARATOR = ' › ';

function fileTitle(path: string): string {
  const base = path.split('/').pop() ?? path;
  return stripInvisible(base).replace(/\.(md|markdown)$/i, '');
}

/** Heading path shown with each chunk; it starts with the document title, and no part repeats the one before. */
function headingPath(title: string, path: string[]): string {
  return dedupeAdjacent([title, ...path]).join(HEADING_SEPARATOR);
}

export function chunkMarkdown(input: ChunkInput, settings: ChunkingSettings): ChunkedDocument {
  const doc = outline(input.text);
  const data = doc.frontMatter;
  const title = doc.title ?? doc.firstH1 ?? fileTitle(input.path);
  const overlap = Math.floor(settings.targetTokens * settings.overlap);
  const chunks: Chunk[] = [];
  for (const s of doc.sections) {
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

import type { Chunk, ChunkInput, ChunkedDocument, Chunker, ChunkerFactory, ChunkingSettings } from '../../core/types.ts';
import { dedupeAdjacent, outline, stripInvisible } from '../../chunking/outline.ts';
import { pack, type Unit } from '../../chunking/split.ts';
import { bookOf, pad2 } from './book.ts';
import { canonicalClauses, clauseUnits } from './clauses.ts';
import { dedupeSlugs, type Entry } from './entry.ts';
import { keywordsOf } from './lexicon.ts';
import { toSimplified } from '../../core/text/fold.ts';
import { qiongtongEntries } from './qiongtong.ts';
import { chapterNumber, foldMarkersToHeadings, headingEntries, volumeNumber } from './sections.ts';

/** Bump when the same input would chunk differently. */
const VERSION = 3; // 3: format-invariant context and punctuation-neutral embedded text
export const CONTEXT_SEPARATOR = ' · ';
const KEYWORDS_EMBEDDED = 12;

function fileBase(path: string): string {
  return stripInvisible(path.split('/').pop() ?? path).replace(/\.(md|markdown)$/i, '');
}

/** Body → units: paragraphs, then (when a paragraph is too long) clauses, sized punctuation-neutrally. */
function units(body: string, target: number): Unit[] {
  const paragraphs = body
    .split(/\n[ \t]*\n/)
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  return paragraphs.flatMap((p, i) => clauseUnits(p, i === 0 ? '' : '\n\n', target));
}

export function chunkClassics(input: ChunkInput, settings: ChunkingSettings): ChunkedDocument {
  const book = bookOf(input.path);
  const zaohua = book.key === 'zaohua-yuanyao';
  const doc = outline(input.text, zaohua ? foldMarkersToHeadings : undefined);
  const data = doc.frontMatter;
  const entries = dedupeSlugs(
    book.key === 'qiongtong'
      ? qiongtongEntries(doc.sections)
      : headingEntries(doc.sections, doc.title, fileBase(input.path), { stemSections: zaohua }),
  );
  const prefix = `${book.key}${book.volumeKey ? `-${book.volumeKey}` : ''}`;
  const overlap = Math.floor(settings.targetTokens * settings.overlap);
  const docMeta = { book: book.key, bookTitle: book.title, volume: book.volume };
  const chunks: Chunk[] = [];
  for (const e of entries) {
    chunks.push(...entryChunks(e, prefix, docMeta, settings.targetTokens, overlap));
  }
  const title = doc.title ?? fileBase(input.path);
  const metadata: Record<string, unknown> = { ...docMeta, entries: entries.length };
  if (Object.keys(data).length) metadata.frontMatter = data;
  return { title, metadata, chunks };
}

function entryChunks(
  e: Entry,
  prefix: string,
  docMeta: { book: string; bookTitle: string; volume: string | null },
  target: number,
  overlap: number,
): Chunk[] {
  // The context repeats no book title ("千里命稿 第01章 天干篇" → "第01章 天干篇").
  const context = e.context.map((c) => (c.startsWith(docMeta.bookTitle) ? c.slice(docMeta.bookTitle.length).replace(/^[\s\-—:：·]+/u, '') : c)).filter(Boolean);
  const volume = volumeShown(docMeta.volume, context) ? [docMeta.volume!] : [];
  const heading = dedupeAdjacent([docMeta.bookTitle, ...volume, ...context]).join(CONTEXT_SEPARATOR);
  // pack() starts a chunk with the carried-over tail (up to 2 × overlap: one long boundary sentence)
  // and then adds a unit whatever its size; units within target − 2 × overlap keep chunks in bound.
  const pieces = pack(units(e.body, target - 2 * overlap), target, overlap);
  return pieces.map((content, i) => {
    const keywords = keywordsOf(`${heading}\n${content}`);
    return {
      key: `${prefix}-${e.slug}-${pad2(i + 1)}`,
      heading,
      content,
      // After the context, the chunk's leading lexicon terms in normalised form (寅月 for 正月,
      // 羊刃 for 阳刃), then the passage — all in simplified characters (三命通会 卷十 is traditional),
      // so queries in either spelling meet it; the passage in canonical punctuation (clauses.ts), so
      // re-punctuating a book re-embeds nothing. `heading` and `content` keep the text as written.
      text: toSimplified(`${heading}\n${keywords.slice(0, KEYWORDS_EMBEDDED).join(' ')}\n\n${canonicalClauses(content)}`),
      metadata: { ...docMeta, ...e.metadata, keywords, part: i + 1, parts: pieces.length },
    };
  });
}

/**
 * Whether the file's volume goes into the context: not when the context already starts with it,
 * nor when it only repeats the chapter number (千里命稿(卷六).md holds 第06章 alone), so a passage
 * reads the same in a whole book and in the file it is later split into.
 */
function volumeShown(volume: string | null, context: string[]): boolean {
  if (!volume) return false;
  const n = volumeNumber(volume);
  return n === null || n !== chapterNumber(context[0] ?? '');
}

export const classicsChunker: ChunkerFactory = (settings): Chunker => ({
  fingerprint: `classics@${VERSION}:t${settings.targetTokens}:o${settings.overlap}`,
  chunk: (input) => chunkClassics(input, settings),
});

import type { Chunk, ChunkInput, ChunkedDocument, Chunker, ChunkerFactory, ChunkingSettings } from '../../core/types.ts';
import { sha256 } from '../../core/hash.ts';
import { dedupeAdjacent, outline, stripInvisible } from '../../chunking/outline.ts';
import { pack, paragraphUnits, type Unit } from '../../chunking/split.ts';
import { brokenReason } from './broken.ts';
import { parseAddedAt, parseHeader, type BookmarkHeader } from './header.ts';

/**
 * Bookmark summaries (`YYYYMM/<date>-<slug>.md`): a header (title, URL, Added At, Tags), `## TL;DR`
 * and `## Summary` (sometimes followed by more `##` sections). Chunks are the TL;DR, the summary
 * by section, and the raw article text when a `<name>_raw.md` file exists (the bookmarks repository
 * has none today; such files are chunked by heading then by window, kind "raw"). Title and tags
 * are embedded with every chunk so English queries meet English titles over Chinese summaries.
 */

const VERSION = 2; // 2: no repeated heading parts (Summary › Summary); title in front matter or `#` alike
export const SEPARATOR = ' › ';
export type BookmarkKind = 'tldr' | 'summary' | 'raw';

const RAW_SUFFIX = /_raw\.(md|markdown)$/i;

function fileBase(path: string): string {
  return stripInvisible(path.split('/').pop() ?? path).replace(/\.(md|markdown)$/i, '');
}

function folderMonth(path: string): string | null {
  const parts = path.split('/');
  const dir = parts[parts.length - 2];
  return dir && /^\d{6}$/.test(dir) ? dir : null;
}

/** "Stop Making TUIs — Quarrelsome" → "stop-making-tuis-quarrelsome"; a title without Latin words → a hash. */
export function titleSlug(title: string): string {
  const words = title.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  let slug = '';
  for (const w of words.slice(0, 6)) {
    if ((slug + '-' + w).length > 48) break;
    slug = slug ? `${slug}-${w}` : w;
  }
  return slug || sha256(title).slice(0, 8);
}

export interface BookmarkIdentity {
  /** Stable id from the bookmark itself (time added, title), not the file name: renames keep it. */
  id: string;
  month: string | null;
  addedAt: string | null;
}

/**
 * bm-20240720-140256-mocking-is-an-anti-pattern. Without an Added At line, the date in the file name
 * (2024-07-20-…) stands in, then the file name itself.
 */
export function bookmarkIdentity(path: string, header: BookmarkHeader): BookmarkIdentity {
  const added = parseAddedAt(header.addedAt);
  const title = header.title ?? fileBase(path);
  const month = folderMonth(path) ?? added?.month ?? null;
  if (added) return { id: `bm-${added.compact}-${titleSlug(title)}`, month, addedAt: added.iso };
  const date = /^(\d{4})-(\d{2})-(\d{2})-/.exec(fileBase(path));
  const stamp = date ? `${date[1]}${date[2]}${date[3]}` : 'undated';
  return { id: `bm-${stamp}-${titleSlug(title)}`, month, addedAt: null };
}

function units(body: string, target: number): Unit[] {
  const paragraphs = body
    .split(/\n[ \t]*\n/)
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  return paragraphs.flatMap((p, i) => paragraphUnits(p, i === 0 ? '' : '\n\n', target));
}

const KIND_LABEL: Record<BookmarkKind, string> = { tldr: 'TL;DR', summary: 'Summary', raw: 'Article' };

export function chunkBookmark(input: ChunkInput, settings: ChunkingSettings): ChunkedDocument {
  const doc = outline(input.text);
  const raw = RAW_SUFFIX.test(input.path);
  const header = raw ? { title: null, url: null, addedAt: null, tags: [] } : parseHeader(doc.body);
  const title = header.title ?? doc.title ?? fileBase(input.path).replace(/_raw$/i, '');
  // A raw file is keyed like the summary it sits beside (same name without _raw).
  const identity = bookmarkIdentity(raw ? input.path.replace(RAW_SUFFIX, '.$1') : input.path, { ...header, title });

  // Group sections: TL;DR, then everything from ## Summary on (later sections belong to it). Paths
  // come without the title; `sub` is the path below the Summary heading (or the whole path of a
  // later sibling section), so a `### Summary` inside `## Summary` is not said twice.
  const groups: { kind: BookmarkKind; sub: string[]; body: string }[] = [];
  let inSummary = false;
  for (const s of doc.sections) {
    if (raw) {
      groups.push({ kind: 'raw', sub: s.path, body: s.body });
      continue;
    }
    const top = s.path[0];
    if (top === undefined) continue; // the header block
    if (/^tl;?dr$/i.test(top)) {
      groups.push({ kind: 'tldr', sub: [], body: s.body });
      inSummary = false;
    } else if (/^summary$/i.test(top)) {
      groups.push({ kind: 'summary', sub: s.path.slice(1), body: s.body });
      inSummary = true;
    } else if (inSummary) {
      groups.push({ kind: 'summary', sub: s.path, body: s.body });
    }
  }

  const tldr = groups.filter((g) => g.kind === 'tldr').map((g) => g.body).join('\n');
  const summary = groups.filter((g) => g.kind === 'summary').map((g) => g.body).join('\n');
  const broken = raw ? null : brokenReason(tldr, summary);
  const base: Record<string, unknown> = {
    bookmark: identity.id,
    title,
    url: header.url,
    tags: header.tags,
    added_at: identity.addedAt,
    month: identity.month,
    broken: broken !== null,
  };
  if (broken) base.brokenReason = broken;

  const tagLine = header.tags.map((t) => `#${t}`).join(' ');
  // The TL;DR chunk also embeds the URL: its slug words are often the English title's, and a short
  // English-heavy text is what English queries find over Chinese summaries.
  const overlap = Math.floor(settings.targetTokens * settings.overlap);
  const chunks: Chunk[] = [];
  const counters: Record<BookmarkKind, number> = { tldr: 0, summary: 0, raw: 0 };
  for (const g of groups) {
    // Units within target − 2 × overlap so a carried-over tail (up to 2 × overlap) plus one unit fits.
    const pieces = pack(units(g.body, settings.targetTokens - 2 * overlap), settings.targetTokens, overlap);
    const sub = dedupeAdjacent([KIND_LABEL[g.kind], ...g.sub]).slice(1);
    const heading = dedupeAdjacent([title, KIND_LABEL[g.kind], ...sub]).join(SEPARATOR);
    const section = sub.join(SEPARATOR);
    for (const content of pieces) {
      const n = ++counters[g.kind];
      chunks.push({
        key: `${identity.id}-${g.kind}-${String(n).padStart(2, '0')}`,
        heading,
        content,
        text: `${heading}${tagLine ? `\n${tagLine}` : ''}${g.kind === 'tldr' && header.url ? `\n${header.url}` : ''}\n\n${content}`,
        metadata: { ...base, kind: g.kind, ...(section ? { section } : {}) },
      });
    }
  }
  return { title, metadata: { ...base, kind: raw ? 'raw' : 'bookmark' }, chunks };
}

export const bookmarksChunker: ChunkerFactory = (settings): Chunker => ({
  fingerprint: `bookmarks@${VERSION}:t${settings.targetTokens}:o${settings.overlap}`,
  chunk: (input) => chunkBookmark(input, settings),
});

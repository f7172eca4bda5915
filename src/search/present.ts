import type { SearchResult } from './search.ts';

/** The JSON shape of a result (CLI --json, HTTP, MCP): the library's fields, score rounded. */
export function resultJson(r: SearchResult) {
  return {
    id: r.id,
    source: r.source,
    path: r.path,
    title: r.title,
    heading: r.heading,
    content: r.content,
    score: Number(r.score.toFixed(6)),
    book: r.book,
    chapter: r.chapter,
    url: r.url,
    tags: r.tags,
    date: r.date,
    metadata: r.metadata,
    ...(r.explain ? { explain: r.explain } : {}),
  };
}

export const TRANSCRIPT_CHARS = 200;

/** The chat app's source item: {id, title, url, transcript (≤ 200 chars), score, metadata}. */
export function sourceItem(r: SearchResult) {
  const chars = Array.from(r.content.replace(/\s+/g, ' ').trim());
  return {
    id: `${r.source}:${r.id}`,
    title: r.title ?? r.book ?? r.heading,
    url: r.url,
    transcript: chars.length > TRANSCRIPT_CHARS ? chars.slice(0, TRANSCRIPT_CHARS - 1).join('') + '…' : chars.join(''),
    score: Number(r.score.toFixed(6)),
    metadata: { ...r.metadata, source: r.source, path: r.path, heading: r.heading, ...(r.explain ? { explain: r.explain } : {}) },
  };
}

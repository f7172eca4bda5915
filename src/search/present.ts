import type { SearchResult } from './search.ts';

/**
 * The JSON shape of a result (CLI --json, HTTP, MCP): the engine's fields, the profile's fields
 * both at the top level (the documented shape: book, chapter, url, tags, date for the built-in
 * profiles) and merged into metadata, score rounded.
 */
export function resultJson(r: SearchResult) {
  return {
    id: r.id,
    source: r.source,
    path: r.path,
    title: r.title,
    heading: r.heading,
    content: r.content,
    ...(r.startLine !== undefined ? { startLine: r.startLine, endLine: r.endLine } : {}),
    score: Number(r.score.toFixed(6)),
    ...r.fields,
    metadata: { ...r.metadata, ...r.fields },
    ...(r.explain ? { explain: r.explain } : {}),
  };
}

export const TRANSCRIPT_CHARS = 200;
const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/** The chat app's source item: {id, title, url, transcript (≤ 200 chars), score, metadata}. */
export function sourceItem(r: SearchResult) {
  const chars = Array.from(r.content.replace(/\s+/g, ' ').trim());
  return {
    id: `${r.source}:${r.id}`,
    title: r.title ?? r.heading,
    url: str(r.fields.url) ?? str(r.metadata.url),
    transcript: chars.length > TRANSCRIPT_CHARS ? chars.slice(0, TRANSCRIPT_CHARS - 1).join('') + '…' : chars.join(''),
    score: Number(r.score.toFixed(6)),
    metadata: { ...r.metadata, ...r.fields, source: r.source, path: r.path, heading: r.heading, ...(r.explain ? { explain: r.explain } : {}) },
  };
}

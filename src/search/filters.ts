import type { ChunkFilter } from '../storage/roles.ts';
import { RagsyncError, EXIT } from '../core/errors.ts';
import { BOOK_KEYS } from '../profiles/classics/book.ts';

/** The five classics the agent's queryClassics tool names (its schema is fixed), plus 'all'. */
export const BOOKS = ['qiongtong', 'ziping', 'ditian', 'yuanhai', 'sanming', 'all'] as const;
export type BookKey = (typeof BOOKS)[number];

/** Every book key the classics chunker gives (chunk metadata.book), for filters. */
export const KNOWN_BOOK_KEYS: readonly string[] = [...new Set(Object.values(BOOK_KEYS))];
// Works not in BOOK_KEYS get a generated key of the same shape, so any such slug is accepted.
const BOOK_KEY = /^[a-z][a-z0-9-]*$/;

/** Filters as callers give them (validated by toChunkFilter): the store's ChunkFilter fields. */
export type FilterOptions = ChunkFilter;

const usage = (msg: string) => new RagsyncError(msg, EXIT.usage);
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Validates user-facing filter options into the store's ChunkFilter. Filtering itself happens in
 * SQL (json_extract on chunk, then document metadata; see storage/sqlite-filter.ts), so the vector
 * and keyword lists are filtered the same way before fusion.
 */
export function toChunkFilter(o: FilterOptions): ChunkFilter {
  const f: ChunkFilter = {};
  if (o.sources?.length) f.sources = o.sources;
  if (o.book !== undefined && o.book !== 'all') {
    if (!BOOK_KEY.test(o.book)) {
      throw usage(`book must be a book key such as ${BOOKS.join('|')} (got "${o.book}")`);
    }
    f.book = o.book;
  }
  if (o.tags?.length) f.tags = o.tags.map((t) => t.trim()).filter(Boolean);
  if (o.month !== undefined) {
    const m = /^(\d{4})-?(\d{2})$/.exec(o.month);
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 12) throw usage(`month must be YYYY-MM (got "${o.month}")`);
    f.month = `${m[1]}-${m[2]}`;
  }
  for (const key of ['since', 'until'] as const) {
    const v = o[key];
    if (v === undefined) continue;
    if (!DATE.test(v) || Number.isNaN(Date.parse(v))) throw usage(`${key} must be YYYY-MM-DD (got "${v}")`);
    f[key] = v;
  }
  if (o.path !== undefined) {
    if (!o.path.trim()) throw usage('path glob is empty');
    f.path = o.path;
  }
  if (o.includeBroken) f.includeBroken = true;
  return f;
}

/** "1,2" → RRF weights {vector: 1, keyword: 2} (each ≥ 0, not both 0). */
export function parseWeights(v: string): { vector: number; keyword: number } {
  const m = /^\s*([\d.]+)\s*,\s*([\d.]+)\s*$/.exec(v);
  const w = m ? { vector: Number(m[1]), keyword: Number(m[2]) } : null;
  if (!w || !Number.isFinite(w.vector) || !Number.isFinite(w.keyword) || w.vector + w.keyword <= 0) {
    throw usage(`weights must be "VECTOR,KEYWORD" non-negative numbers (got "${v}")`);
  }
  return w;
}

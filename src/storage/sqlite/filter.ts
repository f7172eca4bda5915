import type { Database } from 'better-sqlite3';
import picomatch from 'picomatch';
import type { ChunkFilter } from '../roles.ts';

/**
 * ChunkFilter → SQL over the aliases c (chunks), d (documents), s (sources), with its parameters.
 * Metadata fields are read with json_extract from the chunk first, then the document.
 */
export function filterSql(f: ChunkFilter | undefined): { sql: string; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  const field = (name: string) =>
    `coalesce(json_extract(c.metadata, '$.${name}'), json_extract(d.metadata, '$.${name}'))`;
  const date = `coalesce(${field('added_at')}, ${field('date')})`;
  if (f?.sources?.length) {
    where.push(`s.name IN (${f.sources.map(() => '?').join(',')})`);
    params.push(...f.sources);
  }
  if (f?.book && f.book !== 'all') {
    where.push(`${field('book')} = ?`);
    params.push(f.book);
  }
  for (const tag of f?.tags ?? []) {
    where.push(
      `EXISTS (SELECT 1 FROM json_each(CASE WHEN json_type(${field('tags')}) = 'array' THEN ${field('tags')} ELSE '[]' END)
               WHERE lower(value) = lower(?))`,
    );
    params.push(tag);
  }
  if (f?.month) {
    where.push(`coalesce(replace(CAST(${field('month')} AS TEXT), '-', ''), replace(substr(${date}, 1, 7), '-', '')) = ?`);
    params.push(f.month.replace('-', ''));
  }
  if (f?.since) {
    where.push(`substr(${date}, 1, 10) >= ?`);
    params.push(f.since);
  }
  if (f?.until) {
    where.push(`substr(${date}, 1, 10) <= ?`);
    params.push(f.until);
  }
  if (f?.path) {
    where.push('ragsync_glob(?, d.path)');
    params.push(f.path);
  }
  if (!f?.includeBroken) where.push(`coalesce(${field('broken')}, 0) NOT IN (1, 'true')`);
  return { sql: where.length ? where.join(' AND ') : '1', params };
}

/** Registers ragsync_glob(pattern, path) (picomatch semantics) on a connection. */
export function registerGlob(db: Database): void {
  const cache = new Map<string, (p: string) => boolean>();
  db.function('ragsync_glob', { deterministic: true }, (pattern: unknown, path: unknown) => {
    const key = String(pattern);
    let m = cache.get(key);
    if (!m) {
      m = picomatch(key, { dot: true });
      if (cache.size > 100) cache.clear();
      cache.set(key, m);
    }
    return m(String(path)) ? 1 : 0;
  });
}

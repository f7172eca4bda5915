import type { Database } from 'better-sqlite3';
import picomatch from 'picomatch';
import type { ChunkFilter, FieldCondition } from '../../core/types.ts';

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The first present of `fields`, chunk metadata before document metadata. */
export function fieldSql(fields: string[]): string {
  const parts = fields.flatMap((name) => {
    // Field names come from profiles, never from requests; still, only plain names reach SQL.
    if (!FIELD_NAME.test(name)) throw new Error(`bad metadata field name ${JSON.stringify(name)}`);
    return [`json_extract(c.metadata, '$.${name}')`, `json_extract(d.metadata, '$.${name}')`];
  });
  return parts.length === 1 ? parts[0]! : `coalesce(${parts.join(', ')})`;
}

function conditionSql(c: FieldCondition, where: string[], params: unknown[]): void {
  const f = fieldSql(c.fields);
  switch (c.op) {
    case 'eq':
      where.push(`${f} = ?`);
      params.push(c.value);
      return;
    case 'has-all':
      for (const v of c.values) {
        where.push(
          `EXISTS (SELECT 1 FROM json_each(CASE WHEN json_type(${f}) = 'array' THEN ${f} ELSE '[]' END)
                   WHERE lower(value) = lower(?))`,
        );
        params.push(v);
      }
      return;
    case 'month':
      // 'YYYY-MM…' dates and 'YYYYMM' months alike.
      where.push(`replace(substr(CAST(${f} AS TEXT), 1, 7), '-', '') = ?`);
      params.push(c.value.replace('-', ''));
      return;
    case 'since':
    case 'until':
      where.push(`substr(${f}, 1, 10) ${c.op === 'since' ? '>=' : '<='} ?`);
      params.push(c.value);
      return;
  }
}

/**
 * ChunkFilter → SQL over the aliases c (chunks), d (documents), s (sources), with its parameters.
 * Metadata fields are read with json_extract from the chunk first, then the document.
 */
export function filterSql(f: ChunkFilter | undefined): { sql: string; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  if (f?.sources?.length) {
    where.push(`s.name IN (${f.sources.map(() => '?').join(',')})`);
    params.push(...f.sources);
  }
  for (const c of f?.where ?? []) conditionSql(c, where, params);
  if (f?.path) {
    where.push('ragsync_glob(?, d.path)');
    params.push(f.path);
  }
  if (!f?.includeBroken) where.push(`coalesce(${fieldSql(['broken'])}, 0) NOT IN (1, 'true')`);
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

import picomatch from 'picomatch';
import type { ChunkFilter, FieldCondition } from '../../core/types.ts';

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * ChunkFilter → SQL over the aliases c (chunks), d (documents), s (sources), parameters numbered
 * from `params.length + 1` on. The same tests as storage/sqlite/filter.ts: a metadata field is the
 * chunk's, else the document's (JSON null counts as absent); a path glob has picomatch's meaning
 * (its regular expression, which Postgres' own reads alike).
 */
export function pgFilterSql(f: ChunkFilter | undefined, params: unknown[]): string {
  const where: string[] = [];
  const p = (v: unknown) => `$${params.push(v)}`;
  if (f?.sources?.length) where.push(`s.name = ANY (${p(f.sources)}::text[])`);
  for (const c of f?.where ?? []) conditionSql(c, where, p);
  if (f?.path) where.push(`d.path ~ ${p(picomatch.makeRe(f.path, { dot: true }).source)}`);
  if (!f?.includeBroken) where.push(`coalesce(${field(['broken'])}, '0') NOT IN ('1', 'true')`);
  return where.length ? where.join(' AND ') : 'true';
}

/** The first present of `fields` as jsonb (json) or text, over the aliases c and d. */
export function field(fields: string[], as: 'json' | 'text' = 'text'): string {
  const parts = fields.flatMap((name) => {
    // Field names come from profiles, never from requests; still, only plain names reach SQL.
    if (!FIELD_NAME.test(name)) throw new Error(`bad metadata field name ${JSON.stringify(name)}`);
    return [`nullif(c.metadata -> '${name}', 'null')`, `nullif(d.metadata -> '${name}', 'null')`];
  });
  const json = parts.length === 1 ? parts[0]! : `coalesce(${parts.join(', ')})`;
  // A string's text without its quotes; numbers and booleans as JSON writes them.
  return as === 'json' ? json : `(${json} #>> '{}')`;
}

function conditionSql(c: FieldCondition, where: string[], p: (v: unknown) => string): void {
  switch (c.op) {
    case 'eq':
      // SQLite compares a string field only: a number 2024 is not the text '2024'.
      where.push(`${field(c.fields, 'json')} = to_jsonb(${p(c.value)}::text)`);
      return;
    case 'has-all': {
      const f = field(c.fields, 'json');
      for (const v of c.values) {
        where.push(
          `EXISTS (SELECT 1 FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(${f}) = 'array' THEN ${f} ELSE '[]' END) e(v)
                   WHERE lower(e.v) = lower(${p(v)}))`,
        );
      }
      return;
    }
    case 'month':
      where.push(`replace(substr(${field(c.fields)}, 1, 7), '-', '') = ${p(c.value.replace('-', ''))}`);
      return;
    case 'since':
    case 'until':
      where.push(`substr(${field(c.fields)}, 1, 10) COLLATE "C" ${c.op === 'since' ? '>=' : '<='} ${p(c.value)}`);
      return;
  }
}

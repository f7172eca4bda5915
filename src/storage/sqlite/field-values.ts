import type { FieldValueShape } from '../../core/types.ts';
import { fieldSql } from './filter.ts';
import { readGeneration, type SqliteConnection } from './statements.ts';

const JOINS = 'FROM chunks c JOIN documents d ON d.id = c.document_id';

/** The SQL listing a field's distinct values in one shape, over the aliases c (chunks) and d (documents). */
function valuesSql(fields: string[], shape: FieldValueShape): string {
  const f = fieldSql(fields);
  switch (shape) {
    case 'value':
      return `SELECT DISTINCT CAST(${f} AS TEXT) AS v ${JOINS} WHERE typeof(${f}) IN ('text', 'integer', 'real')`;
    case 'element':
      return `SELECT DISTINCT j.value AS v ${JOINS}, json_each(CASE WHEN json_type(${f}) = 'array' THEN ${f} ELSE '[]' END) j
              WHERE j.type = 'text'`;
    case 'month':
      // As the month filter reads them: 'YYYY-MM…' dates and 'YYYYMM' months alike.
      return `SELECT DISTINCT m AS v FROM (SELECT replace(substr(CAST(${f} AS TEXT), 1, 7), '-', '') AS m ${JOINS})
              WHERE m GLOB '[0-9][0-9][0-9][0-9][0-9][0-9]'`;
  }
}

/** The distinct values chunks hold in metadata fields, kept per generation (reading every chunk's metadata is the slow part). */
export class FieldValues {
  private held: { generation: number; lists: Map<string, string[]> } | null = null;

  constructor(private readonly c: SqliteConnection) {}

  /** The distinct values chunks hold in a metadata field, sorted; months as 'YYYY-MM'. */
  of(fields: string[], shape: FieldValueShape): string[] {
    const generation = readGeneration(this.c);
    if (this.held?.generation !== generation) this.held = { generation, lists: new Map() };
    const key = `${shape}\u0000${fields.join('\u0000')}`;
    let list = this.held.lists.get(key);
    if (!list) {
      const raw = this.c.db.prepare(valuesSql(fields, shape)).pluck().all() as string[];
      list = (shape === 'month' ? raw.map((m) => `${m.slice(0, 4)}-${m.slice(4)}`) : raw).sort();
      this.held.lists.set(key, list);
    }
    return list;
  }
}

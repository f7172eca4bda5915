import type { Database } from 'better-sqlite3';
import type { ChunkFilter, StoredHit } from '../../core/types.ts';
import { matchExpression } from '../../core/text/analyzer.ts';
import type { IndexReader, KeywordQuery, LexiconRow, VectorSet } from '../roles.ts';
import { decodeVector } from './blob.ts';
import { parseJson, slices } from './connection.ts';
import { filterSql } from './filter.ts';

type HitRow = Omit<StoredHit, 'metadata'> & { metadata: string; docMetadata: string };
const HIT_COLUMNS = `c.id AS ref, c.key AS id, s.name AS source, d.path, d.title, c.heading, c.content, c.metadata,
  d.metadata AS docMetadata`;
const HIT_JOINS = `JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id`;
/** Hit metadata: the document's fields (url, tags, dates) overlaid with the chunk's own. */
const toHit = ({ docMetadata, ...r }: HitRow): StoredHit => ({
  ...r,
  metadata: { ...parseJson(docMetadata), ...parseJson(r.metadata) },
});

export class SqliteIndexReader implements IndexReader {
  constructor(readonly db: Database) {}

  async lexiconLookup(keys: string[]): Promise<LexiconRow[]> {
    if (!keys.length) return [];
    return this.db
      .prepare(
        `SELECT g.gloss, g.headword, g.sense, t.df FROM lexicon_glosses g JOIN lexicon_terms t ON t.headword = g.headword
         WHERE g.gloss IN (SELECT value FROM json_each(?))`,
      )
      .all(JSON.stringify(keys)) as LexiconRow[];
  }

  async keywordSearch(q: KeywordQuery): Promise<StoredHit[]> {
    if (!q.tokens.length) return [];
    const f = filterSql(q.filter);
    const head = q.headWeight ?? 1;
    if (!(Number.isFinite(head) && head >= 0)) throw new Error(`headWeight must be a number ≥ 0 (got ${head})`);
    const rows = this.db
      .prepare(
        `SELECT ${HIT_COLUMNS}, -bm25(chunks_fts, ?, 1) AS score
         FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid ${HIT_JOINS}
         WHERE chunks_fts MATCH ? AND ${f.sql}
         ORDER BY score DESC, c.id
         LIMIT ?`,
      )
      .all(head, matchExpression(q.tokens), ...f.params, q.k) as HitRow[];
    return rows.map(toHit);
  }

  async termFrequencies(terms: string[]): Promise<{ chunks: number; df: Map<string, number> }> {
    const chunks = this.db.prepare('SELECT count(*) FROM chunks').pluck().get() as number;
    const df = new Map<string, number>();
    for (const part of slices(terms)) {
      const rows = this.db
        .prepare(`SELECT term, doc FROM chunks_fts_terms WHERE term IN (${part.map(() => '?').join(',')})`)
        .all(...part) as { term: string; doc: number }[];
      for (const r of rows) df.set(r.term, r.doc);
    }
    return { chunks, df };
  }

  async getChunks(refs: number[], filter?: ChunkFilter): Promise<StoredHit[]> {
    const f = filterSql(filter);
    const byRef = new Map<number, StoredHit>();
    for (const part of slices(refs)) {
      const rows = this.db
        .prepare(
          `SELECT ${HIT_COLUMNS}, 0 AS score FROM chunks c ${HIT_JOINS}
           WHERE c.id IN (${part.map(() => '?').join(',')}) AND ${f.sql}`,
        )
        .all(...part, ...f.params) as HitRow[];
      for (const r of rows) byRef.set(r.ref, toHit(r));
    }
    return refs.flatMap((r) => byRef.get(r) ?? []);
  }

  async anyChunk(filter: ChunkFilter): Promise<boolean> {
    const f = filterSql(filter);
    return !!this.db.prepare(`SELECT 1 FROM chunks c ${HIT_JOINS} WHERE ${f.sql} LIMIT 1`).get(...f.params);
  }

  async findChunks(ref: { source?: string; path?: string; id?: string }): Promise<number[]> {
    const where: string[] = [];
    const params: string[] = [];
    if (ref.source) (where.push('s.name = ?'), params.push(ref.source));
    if (ref.path) (where.push('d.path = ?'), params.push(ref.path));
    if (ref.id) (where.push('c.key = ?'), params.push(ref.id));
    if (!where.length) return [];
    return this.db
      .prepare(`SELECT c.id FROM chunks c ${HIT_JOINS} WHERE ${where.join(' AND ')} ORDER BY c.id`)
      .pluck()
      .all(...params) as number[];
  }

  async loadVectors(fingerprint: string): Promise<VectorSet> {
    // One read transaction: the generation and the rows come from the same snapshot.
    return this.db.transaction(() => {
      const generation = readGeneration(this.db);
      const dims = (this.db.prepare('SELECT dims FROM embedders WHERE fingerprint = ?').pluck().get(fingerprint) ??
        0) as number;
      const count = this.db
        .prepare('SELECT count(*) FROM chunks c JOIN vectors v ON v.fingerprint = ? AND v.text_hash = c.text_hash')
        .pluck()
        .get(fingerprint) as number;
      const refs = new Int32Array(count);
      const vectors = new Float32Array(count * dims);
      let i = 0;
      const rows = this.db
        .prepare(
          `SELECT c.id, v.embedding FROM chunks c JOIN vectors v ON v.fingerprint = ? AND v.text_hash = c.text_hash
           ORDER BY c.id`,
        )
        .raw()
        .iterate(fingerprint) as IterableIterator<[number, Buffer]>;
      for (const [id, blob] of rows) {
        if (blob.byteLength !== dims * 4) continue; // a foreign row: never mix dimensions
        refs[i] = id;
        vectors.set(decodeVector(blob), i * dims);
        i++;
      }
      return { generation, dims, refs: refs.subarray(0, i), vectors: vectors.subarray(0, i * dims) };
    })();
  }

  async generation(): Promise<number> {
    return readGeneration(this.db);
  }
}

function readGeneration(db: Database): number {
  return (db.prepare("SELECT value FROM meta WHERE key = 'generation'").pluck().get() ?? 0) as number;
}

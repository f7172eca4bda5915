import type { Database } from 'better-sqlite3';
import type { SqliteConnection } from './statements.ts';
import type { DocumentRecord, EmbedderInfo } from '../../core/types.ts';
import type { IndexDump, SourceDump, VectorRecord } from '../roles.ts';
import { decodeVector } from './blob.ts';
import { parseJson } from './connection.ts';
import { dumpedDocuments, headwordsOf, pagesAfter, type ChunkRow, type DocumentRow, type GlossRow } from '../dump-pages.ts';

/** The index read back whole (storage/roles.ts IndexDump): what `ragsync copy` moves. */
export class SqliteIndexDump implements IndexDump {
  constructor(private readonly c: SqliteConnection) {}

  private get db(): Database {
    return this.c.db;
  }

  async dumpSources(): Promise<SourceDump[]> {
    return this.db
      .prepare(
        `SELECT name, kind, url, branch, commit_sha AS "commit", indexed_at AS indexedAt, listing FROM sources ORDER BY name`,
      )
      .all() as SourceDump[];
  }

  async *dumpDocuments(source: string, batch: number): AsyncIterable<DocumentRecord[]> {
    const page = this.db.prepare(
      `SELECT d.id, d.path, d.content_hash AS contentHash, d.stamp, d.size, d.title, d.metadata, d.chunker, l.headwords
       FROM documents d JOIN sources s ON s.id = d.source_id LEFT JOIN lexicon_docs l ON l.document_id = d.id
       WHERE s.name = ? AND d.path > ? ORDER BY d.path LIMIT ?`,
    );
    const chunksOf = this.db.prepare(
      `SELECT c.document_id AS documentId, c.ordinal, c.key, c.heading, c.content, c.text, c.text_hash AS textHash, c.tokens,
              c.metadata, c.start_line AS startLine, c.end_line AS endLine, coalesce(f.head, '') AS headTerms, coalesce(f.body, '') AS terms
       FROM chunks c LEFT JOIN chunks_fts f ON f.rowid = c.id
       WHERE c.document_id IN (SELECT value FROM json_each(?)) ORDER BY c.document_id, c.ordinal`,
    );
    const glossesOf = this.db.prepare(
      'SELECT headword, gloss, sense FROM lexicon_glosses WHERE headword IN (SELECT value FROM json_each(?)) ORDER BY headword, sense, gloss',
    );
    // As stored: metadata and headwords JSON text.
    type Row<T> = Omit<T, 'metadata'> & { metadata: string };
    const rows = (after: string) => page.all(source, after, batch) as (Row<DocumentRow> & { headwords: string | null })[];
    for await (const found of pagesAfter(rows, (d) => d.path)) {
      const docs = found.map(({ metadata, headwords, ...d }): DocumentRow => ({
        ...d,
        metadata: parseJson(metadata),
        headwords: headwords === null ? null : (JSON.parse(headwords) as string[]),
      }));
      const chunks = (chunksOf.all(JSON.stringify(docs.map((d) => d.id))) as Row<ChunkRow>[]).map(({ metadata, ...c }) => ({ ...c, metadata: parseJson(metadata) }));
      const words = headwordsOf(docs);
      yield dumpedDocuments(docs, chunks, words.length ? (glossesOf.all(JSON.stringify(words)) as GlossRow[]) : []);
    }
  }

  async dumpEmbedders(): Promise<EmbedderInfo[]> {
    return this.db.prepare('SELECT fingerprint, provider, model, dims FROM embedders ORDER BY fingerprint').all() as EmbedderInfo[];
  }

  async *dumpVectors(fingerprint: string, batch: number): AsyncIterable<VectorRecord[]> {
    const page = this.db.prepare(
      'SELECT text_hash AS textHash, embedding FROM vectors WHERE fingerprint = ? AND text_hash > ? ORDER BY text_hash LIMIT ?',
    );
    const rows = (after: string) => page.all(fingerprint, after, batch) as { textHash: string; embedding: Buffer }[];
    for await (const found of pagesAfter(rows, (r) => r.textHash)) yield found.map((r) => ({ textHash: r.textHash, vector: decodeVector(r.embedding) }));
  }
}

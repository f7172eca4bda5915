import type { Database } from 'better-sqlite3';
import type { SqliteConnection } from './statements.ts';
import type { ChunkRecord, DocumentRecord, EmbedderInfo, LexiconEntry } from '../../core/types.ts';
import type { IndexDump, SourceDump, VectorRecord } from '../roles.ts';
import { decodeVector } from './blob.ts';
import { parseJson } from './connection.ts';

type DocRow = Omit<DocumentRecord, 'metadata' | 'chunks' | 'lexicon'> & { id: number; metadata: string; headwords: string | null };
type ChunkRow = Omit<ChunkRecord, 'metadata' | 'startLine' | 'endLine'> & {
  documentId: number;
  metadata: string;
  startLine: number | null;
  endLine: number | null;
};

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
    const glosses = this.db.prepare('SELECT gloss, sense FROM lexicon_glosses WHERE headword = ? ORDER BY sense, gloss');
    for (let after = ''; ; ) {
      const docs = page.all(source, after, batch) as DocRow[];
      if (!docs.length) return;
      const chunks = new Map<number, ChunkRecord[]>();
      for (const { documentId, metadata, startLine, endLine, ...c } of chunksOf.all(JSON.stringify(docs.map((d) => d.id))) as ChunkRow[]) {
        let list = chunks.get(documentId);
        if (!list) chunks.set(documentId, (list = []));
        list.push({ ...c, metadata: parseJson(metadata), ...(startLine !== null && endLine !== null ? { startLine, endLine } : {}) });
      }
      yield docs.map(({ id, metadata, headwords, ...d }) => ({
        ...d,
        metadata: parseJson(metadata),
        chunks: chunks.get(id) ?? [],
        ...(headwords === null
          ? {}
          : {
              lexicon: (JSON.parse(headwords) as string[]).map(
                (headword): LexiconEntry => ({
                  headword,
                  glosses: (glosses.all(headword) as { gloss: string; sense: number }[]).map((g) => [g.gloss, g.sense] as const),
                }),
              ),
            }),
      }));
      after = docs.at(-1)!.path;
    }
  }

  async dumpEmbedders(): Promise<EmbedderInfo[]> {
    return this.db.prepare('SELECT fingerprint, provider, model, dims FROM embedders ORDER BY fingerprint').all() as EmbedderInfo[];
  }

  async *dumpVectors(fingerprint: string, batch: number): AsyncIterable<VectorRecord[]> {
    const page = this.db.prepare(
      'SELECT text_hash AS textHash, embedding FROM vectors WHERE fingerprint = ? AND text_hash > ? ORDER BY text_hash LIMIT ?',
    );
    for (let after = ''; ; ) {
      const rows = page.all(fingerprint, after, batch) as { textHash: string; embedding: Buffer }[];
      if (!rows.length) return;
      yield rows.map((r) => ({ textHash: r.textHash, vector: decodeVector(r.embedding) }));
      after = rows.at(-1)!.textHash;
    }
  }
}

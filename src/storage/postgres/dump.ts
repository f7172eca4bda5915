import type { ChunkRecord, DocumentRecord, EmbedderInfo } from '../../core/types.ts';
import type { IndexDump, SourceDump, VectorRecord } from '../roles.ts';
import type { PgDb } from './db.ts';
import { decodeVectorSend } from './vectors.ts';

type DocRow = Omit<DocumentRecord, 'chunks' | 'lexicon'> & { id: number; headwords: string[] | null };
type ChunkRow = Omit<ChunkRecord, 'startLine' | 'endLine'> & { documentId: number; startLine: number | null; endLine: number | null };

/**
 * The index read back whole (storage/roles.ts IndexDump): what `ragsync copy` moves. Paths and
 * hashes in byte order (COLLATE "C"), as SQLite orders them. The body's terms are stored as
 * text; the head's are read back from its tsvector in position order (heads are short: far
 * below the 256 repeats and 16383 positions a tsvector keeps).
 */
export class PgIndexDump implements IndexDump {
  constructor(private readonly db: PgDb) {}

  async dumpSources(): Promise<SourceDump[]> {
    return this.db.query<SourceDump>(
      `SELECT name, kind, url, branch, commit_sha AS "commit", indexed_at AS "indexedAt", listing FROM sources ORDER BY name COLLATE "C"`,
    );
  }

  async *dumpDocuments(source: string, batch: number): AsyncIterable<DocumentRecord[]> {
    for (let after = ''; ; ) {
      const docs = await this.db.query<DocRow>(
        `SELECT d.id, d.path, d.content_hash AS "contentHash", d.stamp, d.size, d.title, d.metadata, d.chunker, l.headwords
         FROM documents d JOIN sources s ON s.id = d.source_id LEFT JOIN lexicon_docs l ON l.document_id = d.id
         WHERE s.name = $1 AND d.path COLLATE "C" > $2 ORDER BY d.path COLLATE "C" LIMIT $3`,
        [source, after, batch],
      );
      if (!docs.length) return;
      const rows = await this.db.query<ChunkRow>(
        `SELECT c.document_id AS "documentId", c.ordinal, c.key, c.heading, c.content, c.text, c.text_hash AS "textHash", c.tokens,
                c.metadata, c.start_line AS "startLine", c.end_line AS "endLine", c.terms,
                coalesce((SELECT string_agg(u.lexeme, ' ' ORDER BY p) FROM unnest(c.head) u, unnest(u.positions) p), '') AS "headTerms"
         FROM chunks c WHERE c.document_id = ANY ($1::bigint[]) ORDER BY c.document_id, c.ordinal`,
        [docs.map((d) => d.id)],
      );
      const chunks = new Map<number, ChunkRecord[]>();
      for (const { documentId, startLine, endLine, ...c } of rows) {
        let list = chunks.get(documentId);
        if (!list) chunks.set(documentId, (list = []));
        list.push({ ...c, ...(startLine !== null && endLine !== null ? { startLine, endLine } : {}) });
      }
      const headwords = [...new Set(docs.flatMap((d) => d.headwords ?? []))];
      const glosses = new Map<string, [string, number][]>();
      if (headwords.length) {
        const g = await this.db.query<{ headword: string; gloss: string; sense: number }>(
          `SELECT headword, gloss, sense FROM lexicon_glosses WHERE headword = ANY ($1::text[]) ORDER BY headword, sense, gloss COLLATE "C"`,
          [headwords],
        );
        for (const r of g) {
          let list = glosses.get(r.headword);
          if (!list) glosses.set(r.headword, (list = []));
          list.push([r.gloss, r.sense]);
        }
      }
      yield docs.map(({ id, headwords: words, ...d }) => ({
        ...d,
        chunks: chunks.get(id) ?? [],
        ...(words === null ? {} : { lexicon: words.map((headword) => ({ headword, glosses: glosses.get(headword) ?? [] })) }),
      }));
      after = docs.at(-1)!.path;
    }
  }

  async dumpEmbedders(): Promise<EmbedderInfo[]> {
    return this.db.query<EmbedderInfo>('SELECT fingerprint, provider, model, dims FROM embedders ORDER BY fingerprint COLLATE "C"');
  }

  async *dumpVectors(fingerprint: string, batch: number): AsyncIterable<VectorRecord[]> {
    for (let after = ''; ; ) {
      const rows = await this.db.query<{ textHash: string; e: Buffer }>(
        `SELECT text_hash AS "textHash", vector_send(embedding) AS e FROM vectors
         WHERE fingerprint = $1 AND text_hash COLLATE "C" > $2 ORDER BY text_hash COLLATE "C" LIMIT $3`,
        [fingerprint, after, batch],
      );
      if (!rows.length) return;
      yield rows.map((r) => ({ textHash: r.textHash, vector: decodeVectorSend(r.e) }));
      after = rows.at(-1)!.textHash;
    }
  }
}

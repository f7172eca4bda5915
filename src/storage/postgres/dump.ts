import type { DocumentRecord, EmbedderInfo } from '../../core/types.ts';
import type { IndexDump, SourceDump, VectorRecord } from '../roles.ts';
import type { PgDb } from './db.ts';
import { decodeVectorSend } from './vectors.ts';
import { dumpedDocuments, headwordsOf, pagesAfter, type ChunkRow, type DocumentRow, type GlossRow } from '../dump-pages.ts';

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
    const rows = (after: string) =>
      this.db.query<DocumentRow>(
        `SELECT d.id, d.path, d.content_hash AS "contentHash", d.stamp, d.size, d.title, d.metadata, d.chunker, l.headwords
         FROM documents d JOIN sources s ON s.id = d.source_id LEFT JOIN lexicon_docs l ON l.document_id = d.id
         WHERE s.name = $1 AND d.path COLLATE "C" > $2 ORDER BY d.path COLLATE "C" LIMIT $3`,
        [source, after, batch],
      );
    for await (const docs of pagesAfter(rows, (d) => d.path)) {
      const chunks = await this.db.query<ChunkRow>(
        `SELECT c.document_id AS "documentId", c.ordinal, c.key, c.heading, c.content, c.text, c.text_hash AS "textHash", c.tokens,
                c.metadata, c.start_line AS "startLine", c.end_line AS "endLine", c.terms,
                coalesce((SELECT string_agg(u.lexeme, ' ' ORDER BY p) FROM unnest(c.head) u, unnest(u.positions) p), '') AS "headTerms"
         FROM chunks c WHERE c.document_id = ANY ($1::bigint[]) ORDER BY c.document_id, c.ordinal`,
        [docs.map((d) => d.id)],
      );
      const words = headwordsOf(docs);
      const glosses = words.length
        ? await this.db.query<GlossRow>(
            `SELECT headword, gloss, sense FROM lexicon_glosses WHERE headword = ANY ($1::text[]) ORDER BY headword, sense, gloss COLLATE "C"`,
            [words],
          )
        : [];
      yield dumpedDocuments(docs, chunks, glosses);
    }
  }

  async dumpEmbedders(): Promise<EmbedderInfo[]> {
    return this.db.query<EmbedderInfo>('SELECT fingerprint, provider, model, dims FROM embedders ORDER BY fingerprint COLLATE "C"');
  }

  async *dumpVectors(fingerprint: string, batch: number): AsyncIterable<VectorRecord[]> {
    const rows = (after: string) =>
      this.db.query<{ textHash: string; e: Buffer }>(
        `SELECT text_hash AS "textHash", vector_send(embedding) AS e FROM vectors
         WHERE fingerprint = $1 AND text_hash COLLATE "C" > $2 ORDER BY text_hash COLLATE "C" LIMIT $3`,
        [fingerprint, after, batch],
      );
    for await (const page of pagesAfter(rows, (r) => r.textHash)) yield page.map((r) => ({ textHash: r.textHash, vector: decodeVectorSend(r.e) }));
  }
}

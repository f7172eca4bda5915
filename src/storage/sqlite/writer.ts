import type { Database } from 'better-sqlite3';
import { failpoint } from '../../core/failpoint.ts';
import type { DocumentRecord, EmbedderInfo, LexiconEntry, StoredDocument } from '../../core/types.ts';
import type { IndexWriter, SourceInfo, SourceState, TextToRefill, VectorRecord } from '../roles.ts';
import { encodeVector } from './blob.ts';
import { codeWriter, refreshCodePack } from './codes.ts';
import { bumpGeneration, now, slices } from './connection.ts';
import { listSources } from './sources.ts';
import { readGeneration, vectorCount } from './statements.ts';

export class SqliteIndexWriter implements IndexWriter {
  constructor(
    readonly db: Database,
    /** Dry runs read a snapshot and write nothing, not even source rows. */
    readonly dryRun = false,
  ) {}

  async ensureSource(info: SourceInfo): Promise<SourceState> {
    if (!this.dryRun) {
      this.db
        .prepare(
          `INSERT INTO sources (name, kind, url, branch) VALUES (@name, @kind, @url, @branch)
           ON CONFLICT(name) DO UPDATE SET kind = excluded.kind, url = excluded.url, branch = excluded.branch`,
        )
        .run(info);
    }
    return listSources(this.db, info.name)[0] ?? { ...info, commit: null, indexedAt: null, documents: 0, chunks: 0 };
  }

  async setSourceCommit(name: string, commit: string | null, indexedAt: string, listing: string | null = null): Promise<void> {
    this.db.prepare('UPDATE sources SET commit_sha = ?, indexed_at = ?, listing = ? WHERE name = ?').run(commit, indexedAt, listing, name);
  }

  async sourceListing(name: string): Promise<{ commit: string | null; listing: string | null } | null> {
    return (this.db.prepare("SELECT commit_sha AS 'commit', listing FROM sources WHERE name = ?").get(name) ?? null) as {
      commit: string | null;
      listing: string | null;
    } | null;
  }

  async forgetSourceListing(name: string): Promise<void> {
    if (!this.dryRun) this.db.prepare('UPDATE sources SET listing = NULL WHERE name = ? AND listing IS NOT NULL').run(name);
  }

  async listDocuments(source: string): Promise<StoredDocument[]> {
    return this.db
      .prepare(
        `SELECT d.path, d.content_hash AS contentHash, d.stamp, d.size, d.chunker
         FROM documents d JOIN sources s ON s.id = d.source_id WHERE s.name = ?`,
      )
      .all(source) as StoredDocument[];
  }

  async registerEmbedder(info: EmbedderInfo): Promise<void> {
    this.db
      .prepare(
        `INSERT OR IGNORE INTO embedders (fingerprint, provider, model, dims, created_at)
         VALUES (@fingerprint, @provider, @model, @dims, @createdAt)`,
      )
      .run({ ...info, createdAt: now() });
  }

  async missingVectors(fingerprint: string, textHashes: Iterable<string>): Promise<Set<string>> {
    const missing = new Set(textHashes);
    for (const part of slices([...missing])) {
      const found = this.db
        .prepare(
          `SELECT text_hash FROM vectors INDEXED BY vectors_key WHERE fingerprint = ? AND text_hash IN (${part.map(() => '?').join(',')})`,
        )
        .pluck()
        .all(fingerprint, ...part) as string[];
      for (const h of found) missing.delete(h);
    }
    return missing;
  }

  async storedTextsMissingVectors(source: string, fingerprint: string): Promise<TextToRefill[]> {
    // The usual answer is "none", for every source of a run and every run until chunks or vectors
    // change: once the check below finds none, the generation and the fingerprint's vector count
    // are remembered in meta, and later calls with both unchanged skip it (a run with nothing new
    // then reads no chunk index at all).
    const generation = readGeneration(this.db);
    const stored = vectorCount(this.db, fingerprint);
    const seen = this.db.prepare('SELECT 1 FROM vectors_complete WHERE fingerprint = ? AND generation = ? AND vectors = ?');
    if (seen.get(fingerprint, generation, stored)) return [];
    // Decided from the text_hash index alone (covering, no row reads) before touching the chunk
    // rows, whose texts make a full scan cost ~100 ms.
    const any = this.db
      .prepare(
        `SELECT 1 FROM chunks c INDEXED BY chunks_text_hash
         WHERE NOT EXISTS (SELECT 1 FROM vectors v INDEXED BY vectors_key WHERE v.fingerprint = ? AND v.text_hash = c.text_hash) LIMIT 1`,
      )
      .get(fingerprint);
    if (!any) {
      if (!this.dryRun) {
        this.db.prepare('INSERT OR REPLACE INTO vectors_complete (fingerprint, generation, vectors) VALUES (?, ?, ?)').run(fingerprint, generation, stored);
      }
      return [];
    }
    return this.db
      .prepare(
        `SELECT d.path, c.text_hash AS textHash, c.text, c.tokens
         FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id
         WHERE s.name = ? AND NOT EXISTS (SELECT 1 FROM vectors v INDEXED BY vectors_key WHERE v.fingerprint = ? AND v.text_hash = c.text_hash)`,
      )
      .all(source, fingerprint) as TextToRefill[];
  }

  async refreshCodePack(fingerprint: string): Promise<boolean> {
    return refreshCodePack(this.db, fingerprint);
  }

  async putVectors(fingerprint: string, vectors: VectorRecord[]): Promise<void> {
    const insert = this.db.prepare(
      `INSERT OR REPLACE INTO vectors (fingerprint, text_hash, dims, embedding, created_at) VALUES (?, ?, ?, ?, ?)`,
    );
    // Each vector's int8 code (what one-shot searches scan) goes in with it.
    const code = codeWriter(this.db);
    const at = now();
    this.db.transaction(() => {
      for (const v of vectors) {
        insert.run(fingerprint, v.textHash, v.vector.length, encodeVector(v.vector), at);
        code(fingerprint, v.textHash, v.vector);
      }
      bumpGeneration(this.db);
    })();
  }

  async writeDocuments(source: string, docs: DocumentRecord[], removePaths: string[] = []): Promise<void> {
    const sourceId = this.db.prepare('SELECT id FROM sources WHERE name = ?').pluck().get(source) as number | undefined;
    if (sourceId === undefined) throw new Error(`unknown source ${source}`);
    const remove = this.db.prepare('DELETE FROM documents WHERE source_id = ? AND path = ?');
    const upsert = this.db.prepare(
      `INSERT INTO documents (source_id, path, content_hash, stamp, size, title, metadata, chunker, indexed_at)
       VALUES (@sourceId, @path, @contentHash, @stamp, @size, @title, @metadata, @chunker, @at)
       ON CONFLICT(source_id, path) DO UPDATE SET content_hash = excluded.content_hash, stamp = excluded.stamp,
         size = excluded.size, title = excluded.title, metadata = excluded.metadata, chunker = excluded.chunker,
         indexed_at = excluded.indexed_at
       RETURNING id`,
    );
    const clear = this.db.prepare('DELETE FROM chunks WHERE document_id = ?');
    const insertChunk = this.db.prepare(
      `INSERT INTO chunks (document_id, ordinal, key, heading, content, text, text_hash, tokens, metadata)
       VALUES (@documentId, @ordinal, @key, @heading, @content, @text, @textHash, @tokens, @metadata)`,
    );
    // Keyword index rows go in with their chunks (deletes follow by trigger): same transaction.
    const insertFts = this.db.prepare('INSERT INTO chunks_fts (rowid, head, body) VALUES (?, ?, ?)');
    // The document's lexicon row: removing it takes its headwords' df back by trigger (migration 007);
    // what written documents add is summed over the write and applied once per headword at its end.
    const clearLexicon = this.db.prepare('DELETE FROM lexicon_docs WHERE document_id = ?');
    const insertLexicon = this.db.prepare('INSERT INTO lexicon_docs (document_id, headwords) VALUES (?, ?)');
    const addDf = this.db
      .prepare('INSERT INTO lexicon_terms (headword, df) VALUES (?, ?) ON CONFLICT (headword) DO UPDATE SET df = df + excluded.df RETURNING df')
      .pluck();
    const insertGloss = this.db.prepare('INSERT OR IGNORE INTO lexicon_glosses (gloss, headword, sense) VALUES (?, ?, ?)');
    const added = new Map<string, { n: number; entry: LexiconEntry }>();
    const applyLexicon = () => {
      for (const [h, { n, entry }] of added) {
        // df equal to what this write added: the headword was not in the lexicon before (or left it during the write).
        if ((addDf.get(h, n) as number) === n) for (const [gloss, sense] of entry.glosses) insertGloss.run(gloss, h, sense);
      }
      added.clear();
    };
    const at = now();
    const writeOne = (d: DocumentRecord) => {
      const { id } = upsert.get({
        sourceId,
        path: d.path,
        contentHash: d.contentHash,
        stamp: d.stamp,
        size: d.size,
        title: d.title,
        metadata: JSON.stringify(d.metadata),
        chunker: d.chunker,
        at,
      }) as { id: number };
      clear.run(id);
      clearLexicon.run(id);
      if (d.lexicon?.length) {
        insertLexicon.run(id, JSON.stringify(d.lexicon.map((e) => e.headword)));
        for (const e of d.lexicon) {
          const a = added.get(e.headword);
          if (a) a.n++;
          else added.set(e.headword, { n: 1, entry: e });
        }
      }
      for (const c of d.chunks) {
        const { terms, headTerms, ...row } = c;
        const { lastInsertRowid } = insertChunk.run({ ...row, documentId: id, metadata: JSON.stringify(c.metadata) });
        insertFts.run(lastInsertRowid, headTerms, terms);
      }
      failpoint('in-documents');
    };
    const chunks = docs.reduce((n, d) => n + d.chunks.length, 0);
    if (chunks <= CHUNKS_PER_SLICE) {
      this.db.transaction(() => {
        for (const p of removePaths) remove.run(sourceId, p);
        for (const d of docs) writeOne(d);
        applyLexicon();
        bumpGeneration(this.db);
      })();
      return;
    }
    // A whole source (a first index: thousands of chunks, over a second of work) is still one
    // transaction, so readers see all of it or none; between slices the event loop runs (the
    // daemon's /healthz and searches answer meanwhile, from their own connection's last commit).
    this.db.exec('BEGIN IMMEDIATE');
    try {
      for (const p of removePaths) remove.run(sourceId, p);
      let slice = 0;
      for (const d of docs) {
        writeOne(d);
        slice += d.chunks.length;
        if (slice >= CHUNKS_PER_SLICE) {
          slice = 0;
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      applyLexicon();
      bumpGeneration(this.db);
      this.db.exec('COMMIT');
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw err;
    }
  }
}

/** Chunks written between two yields to the event loop (tens of ms of work, long classics chunks included). */
const CHUNKS_PER_SLICE = 100;

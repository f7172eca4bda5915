import type { Database, Statement } from 'better-sqlite3';
import { failpoint } from '../../core/failpoint.ts';
import type { ChunkRecord, DocumentRecord, EmbedderInfo, LexiconEntry, StoredDocument } from '../../core/types.ts';
import type { DocumentStamp, DocumentWrite, IndexWriter, RefillPage, SourceInfo, SourceState, TextToRefill, VectorRecord } from '../roles.ts';
import { encodeVector } from './blob.ts';
import { codeWriter } from './codes.ts';
import { refreshCodePack } from './code-packs.ts';
import { compactKeywordIndex } from './keyword-segments.ts';
import { bumpGeneration, now, slices } from './connection.ts';
import { listSources } from './sources.ts';
import { readGeneration, vectorCount, type SqliteConnection } from './statements.ts';
import { writeInOne } from '../document-write.ts';

export class SqliteIndexWriter implements IndexWriter {
  constructor(
    private readonly c: SqliteConnection,
    /** Dry runs read a snapshot and write nothing, not even source rows. */
    readonly dryRun = false,
  ) {}

  private get db(): Database {
    return this.c.db;
  }

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

  async forgetSource(name: string): Promise<boolean> {
    const id = this.db.prepare('SELECT id FROM sources WHERE name = ?').pluck().get(name) as number | undefined;
    if (id === undefined || this.dryRun) return id !== undefined;
    // Its packed codes go with it: a later source could be given the same id.
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM vector_code_packs WHERE source_id = ?').run(id);
      this.db.prepare('DELETE FROM sources WHERE id = ?').run(id);
    })();
    return true;
  }

  async listDocuments(source: string): Promise<StoredDocument[]> {
    return this.db
      .prepare(
        `SELECT d.path, d.content_hash AS contentHash, d.stamp, d.size, d.chunker
         FROM documents d JOIN sources s ON s.id = d.source_id WHERE s.name = ?`,
      )
      .all(source) as StoredDocument[];
  }

  async scanStoredTexts(source: string, sink: (path: string, textHash: string) => void): Promise<void> {
    const rows = this.db
      .prepare(
        `SELECT d.path, c.text_hash FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id
         WHERE s.name = ?`,
      )
      .raw()
      .iterate(source) as IterableIterator<[string, string]>;
    for (const [path, textHash] of rows) sink(path, textHash);
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

  async storedTextsMissingVectors(source: string, fingerprint: string, page?: RefillPage): Promise<TextToRefill[]> {
    // A later page: the first one found some, and the memo below has nothing to say.
    if (page && page.after > 0) return this.textsMissingVectors(source, fingerprint, page);
    // The usual answer is "none", for every source of a run and every run until chunks or vectors
    // change: once the check below finds none, the generation and the fingerprint's vector count
    // are remembered in meta, and later calls with both unchanged skip it (a run with nothing new
    // then reads no chunk index at all).
    const generation = readGeneration(this.c);
    const stored = vectorCount(this.c, fingerprint);
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
    return this.textsMissingVectors(source, fingerprint, page);
  }

  private textsMissingVectors(source: string, fingerprint: string, page?: RefillPage): TextToRefill[] {
    // CROSS JOIN keeps chunks the outer loop, walked by rowid from the cursor: a page reads only
    // its rows (joined the other way, every page sorted the whole source's rows).
    return this.db
      .prepare(
        `SELECT d.path, c.text_hash AS textHash, c.text, c.tokens, c.id AS cursor
         FROM chunks c CROSS JOIN documents d ON d.id = c.document_id CROSS JOIN sources s ON s.id = d.source_id
         WHERE s.name = ? AND c.id > ? AND NOT EXISTS (SELECT 1 FROM vectors v INDEXED BY vectors_key WHERE v.fingerprint = ? AND v.text_hash = c.text_hash)
         ORDER BY c.id LIMIT ?`,
      )
      .all(source, page?.after ?? 0, fingerprint, page?.limit ?? -1) as TextToRefill[];
  }

  async refreshCodePack(fingerprint: string): Promise<boolean> {
    const wrote = await refreshCodePack(this.c, fingerprint);
    // The run's end is the keyword index's upkeep too: its segments merged once they pile up.
    await compactKeywordIndex(this.c.db);
    return wrote;
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
    return writeInOne(this, source, removePaths, [docs]);
  }

  async beginDocuments(source: string): Promise<DocumentWrite> {
    const sourceId = this.db.prepare('SELECT id FROM sources WHERE name = ?').pluck().get(source) as number | undefined;
    if (sourceId === undefined) throw new Error(`unknown source ${source}`);
    return new SqliteDocumentWrite(this.db, sourceId);
  }
}

/**
 * Documents of one source written in one transaction, fed in batches: readers (their own
 * connections) see all of it or none. Between slices of a batch the event loop runs (the daemon's
 * /healthz and searches answer meanwhile, from their connection's last commit); SQLite spills the
 * transaction's pages to the WAL, so a large write does not grow the process.
 */
class SqliteDocumentWrite implements DocumentWrite {
  private readonly remover: Statement;
  private readonly upsert: Statement;
  private readonly clear: Statement;
  private readonly insertChunk: Statement;
  private readonly insertFts: Statement;
  private readonly clearLexicon: Statement;
  private readonly insertLexicon: Statement;
  private readonly addDf: Statement;
  private readonly insertGloss: Statement;
  private readonly flushFts: Statement;
  private readonly at = now();
  /** When the current stretch of synchronous writing should give the event loop a turn. */
  private resumeBy = performance.now() + SLICE_MS;
  /** Keyword text (chars) inserted since FTS5's pending terms were last flushed. */
  private ftsPending = 0;

  constructor(
    private readonly db: Database,
    private readonly sourceId: number,
  ) {
    this.remover = db.prepare('DELETE FROM documents WHERE source_id = ? AND path = ?');
    this.upsert = db.prepare(
      `INSERT INTO documents (source_id, path, content_hash, stamp, size, title, metadata, chunker, indexed_at, media_type)
       VALUES (@sourceId, @path, @contentHash, @stamp, @size, @title, @metadata, @chunker, @at, @mediaType)
       ON CONFLICT(source_id, path) DO UPDATE SET content_hash = excluded.content_hash, stamp = excluded.stamp,
         size = excluded.size, title = excluded.title, metadata = excluded.metadata, chunker = excluded.chunker,
         indexed_at = excluded.indexed_at, media_type = excluded.media_type
       RETURNING id`,
    );
    this.clear = db.prepare('DELETE FROM chunks WHERE document_id = ?');
    this.insertChunk = db.prepare(
      `INSERT INTO chunks (document_id, ordinal, key, heading, content, text, text_hash, tokens, metadata, start_line, end_line)
       VALUES (@documentId, @ordinal, @key, @heading, @content, @text, @textHash, @tokens, @metadata, @startLine, @endLine)`,
    );
    // Keyword index rows go in with their chunks (deletes follow by trigger): same transaction.
    this.insertFts = db.prepare('INSERT INTO chunks_fts (rowid, head, body) VALUES (?, ?, ?)');
    // The document's lexicon row: removing it takes its headwords' df back by trigger (migration 007);
    // what a batch of written documents adds is summed and applied once per headword at its end.
    this.clearLexicon = db.prepare('DELETE FROM lexicon_docs WHERE document_id = ?');
    this.insertLexicon = db.prepare('INSERT INTO lexicon_docs (document_id, headwords) VALUES (?, ?)');
    this.addDf = db
      .prepare('INSERT INTO lexicon_terms (headword, df) VALUES (?, ?) ON CONFLICT (headword) DO UPDATE SET df = df + excluded.df RETURNING df')
      .pluck();
    this.insertGloss = db.prepare('INSERT OR IGNORE INTO lexicon_glosses (gloss, headword, sense) VALUES (?, ?, ?)');
    this.flushFts = db.prepare("INSERT INTO chunks_fts (chunks_fts) VALUES ('flush')");
    db.exec('BEGIN IMMEDIATE');
  }

  async remove(paths: string[]): Promise<void> {
    this.guarded(() => {
      for (const p of paths) this.remover.run(this.sourceId, p);
    });
  }

  async restamp(stamps: DocumentStamp[]): Promise<void> {
    const set = this.db.prepare('UPDATE documents SET stamp = ? WHERE source_id = ? AND path = ?');
    this.guarded(() => {
      for (const s of stamps) set.run(s.stamp, this.sourceId, s.path);
    });
  }

  async write(docs: DocumentRecord[]): Promise<void> {
    const added = new Map<string, { n: number; entry: LexiconEntry }>();
    for (const d of docs) {
      const id = this.guarded(() => this.writeDocumentRow(d, added));
      if (performance.now() >= this.resumeBy) await this.pause();
      for (const c of d.chunks) {
        this.guarded(() => this.writeChunk(id, c));
        if (performance.now() >= this.resumeBy) await this.pause();
      }
      this.guarded(() => failpoint('in-documents'));
    }
    // A first batch brings thousands of headwords: this too gives the event loop its turns.
    for (const [h, { n, entry }] of added) {
      this.guarded(() => {
        // Glosses go in when the headword enters the lexicon: its df is what this batch added.
        if ((this.addDf.get(h, n) as number) === n) for (const [gloss, sense] of entry.glosses) this.insertGloss.run(gloss, h, sense);
      });
      if (performance.now() >= this.resumeBy) await this.pause();
    }
  }

  /**
   * Gives the event loop a turn. The keyword index's pending terms are written out first, so the
   * COMMIT (or FTS5's own flush, once they reach a megabyte) never writes a long run's worth in
   * one synchronous step.
   */
  private async pause(): Promise<void> {
    if (this.ftsPending >= FTS_FLUSH_CHARS) {
      this.guarded(() => this.flushFts.run());
      this.ftsPending = 0;
    }
    await new Promise((resolve) => setImmediate(resolve));
    this.resumeBy = performance.now() + SLICE_MS;
  }

  async commit(): Promise<void> {
    // The keyword index's last pending terms written apart from the COMMIT, a turn between.
    if (this.ftsPending) {
      this.ftsPending = FTS_FLUSH_CHARS;
      await this.pause();
    }
    this.guarded(() => {
      bumpGeneration(this.db);
      this.db.exec('COMMIT');
    });
  }

  async rollback(): Promise<void> {
    if (this.db.inTransaction) this.db.exec('ROLLBACK');
  }

  /** Runs `fn`; a failure rolls the whole write back before it is rethrown. */
  private guarded<T>(fn: () => T): T {
    if (!this.db.inTransaction) throw new Error('the document write is already finished');
    try {
      return fn();
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw err;
    }
  }

  /** The document's row, its old chunks and lexicon row removed; its lexicon headwords counted into `added`. */
  private writeDocumentRow(d: DocumentRecord, added: Map<string, { n: number; entry: LexiconEntry }>): number {
    const { id } = this.upsert.get({
      sourceId: this.sourceId,
      path: d.path,
      contentHash: d.contentHash,
      stamp: d.stamp,
      size: d.size,
      title: d.title,
      metadata: JSON.stringify(d.metadata),
      chunker: d.chunker,
      at: this.at,
      mediaType: d.mediaType ?? null,
    }) as { id: number };
    this.clear.run(id);
    this.clearLexicon.run(id);
    if (d.lexicon?.length) {
      this.insertLexicon.run(id, JSON.stringify(d.lexicon.map((e) => e.headword)));
      for (const e of d.lexicon) {
        const a = added.get(e.headword);
        if (a) a.n++;
        else added.set(e.headword, { n: 1, entry: e });
      }
    }
    return id;
  }

  private writeChunk(documentId: number, c: ChunkRecord): void {
    const { terms, headTerms, ...row } = c;
    const { lastInsertRowid } = this.insertChunk.run({
      ...row,
      documentId,
      metadata: JSON.stringify(c.metadata),
      startLine: c.startLine ?? null,
      endLine: c.endLine ?? null,
    });
    this.insertFts.run(lastInsertRowid, headTerms, terms);
    this.ftsPending += terms.length + headTerms.length;
  }
}

/** Longest stretch of writing between two turns of the event loop. */
const SLICE_MS = 20;
/**
 * Keyword text written between two flushes of FTS5's pending terms (each flush makes a segment its
 * automerge folds in later): a flush of this much takes tens of ms; FTS5's own, at a megabyte of
 * pending terms, several times that.
 */
const FTS_FLUSH_CHARS = 256 * 1024;

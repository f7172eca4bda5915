import BetterSqlite3, { type Database } from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { mkdirSync, existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrate, listMigrations, appliedVersions } from './migrate.ts';
import { encodeVector, decodeVector } from './blob.ts';
import { bumpGeneration, ftsStale, refreshFts } from './fts.ts';
import { filterSql, registerGlob } from './filter.ts';
import { indexText } from '../../core/text/analyzer.ts';
import type {
  ChunkFilter,
  ChunkHit,
  DocumentRecord,
  EmbedderInfo,
  ExportRow,
  LockAttempt,
  LockHolder,
  RunFinish,
  RunRecord,
  RunSourceRecord,
  RunStart,
  SourceInfo,
  SourceState,
  StatusReport,
  Store,
  StoredDocument,
  StoredHit,
  KeywordQuery,
  VectorQuery,
  VectorRecord,
  VectorSet,
} from '../roles.ts';

export interface OpenOptions {
  /** A read-only connection that sees later commits (searchers). */
  readonly?: boolean;
  /**
   * A private in-memory copy of the index as it is now (dry runs): nothing on disk is created or
   * changed, not even the -wal/-shm files a read-only connection would leave. A missing file gives
   * an empty index.
   */
  snapshot?: boolean;
}

function prepare(db: Database): Database {
  db.pragma('foreign_keys = ON');
  sqliteVec.load(db);
  registerGlob(db);
  return db;
}

/** Opens a connection with the project's pragmas, sqlite-vec and the glob function loaded. */
export function openDatabase(file: string, opts: OpenOptions = {}): Database {
  if (opts.snapshot) {
    if (!existsSync(file)) return migrated(prepare(new BetterSqlite3(':memory:')));
    if (!existsSync(file + '-wal')) {
      const bytes = readFileSync(file);
      // Header bytes 18-19 say "WAL"; an in-memory copy must be told it is a rollback-journal file.
      if (bytes.length >= 20) bytes[18] = bytes[19] = 1;
      return migrated(prepare(new BetterSqlite3(bytes)));
    }
    // A writer is active (its WAL holds recent commits): read through it, read-only.
    return prepare(new BetterSqlite3(file, { readonly: true, fileMustExist: true, timeout: 10_000 }));
  }
  if (opts.readonly) {
    if (!existsSync(file)) throw new Error(`no index at ${file}`);
    // A reader of an index made by an older version: upgrade it once (migrations, FTS backfill).
    if (needsUpgrade(file)) openDatabase(file).close();
    return prepare(new BetterSqlite3(file, { readonly: true, fileMustExist: true, timeout: 10_000 }));
  }
  mkdirSync(dirname(file), { recursive: true });
  const db = new BetterSqlite3(file, { timeout: 10_000 });
  db.pragma('journal_mode = WAL');
  // NORMAL is safe in WAL mode: a power cut can lose the last commit, never corrupt the file.
  db.pragma('synchronous = NORMAL');
  return migrated(prepare(db));
}

function migrated(db: Database): Database {
  migrate(db);
  refreshFts(db);
  return db;
}

function needsUpgrade(file: string): boolean {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    const done = appliedVersions(db);
    if (listMigrations().some((m) => !done.has(m.version))) return true;
    return ftsStale(db);
  } finally {
    db.close();
  }
}

type HitRow = Omit<StoredHit, 'metadata'> & { metadata: string; docMetadata: string };
const HIT_COLUMNS = `c.id AS ref, c.key AS id, s.name AS source, d.path, d.title, c.heading, c.content, c.metadata,
  d.metadata AS docMetadata`;
/** Hit metadata: the document's fields (url, tags, added_at) overlaid with the chunk's own. */
const toHit = ({ docMetadata, ...r }: HitRow): StoredHit => ({
  ...r,
  metadata: { ...parseJson(docMetadata), ...parseJson(r.metadata) },
});
const HIT_JOINS = `JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id`;

const now = () => new Date().toISOString();
const parseJson = (s: string): Record<string, unknown> => JSON.parse(s) as Record<string, unknown>;

/** A chunk of at most SQLite's default variable limit for IN (…) lists. */
function* slices<T>(items: T[], size = 500): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

export class SqliteStore implements Store {
  readonly db: Database;
  private readonly readonly: boolean;

  constructor(file: string, opts: OpenOptions = {}) {
    this.db = openDatabase(file, opts);
    this.readonly = !!opts.readonly || !!opts.snapshot;
  }

  private sourceId(name: string): number | undefined {
    return this.db.prepare('SELECT id FROM sources WHERE name = ?').pluck().get(name) as number | undefined;
  }

  async ensureSource(info: SourceInfo): Promise<SourceState> {
    if (!this.readonly) {
      this.db
        .prepare(
          `INSERT INTO sources (name, kind, url, branch) VALUES (@name, @kind, @url, @branch)
           ON CONFLICT(name) DO UPDATE SET kind = excluded.kind, url = excluded.url, branch = excluded.branch`,
        )
        .run(info);
    }
    return (await this.getSource(info.name)) ?? { ...info, commit: null, indexedAt: null, documents: 0, chunks: 0 };
  }

  async getSource(name: string): Promise<SourceState | null> {
    return this.listSources().find((s) => s.name === name) ?? null;
  }

  private listSources(): SourceState[] {
    const rows = this.db
      .prepare(
        `SELECT s.name, s.kind, s.url, s.branch, s.commit_sha AS 'commit', s.indexed_at AS indexedAt,
                (SELECT count(*) FROM documents d WHERE d.source_id = s.id) AS documents,
                (SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.source_id = s.id) AS chunks
         FROM sources s ORDER BY s.name`,
      )
      .all() as SourceState[];
    return rows;
  }

  async setSourceCommit(name: string, commit: string | null, indexedAt: string): Promise<void> {
    this.db.prepare('UPDATE sources SET commit_sha = ?, indexed_at = ? WHERE name = ?').run(commit, indexedAt, name);
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
    const all = [...missing];
    for (const part of slices(all)) {
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

  async storedTextsMissingVectors(source: string, fingerprint: string): Promise<{ path: string; textHash: string; text: string; tokens: number }[]> {
    // The usual answer is "none": decide that from the text_hash index alone (covering, no row
    // reads) before touching the chunk rows, whose texts make a full scan cost ~100 ms.
    const any = this.db
      .prepare(
        `SELECT 1 FROM chunks c INDEXED BY chunks_text_hash
         WHERE NOT EXISTS (SELECT 1 FROM vectors v INDEXED BY vectors_key WHERE v.fingerprint = ? AND v.text_hash = c.text_hash) LIMIT 1`,
      )
      .get(fingerprint);
    if (!any) return [];
    return this.db
      .prepare(
        `SELECT d.path, c.text_hash AS textHash, c.text, c.tokens
         FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id
         WHERE s.name = ? AND NOT EXISTS (SELECT 1 FROM vectors v INDEXED BY vectors_key WHERE v.fingerprint = ? AND v.text_hash = c.text_hash)`,
      )
      .all(source, fingerprint) as { path: string; textHash: string; text: string; tokens: number }[];
  }

  async putVectors(fingerprint: string, vectors: VectorRecord[]): Promise<void> {
    const insert = this.db.prepare(
      `INSERT OR REPLACE INTO vectors (fingerprint, text_hash, dims, embedding, created_at) VALUES (?, ?, ?, ?, ?)`,
    );
    const at = now();
    this.db.transaction(() => {
      for (const v of vectors) insert.run(fingerprint, v.textHash, v.vector.length, encodeVector(v.vector), at);
      bumpGeneration(this.db);
    })();
  }

  async writeDocuments(source: string, docs: DocumentRecord[], removePaths: string[] = []): Promise<void> {
    const sourceId = this.sourceId(source);
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
    const insertFts = this.db.prepare('INSERT INTO chunks_fts (rowid, tokens) VALUES (?, ?)');
    const at = now();
    this.db.transaction(() => {
      for (const p of removePaths) remove.run(sourceId, p);
      for (const d of docs) {
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
        for (const c of d.chunks) {
          const { lastInsertRowid } = insertChunk.run({ ...c, documentId: id, metadata: JSON.stringify(c.metadata) });
          insertFts.run(lastInsertRowid, indexText(c.text));
        }
      }
      bumpGeneration(this.db);
    })();
  }

  async searchVectors(q: VectorQuery): Promise<ChunkHit[]> {
    const filter = q.sources?.length ? `AND s.name IN (${q.sources.map(() => '?').join(',')})` : '';
    const rows = this.db
      .prepare(
        `SELECT c.key AS id, s.name AS source, d.path, d.title, c.heading, c.content, c.metadata,
                1 - vec_distance_cosine(v.embedding, ?) AS score
         FROM vectors v
         JOIN chunks c ON c.text_hash = v.text_hash
         JOIN documents d ON d.id = c.document_id
         JOIN sources s ON s.id = d.source_id
         WHERE v.fingerprint = ? ${filter}
         ORDER BY score DESC, c.id
         LIMIT ?`,
      )
      .all(encodeVector(q.vector), q.fingerprint, ...(q.sources ?? []), q.k) as (Omit<ChunkHit, 'metadata'> & {
      metadata: string;
    })[];
    return rows.map((r) => ({ ...r, metadata: parseJson(r.metadata) }));
  }

  async keywordSearch(q: KeywordQuery): Promise<StoredHit[]> {
    if (!q.tokens.length) return [];
    const f = filterSql(q.filter);
    const match = q.tokens.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ');
    const rows = this.db
      .prepare(
        `SELECT ${HIT_COLUMNS}, -bm25(chunks_fts) AS score
         FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid ${HIT_JOINS}
         WHERE chunks_fts MATCH ? AND ${f.sql}
         ORDER BY bm25(chunks_fts), c.id
         LIMIT ?`,
      )
      .all(match, ...f.params, q.k) as HitRow[];
    return rows.map(toHit);
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
      const generation = this.readGeneration();
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

  private readGeneration(): number {
    return (this.db.prepare("SELECT value FROM meta WHERE key = 'generation'").pluck().get() ?? 0) as number;
  }

  async generation(): Promise<number> {
    return this.readGeneration();
  }

  async startRun(run: RunStart): Promise<number> {
    const r = this.db
      .prepare(
        `INSERT INTO runs (trigger, started_at, status, fingerprint, forced) VALUES (?, ?, 'running', ?, ?) RETURNING id`,
      )
      .get(run.trigger, now(), run.fingerprint, run.forced ? 1 : 0) as { id: number };
    return r.id;
  }

  async finishRun(id: number, f: RunFinish): Promise<void> {
    const insertSource = this.db.prepare(
      `INSERT OR REPLACE INTO run_sources (run_id, source, status, commit_before, commit_after, added, changed, deleted,
         renamed, unchanged, skipped, chunks_total, chunks_embedded, chunks_reused, error)
       VALUES (@runId, @source, @status, @commitBefore, @commitAfter, @added, @changed, @deleted, @renamed, @unchanged,
         @skipped, @total, @toEmbed, @reused, @error)`,
    );
    this.db.transaction(() => {
      this.db
        .prepare(
          `UPDATE runs SET finished_at = ?, status = ?, embedded = ?, requests = ?, tokens = ?, retries = ?, error = ?
           WHERE id = ?`,
        )
        .run(now(), f.status, f.embedded, f.requests, f.tokens, f.retries ?? 0, f.error, id);
      for (const s of f.sources) {
        insertSource.run({ runId: id, ...s, ...s.documents, ...s.chunks });
      }
    })();
  }

  async abortStaleRuns(): Promise<number> {
    return this.db
      .prepare(`UPDATE runs SET status = 'aborted', finished_at = ?, error = 'interrupted' WHERE status = 'running'`)
      .run(now()).changes;
  }

  async tryLock(holder: LockHolder, isStale: (current: LockHolder) => boolean): Promise<LockAttempt> {
    // IMMEDIATE: the read and the takeover happen under SQLite's write lock, so two processes
    // racing for a stale lock cannot both win.
    return this.db
      .transaction((): LockAttempt => {
        const current = this.db
          .prepare(
            `SELECT token, pid, host, proc_start AS procStart, acquired_at AS acquiredAt, heartbeat_at AS heartbeatAt
             FROM index_lock WHERE id = 1`,
          )
          .get() as LockHolder | undefined;
        if (current && !isStale(current)) return { acquired: false, holder: current };
        this.db
          .prepare(
            `INSERT OR REPLACE INTO index_lock (id, token, pid, host, proc_start, acquired_at, heartbeat_at)
             VALUES (1, @token, @pid, @host, @procStart, @acquiredAt, @heartbeatAt)`,
          )
          .run(holder);
        return { acquired: true, replaced: current ?? null };
      })
      .immediate();
  }

  async heartbeatLock(token: string): Promise<boolean> {
    return this.db.prepare('UPDATE index_lock SET heartbeat_at = ? WHERE token = ?').run(now(), token).changes === 1;
  }

  async releaseLock(token: string): Promise<void> {
    this.db.prepare('DELETE FROM index_lock WHERE token = ?').run(token);
  }

  async status(opts: { runs?: number } = {}): Promise<StatusReport> {
    const distinctTexts = this.db.prepare('SELECT count(DISTINCT text_hash) FROM chunks').pluck().get() as number;
    const coverage = this.db
      .prepare(
        `SELECT e.fingerprint, e.dims,
           (SELECT count(*) FROM vectors v INDEXED BY vectors_key WHERE v.fingerprint = e.fingerprint
              AND v.text_hash IN (SELECT text_hash FROM chunks)) AS covered,
           (SELECT count(*) FROM vectors v INDEXED BY vectors_key WHERE v.fingerprint = e.fingerprint) AS stored
         FROM embedders e ORDER BY e.created_at`,
      )
      .all() as StatusReport['coverage'];
    return { sources: this.listSources(), distinctTexts, coverage, runs: this.listRuns(opts.runs ?? 10) };
  }

  async recentRuns(limit: number): Promise<RunRecord[]> {
    return this.listRuns(limit);
  }

  private listRuns(limit: number): RunRecord[] {
    const runs = this.db
      .prepare(
        `SELECT id, trigger, status, started_at AS startedAt, finished_at AS finishedAt, fingerprint, forced,
                embedded, requests, tokens, retries, error
         FROM runs ORDER BY id DESC LIMIT ?`,
      )
      .all(limit) as (Omit<RunRecord, 'sources' | 'forced'> & { forced: number })[];
    const perSource = this.db.prepare('SELECT * FROM run_sources WHERE run_id = ? ORDER BY source');
    return runs.map((r) => ({
      ...r,
      forced: r.forced === 1,
      sources: (perSource.all(r.id) as Record<string, unknown>[]).map(
        (s): RunSourceRecord => ({
          source: s.source as string,
          status: s.status as RunSourceRecord['status'],
          commitBefore: s.commit_before as string | null,
          commitAfter: s.commit_after as string | null,
          documents: {
            added: s.added as number,
            changed: s.changed as number,
            deleted: s.deleted as number,
            renamed: s.renamed as number,
            unchanged: s.unchanged as number,
            skipped: s.skipped as number,
          },
          chunks: {
            total: s.chunks_total as number,
            toEmbed: s.chunks_embedded as number,
            reused: s.chunks_reused as number,
          },
          error: s.error as string | null,
        }),
      ),
    }));
  }

  async gc(opts: { keepOnly?: string } = {}): Promise<{ vectors: number }> {
    return this.db.transaction(() => {
      let vectors = this.db.prepare('DELETE FROM vectors WHERE text_hash NOT IN (SELECT text_hash FROM chunks)').run().changes;
      if (opts.keepOnly !== undefined) {
        vectors += this.db.prepare('DELETE FROM vectors WHERE fingerprint != ?').run(opts.keepOnly).changes;
        this.db.prepare('DELETE FROM embedders WHERE fingerprint != ?').run(opts.keepOnly);
      }
      return { vectors };
    })();
  }

  async *exportChunks(source?: string): AsyncIterable<ExportRow> {
    const rows = this.db
      .prepare(
        `SELECT c.key AS id, s.name AS source, d.path, c.heading, c.content, c.metadata, c.text_hash AS textHash
         FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id
         ${source ? 'WHERE s.name = ?' : ''} ORDER BY s.name, d.path, c.ordinal`,
      )
      .iterate(...(source ? [source] : [])) as IterableIterator<Omit<ExportRow, 'metadata'> & { metadata: string }>;
    for (const r of rows) yield { ...r, metadata: parseJson(r.metadata) };
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

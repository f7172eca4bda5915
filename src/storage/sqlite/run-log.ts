import type { Database } from 'better-sqlite3';
import type { SqliteConnection } from './statements.ts';
import type { WorkCounts } from '../../core/types.ts';
import type {
  ExportRow,
  LockAttempt,
  LockHolder,
  RunFinish,
  RunLog,
  RunRecord,
  RunStart,
  StatusReport,
} from '../roles.ts';
import { decodeVector } from './blob.ts';
import { now, parseJson } from './connection.ts';
import { listSources } from './sources.ts';
import { runSourceRecord, RUN_SKIPPED_FILES_KEPT } from '../run-records.ts';

/** The last `limit` runs, newest first, each with its per-source records. */
export function listRuns(db: Database, limit: number): RunRecord[] {
  const runs = db
    .prepare(
      `SELECT id, trigger, status, started_at AS startedAt, finished_at AS finishedAt, fingerprint, forced,
              texts_embedded AS textsEmbedded, requests, tokens, retries, error
       FROM runs ORDER BY id DESC LIMIT ?`,
    )
    .all(limit) as (Omit<RunRecord, 'sources' | 'forced'> & { forced: number })[];
  const perSource = db.prepare('SELECT * FROM run_sources WHERE run_id = ? ORDER BY source');
  return runs.map((r) => ({
    ...r,
    forced: r.forced === 1,
    sources: (perSource.all(r.id) as Record<string, unknown>[]).map((s) => runSourceRecord(s, parseJson(s.planned as string) as Partial<WorkCounts>, s.skipped_files ? JSON.parse(s.skipped_files as string) : [])),
  }));
}

export class SqliteRunLog implements RunLog {
  constructor(private readonly c: SqliteConnection) {}

  private get db(): Database {
    return this.c.db;
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
         renamed, unchanged, skipped, chunks_written, chunks_reused, texts_embedded, planned, skipped_files, error)
       VALUES (@runId, @source, @status, @commitBefore, @commitAfter, @added, @changed, @deleted, @renamed, @unchanged,
         @skipped, @chunks, @chunksReused, @texts, @planned, @skippedFiles, @error)`,
    );
    this.db.transaction(() => {
      this.db
        .prepare(
          `UPDATE runs SET finished_at = ?, status = ?, texts_embedded = ?, requests = ?, tokens = ?, retries = ?, error = ?
           WHERE id = ?`,
        )
        .run(now(), f.status, f.textsEmbedded, f.requests, f.tokens, f.retries ?? 0, f.error, id);
      for (const s of f.sources) {
        insertSource.run({
          runId: id,
          source: s.source,
          status: s.status,
          commitBefore: s.commitBefore,
          commitAfter: s.commitAfter,
          ...s.written.documents,
          chunks: s.written.chunks,
          chunksReused: s.written.chunksReused,
          texts: s.written.texts,
          planned: JSON.stringify(s.planned),
          skippedFiles: s.skippedFiles.length ? JSON.stringify(s.skippedFiles.slice(0, RUN_SKIPPED_FILES_KEPT)) : null,
          error: s.error,
        });
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
    return { sources: listSources(this.db), distinctTexts, coverage, runs: listRuns(this.db, opts.runs ?? 10) };
  }

  async recentRuns(limit: number): Promise<RunRecord[]> {
    return listRuns(this.db, limit);
  }

  async gc(opts: { keepOnly?: string; spareSince?: string } = {}): Promise<{ vectors: number }> {
    return this.db.transaction(() => {
      let vectors = this.db
        .prepare('DELETE FROM vectors WHERE text_hash NOT IN (SELECT text_hash FROM chunks) AND (? IS NULL OR created_at < ?)')
        .run(opts.spareSince ?? null, opts.spareSince ?? null).changes;
      if (opts.keepOnly !== undefined) {
        vectors += this.db.prepare('DELETE FROM vectors WHERE fingerprint != ?').run(opts.keepOnly).changes;
        this.db.prepare('DELETE FROM embedders WHERE fingerprint != ?').run(opts.keepOnly);
        this.db.prepare('DELETE FROM vector_code_packs WHERE fingerprint != ?').run(opts.keepOnly);
        this.db.prepare('DELETE FROM vector_code_columns WHERE fingerprint != ?').run(opts.keepOnly);
      }
      return { vectors };
    })();
  }

  async *exportChunks(source?: string, opts: { vectorsOf?: string } = {}): AsyncIterable<ExportRow> {
    const withVectors = opts.vectorsOf !== undefined;
    const params: string[] = [...(withVectors ? [opts.vectorsOf!] : []), ...(source ? [source] : [])];
    const rows = this.db
      .prepare(
        `SELECT c.key AS id, s.name AS source, d.path, c.heading, c.content, c.metadata, d.media_type AS mediaType, c.text_hash AS textHash
                ${withVectors ? ', v.embedding AS embedding' : ''}
         FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id
         ${withVectors ? 'LEFT JOIN vectors v ON v.fingerprint = ? AND v.text_hash = c.text_hash' : ''}
         ${source ? 'WHERE s.name = ?' : ''} ORDER BY s.name, d.path, c.ordinal`,
      )
      .iterate(...params) as IterableIterator<Omit<ExportRow, 'metadata'> & { metadata: string; mediaType: string | null; embedding?: Buffer | null }>;
    for (const { embedding, mediaType, ...r } of rows) {
      // The document's media type, as search results show it.
      const row: ExportRow = { ...r, metadata: { ...(mediaType ? { mediaType } : {}), ...parseJson(r.metadata) } };
      if (withVectors) row.vector = embedding ? decodeVector(embedding) : null;
      yield row;
    }
  }
}

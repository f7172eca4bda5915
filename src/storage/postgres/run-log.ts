import type pg from 'pg';
import type { WorkCounts } from '../../core/types.ts';
import type {
  ExportRow,
  LockAttempt,
  LockHolder,
  RunFinish,
  RunLog,
  RunRecord,
  RunSourceRecord,
  RunStart,
  StatusReport,
} from '../roles.ts';
import { StorageError } from '../errors.ts';
import { runSourceRecord } from '../run-records.ts';
import { workerIdentity } from '../../core/worker.ts';
import { insertRunSource } from './run-sources.ts';
import { ident, LOCK_SPACE, type PgDb } from './db.ts';
import { annIndexName, listSources, nowIso } from './writer.ts';
import { decodeVectorSend } from './vectors.ts';
import { PgSourceLeases } from './leases.ts';

const worker = () => {
  const w = workerIdentity();
  return [w.host, w.pid, w.started];
};

/** Who holds the lock when nothing says (a holder that has not written its row yet): describeHolder words it. */
const UNKNOWN_HOLDER: LockHolder = { token: '', pid: 0, host: '', procStart: null, acquiredAt: '', heartbeatAt: '' };

const HOLDER_COLUMNS = `token, pid, host, proc_start AS "procStart", acquired_at AS "acquiredAt", heartbeat_at AS "heartbeatAt"`;

/**
 * Runs, the run lock and housekeeping. The lock is a session advisory lock on a connection of its
 * own, held for the run: the server releases it when that connection ends, so a killed process
 * (on any machine) never leaves it taken. The index_lock row only says who holds it.
 */
export class PgRunLog implements RunLog {
  /** The lock's connection while we hold it, by token. */
  private held = new Map<string, pg.PoolClient>();
  /** The tokens among them that hold the lock shared (a worker's source run). */
  private readonly shared = new Set<string>();

  constructor(private readonly db: PgDb) {}

  async startRun(run: RunStart): Promise<number> {
    const [r] = await this.db.query<{ id: number }>(
      `INSERT INTO runs (trigger, started_at, status, fingerprint, forced, host, pid, worker_started, backend_pid)
       VALUES ($1, $2, 'running', $3, $4, $5, $6, $7, $8) RETURNING id`,
      [run.trigger, nowIso(), run.fingerprint, run.forced, ...worker(), this.db.runLockBackend],
    );
    return r!.id;
  }

  async finishRun(id: number, f: RunFinish): Promise<void> {
    await this.db.tx(async (c) => {
      await c.query(
        `UPDATE runs SET finished_at = $1, status = $2, texts_embedded = $3, requests = $4, tokens = $5, retries = $6, error = $7 WHERE id = $8`,
        [nowIso(), f.status, f.textsEmbedded, f.requests, f.tokens, f.retries ?? 0, f.error, id],
      );
      for (const s of f.sources) await insertRunSource(c, id, s);
    });
  }

  async abortStaleRuns(): Promise<number> {
    // Workers run side by side: a 'running' run was interrupted when the session that held its
    // share of the run lock holds it no more (killed, cut off, or a run from before workers).
    const r = await this.db.q.query(
      `UPDATE runs r SET status = 'aborted', finished_at = $1, error = 'interrupted'
       WHERE status = 'running' AND NOT EXISTS (
         SELECT 1 FROM pg_locks k WHERE k.locktype = 'advisory' AND k.granted AND k.pid = r.backend_pid AND k.classid = $2::bigint::oid)`,
      [nowIso(), LOCK_SPACE.run],
    );
    return r.rowCount ?? 0;
  }

  async tryLock(holder: LockHolder, _isStale: (current: LockHolder) => boolean, opts: { shared?: boolean } = {}): Promise<LockAttempt> {
    // The server judges staleness itself: a dead holder's session, and its lock, are gone. Source
    // runs share the lock (each source has its lease); whole-index work takes it alone.
    const shared = !!opts.shared;
    const c = await this.db.ownClient();
    let got = false;
    try {
      got = (await c.query<{ got: boolean }>(`SELECT pg_try_advisory_lock${shared ? '_shared' : ''}($1, hashtext($2)) AS got`, [LOCK_SPACE.run, this.db.schema])).rows[0]!.got;
      const [current] = (await c.query<LockHolder>(`SELECT ${HOLDER_COLUMNS} FROM index_lock WHERE id = 1`)).rows;
      if (!got) {
        this.db.releaseOwn(c);
        return { acquired: false, holder: current ?? (await this.runningHolder()) };
      }
      this.db.runLockBackend = (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      if (shared) {
        this.held.set(holder.token, c);
        this.shared.add(holder.token);
        this.watchSession(c, holder.token);
        return { acquired: true, replaced: null };
      }
      await c.query(
        `INSERT INTO index_lock (id, token, pid, host, proc_start, acquired_at, heartbeat_at) VALUES (1, $1, $2, $3, $4, $5, $6)
         ON CONFLICT (id) DO UPDATE SET token = excluded.token, pid = excluded.pid, host = excluded.host, proc_start = excluded.proc_start,
           acquired_at = excluded.acquired_at, heartbeat_at = excluded.heartbeat_at`,
        [holder.token, holder.pid, holder.host, holder.procStart, holder.acquiredAt, holder.heartbeatAt],
      );
      this.watchSession(c, holder.token);
      this.held.set(holder.token, c);
      // A row left by a holder whose session is gone (killed): replaced.
      return { acquired: true, replaced: current ?? null };
    } catch (err) {
      if (got) await c.query(`SELECT pg_advisory_unlock${shared ? '_shared' : ''}($1, hashtext($2))`, [LOCK_SPACE.run, this.db.schema]).catch(() => {});
      this.held.delete(holder.token);
      this.shared.delete(holder.token);
      this.db.runLockBackend = null;
      this.db.releaseOwn(c, err);
      throw this.db.wrap(err);
    }
  }

  /**
   * The session may end under us (server restart, network cut): that is a lost lock, which
   * heartbeatLock reports and writes refuse (assertLockHeld), not a crash.
   */
  private watchSession(c: pg.PoolClient, token: string): void {
    c.on('error', (err) => {
      if (this.held.get(token) !== c) return;
      this.held.delete(token);
      this.shared.delete(token);
      this.db.runLockBackend = null;
      this.db.releaseOwn(c, err);
      this.db.lockLost = new StorageError(
        'unreachable',
        `lost the connection holding the run lock of ${this.db.shown} (${err.message}): the run stops; the next run resumes`,
        { path: this.db.shown, cause: err },
      );
    });
  }

  /**
   * Who holds the lock when no index_lock row says (workers sharing it write none; an exclusive
   * holder writes its row just after taking the lock): the newest running run's worker.
   */
  private async runningHolder(): Promise<LockHolder> {
    const [r] = await this.db.query<{ host: string | null; pid: number | null; started_at: string }>(
      `SELECT host, pid, started_at FROM runs WHERE status = 'running' AND host IS NOT NULL ORDER BY id DESC LIMIT 1`,
    );
    return r ? { ...UNKNOWN_HOLDER, host: r.host!, pid: r.pid ?? 0, acquiredAt: r.started_at, heartbeatAt: r.started_at } : UNKNOWN_HOLDER;
  }

  async heartbeatLock(token: string): Promise<boolean> {
    const c = this.held.get(token);
    if (!c) return false;
    if (this.shared.has(token)) return true;
    try {
      return (await c.query('UPDATE index_lock SET heartbeat_at = $1 WHERE token = $2', [nowIso(), token])).rowCount === 1;
    } catch (err) {
      throw this.db.wrap(err);
    }
  }

  async releaseLock(token: string): Promise<void> {
    const c = this.held.get(token);
    if (!c) return;
    this.held.delete(token);
    const shared = this.shared.delete(token);
    this.db.runLockBackend = null;
    try {
      if (!shared) await c.query('DELETE FROM index_lock WHERE token = $1', [token]);
      await c.query(`SELECT pg_advisory_unlock${shared ? '_shared' : ''}($1, hashtext($2))`, [LOCK_SPACE.run, this.db.schema]);
      this.db.releaseOwn(c);
    } catch (err) {
      // Dropping the connection releases the lock on the server.
      this.db.releaseOwn(c, err);
      throw this.db.wrap(err);
    }
  }

  /** Releases a lock still held when the store closes (the connection's end would too). */
  async releaseAll(): Promise<void> {
    for (const token of [...this.held.keys()]) await this.releaseLock(token).catch(() => {});
  }

  async status(opts: { runs?: number } = {}): Promise<StatusReport> {
    const [d] = await this.db.query<{ n: number }>('SELECT count(DISTINCT text_hash) AS n FROM chunks');
    const coverage = await this.db.query<StatusReport['coverage'][number]>(
      `SELECT e.fingerprint, e.dims,
         (SELECT count(*) FROM vectors v WHERE v.fingerprint = e.fingerprint AND v.text_hash IN (SELECT text_hash FROM chunks)) AS covered,
         (SELECT count(*) FROM vectors v WHERE v.fingerprint = e.fingerprint) AS stored
       FROM embedders e ORDER BY e.created_at`,
    );
    const leases = await new PgSourceLeases(this.db).leases();
    return { sources: await listSources(this.db.q), distinctTexts: d!.n, coverage, runs: await this.recentRuns(opts.runs ?? 10), ...(leases.length ? { leases } : {}) };
  }

  async recentRuns(limit: number): Promise<RunRecord[]> {
    const runs = await this.db.query<Omit<RunRecord, 'sources'>>(
      `SELECT id, trigger, status, started_at AS "startedAt", finished_at AS "finishedAt", fingerprint, forced,
              texts_embedded AS "textsEmbedded", requests, tokens, retries, error,
              CASE WHEN host IS NULL THEN NULL ELSE jsonb_build_object('host', host, 'pid', pid) END AS worker
       FROM runs ORDER BY id DESC LIMIT $1`,
      [limit],
    );
    if (!runs.length) return [];
    const rows = await this.db.query<Record<string, unknown>>('SELECT * FROM run_sources WHERE run_id = ANY ($1::bigint[]) ORDER BY source', [
      runs.map((r) => r.id),
    ]);
    return runs.map((r) => ({
      ...r,
      sources: rows.filter((s) => s.run_id === r.id).map((s) => runSourceRecord(s, s.planned as Partial<WorkCounts>, (s.skipped_files as RunSourceRecord['skippedFiles'] | null) ?? [])),
    }));
  }

  async gc(opts: { keepOnly?: string; spareSince?: string } = {}): Promise<{ vectors: number }> {
    return this.db.tx(async (c) => {
      let vectors =
        (
          await c.query(
            `DELETE FROM vectors v WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.text_hash = v.text_hash)
             AND ($1::text IS NULL OR v.created_at < $1)`,
            [opts.spareSince ?? null],
          )
        ).rowCount ?? 0;
      if (opts.keepOnly !== undefined) {
        vectors += (await c.query('DELETE FROM vectors WHERE fingerprint <> $1', [opts.keepOnly])).rowCount ?? 0;
        await c.query('DELETE FROM vectors_complete WHERE fingerprint <> $1', [opts.keepOnly]);
        // Their HNSW indexes are partial on the fingerprint: empty now, dropped with the embedder.
        for (const r of (await c.query<{ fingerprint: string }>('DELETE FROM embedders WHERE fingerprint <> $1 RETURNING fingerprint', [opts.keepOnly])).rows) {
          await c.query(`DROP INDEX IF EXISTS ${ident(annIndexName(r.fingerprint))}`);
        }
      }
      return { vectors };
    });
  }

  async *exportChunks(source?: string, opts: { vectorsOf?: string } = {}): AsyncIterable<ExportRow> {
    const withVectors = opts.vectorsOf !== undefined;
    // Pages by (source, path, ordinal): no cursor held open between yields.
    let after: [string, string, number] | null = null;
    for (;;) {
      const rows: (Omit<ExportRow, 'vector'> & { embedding?: Buffer | null; ordinal: number })[] = await this.db.query(
        `SELECT c.key AS id, s.name AS source, d.path, c.ordinal, c.heading, c.content,
                jsonb_strip_nulls(jsonb_build_object('mediaType', d.media_type)) || c.metadata AS metadata, c.text_hash AS "textHash"
                ${withVectors ? ', vector_send(v.embedding) AS embedding' : ''}
         FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id
         ${withVectors ? 'LEFT JOIN vectors v ON v.fingerprint = $5 AND v.text_hash = c.text_hash' : ''}
         WHERE ($1::text IS NULL OR s.name = $1)
           AND ($2::text IS NULL OR (s.name COLLATE "C", d.path COLLATE "C", c.ordinal) > ($2::text COLLATE "C", $3::text COLLATE "C", $4::int))
         ORDER BY s.name COLLATE "C", d.path COLLATE "C", c.ordinal LIMIT 500`,
        [source ?? null, after?.[0] ?? null, after?.[1] ?? null, after?.[2] ?? null, ...(withVectors ? [opts.vectorsOf] : [])],
      );
      if (!rows.length) return;
      for (const { embedding, ordinal: _o, ...r } of rows) {
        const row: ExportRow = r;
        if (withVectors) row.vector = embedding ? decodeVectorSend(embedding) : null;
        yield row;
      }
      const last = rows.at(-1)!;
      after = [last.source, last.path, last.ordinal];
    }
  }
}

import type { LeaseRow, RunSourceRecord, SourceLease, SourceLeases, WorkerIdentity } from '../roles.ts';
import { StorageError } from '../errors.ts';
import type { PgDb, Queryable } from './db.ts';
import { insertRunSource } from './run-sources.ts';

/**
 * Source leases in the source_leases table. A claim picks a row with FOR UPDATE SKIP LOCKED, so
 * workers claiming at once never wait on or take the same source; it bumps the row's generation,
 * which each write of the source checks in its own transaction (`fence`): a worker whose lease was
 * taken over fails its next write instead of overwriting the new holder's work.
 */
export class PgSourceLeases implements SourceLeases {
  constructor(private readonly db: PgDb) {}

  async claimSource(sources: string[], tick: string, w: WorkerIdentity, leaseSeconds: number, since: number): Promise<SourceLease | null> {
    if (!sources.length) return null;
    // The session of the run lock: while it lives, the lease's holder is alive (a pooled connection may close when idle).
    if (this.db.runLockBackend === null) throw new Error('a source is claimed by a run holding the run lock');
    await this.db.query('INSERT INTO source_leases (source) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING', [sources]);
    // Claimable: free and not yet done for this tick nor since this run began (a run still going
    // through an older tick leaves what a newer one indexed), or held by a worker that stopped renewing
    // (or whose server session is gone: killed, cut off) — then for the holder's tick, taken over.
    const [got] = await this.db.query<{ source: string; generation: number; tick: string; old_host: string | null; old_pid: number | null; took: boolean }>(
      `WITH free AS (
         SELECT l.source, l.host, l.pid, l.tick, (l.claimed_at IS NOT NULL AND l.released_at IS NULL) AS took
         FROM source_leases l
         WHERE l.source = ANY ($1::text[])
           AND ((l.released_at IS NOT NULL OR l.claimed_at IS NULL) AND l.tick IS DISTINCT FROM $2
                AND (l.released_at IS NULL OR l.released_at < $8)
             OR l.claimed_at IS NOT NULL AND l.released_at IS NULL
                AND (l.renewed_at < now() - make_interval(secs => $3)
                  OR NOT EXISTS (SELECT 1 FROM pg_locks k WHERE k.locktype = 'advisory' AND k.granted AND k.pid = l.backend_pid)))
         ORDER BY l.claimed_at NULLS FIRST, l.source
         LIMIT 1 FOR UPDATE SKIP LOCKED)
       UPDATE source_leases l SET generation = l.generation + 1, tick = CASE WHEN free.took THEN coalesce(free.tick, $2) ELSE $2 END,
         host = $4, pid = $5, worker_started = $6, backend_pid = $7,
         claimed_at = now(), renewed_at = now(), released_at = NULL
       FROM free WHERE l.source = free.source
       RETURNING l.source, l.generation, l.tick, free.host AS old_host, free.pid AS old_pid, free.took`,
      [sources, tick, leaseSeconds, w.host, w.pid, w.started, this.db.runLockBackend, new Date(since).toISOString()],
    );
    if (!got) return null;
    const lease: SourceLease = {
      source: got.source,
      generation: got.generation,
      tick: got.tick,
      tookOver: got.took && got.old_host !== null ? { host: got.old_host, pid: got.old_pid ?? 0 } : null,
    };
    this.db.fences.set(lease.source, lease.generation);
    return lease;
  }

  async renewLease(lease: SourceLease): Promise<boolean> {
    const r = await this.db.q.query(
      'UPDATE source_leases SET renewed_at = now() WHERE source = $1 AND generation = $2 AND released_at IS NULL',
      [lease.source, lease.generation],
    );
    return r.rowCount === 1;
  }

  async releaseLease(lease: SourceLease, runId: number, record: RunSourceRecord): Promise<boolean> {
    this.db.fences.delete(lease.source);
    return this.db.tx(async (c) => {
      await insertRunSource(c, runId, record, { tick: lease.tick, generation: lease.generation });
      const r = await c.query(
        'UPDATE source_leases SET released_at = now(), renewed_at = now() WHERE source = $1 AND generation = $2 AND released_at IS NULL',
        [lease.source, lease.generation],
      );
      return r.rowCount === 1;
    });
  }

  async leases(): Promise<LeaseRow[]> {
    return this.db.query<LeaseRow>(
      `SELECT source, host, pid, worker_started AS "workerStarted", tick, to_char(claimed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "claimedAt",
              round(extract(epoch FROM now() - claimed_at))::int AS "claimedSecondsAgo",
              round(extract(epoch FROM now() - renewed_at))::int AS "renewedSecondsAgo",
              (claimed_at IS NOT NULL AND released_at IS NULL) AS held
       FROM source_leases WHERE claimed_at IS NOT NULL ORDER BY source`,
    );
  }
}

/**
 * Inside a write's transaction: refuses it unless this worker still holds `source`'s lease (the
 * generation it claimed). Sources written outside a lease pass. `final`, just before the commit,
 * renews it too, locking the row to the commit: a takeover waits for (or precedes) it, never
 * slips between the check and the commit. Before that only a read: a worker paused mid-write
 * must not keep others from taking the source over.
 */
export async function fence(db: PgDb, c: Queryable, source: string, final = true): Promise<void> {
  const generation = db.fences.get(source);
  if (generation === undefined) return;
  const r = await c.query(
    final
      ? 'UPDATE source_leases SET renewed_at = now() WHERE source = $1 AND generation = $2 AND released_at IS NULL'
      : 'SELECT 1 FROM source_leases WHERE source = $1 AND generation = $2 AND released_at IS NULL',
    [source, generation],
  );
  if (r.rowCount === 1) return;
  db.fences.delete(source);
  throw new StorageError('lease', `source "${source}" was taken over by another worker (this one's lease lapsed): nothing more is written to it here`, {
    path: db.shown,
  });
}

import type { IndexDump, IndexReader, IndexWriter, LeaseRow, RunLog, RunSourceRecord, SourceLease, SourceLeases, WorkerIdentity } from '../roles.ts';
import { PgSourceLeases } from './leases.ts';
import { PgDb, type PgMode } from './db.ts';
import { pgLocation } from './location.ts';
import { PgIndexReader, type VectorSearchDefaults } from './reader.ts';
import { PgRunLog } from './run-log.ts';
import { PgIndexWriter, type AnnBuild } from './writer.ts';
import { PgIndexDump } from './dump.ts';
import { delegateRoles } from '../compose.ts';

/**
 * The Postgres backend: one pool shared by role objects, each with its own state (the run log
 * holds the lock's connection), the role methods delegated to them. Connecting, checking the
 * server and migrating happen at the first call (open is synchronous for callers).
 */
export class PgIndex implements SourceLeases {
  readonly writer: PgIndexWriter;
  readonly reader: PgIndexReader;
  readonly runs: PgRunLog;
  readonly dump: PgIndexDump;
  readonly leaseTable: PgSourceLeases;

  constructor(
    readonly db: PgDb,
    search: VectorSearchDefaults = {},
    build: AnnBuild = {},
  ) {
    this.writer = new PgIndexWriter(db, db.mode === 'dryrun', build);
    this.reader = new PgIndexReader(db, search);
    this.runs = new PgRunLog(db);
    this.dump = new PgIndexDump(db);
    this.leaseTable = new PgSourceLeases(db);
  }

  claimSource(sources: string[], tick: string, worker: WorkerIdentity, leaseSeconds: number, since: number): Promise<SourceLease | null> {
    return this.leaseTable.claimSource(sources, tick, worker, leaseSeconds, since);
  }

  renewLease(lease: SourceLease): Promise<boolean> {
    return this.leaseTable.renewLease(lease);
  }

  releaseLease(lease: SourceLease, runId: number, record: RunSourceRecord): Promise<boolean> {
    return this.leaseTable.releaseLease(lease, runId, record);
  }

  leases(): Promise<LeaseRow[]> {
    return this.leaseTable.leases();
  }

  async close(): Promise<void> {
    await this.runs.releaseAll();
    await this.db.close();
  }
}

export interface PgIndex extends IndexWriter, IndexReader, RunLog, IndexDump {}

delegateRoles(PgIndex, { writer: PgIndexWriter, reader: PgIndexReader, runs: PgRunLog, dump: PgIndexDump });

export function openPostgres(url: string, mode: PgMode, search: VectorSearchDefaults = {}, build: AnnBuild = {}): PgIndex {
  return new PgIndex(new PgDb(pgLocation(url), mode), search, build);
}

/** Whether the URL's schema holds a ragsync index (false when the server cannot be reached). */
export async function postgresIndexExists(url: string): Promise<boolean> {
  const db = new PgDb(pgLocation(url), 'read');
  try {
    await db.ready();
    return true;
  } catch {
    return false;
  } finally {
    await db.close();
  }
}

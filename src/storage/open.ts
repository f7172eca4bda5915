import { existsSync } from 'node:fs';
import { RagsyncError, EXIT } from '../core/errors.ts';
import { isDatabaseUrl } from '../core/db-url.ts';
import type { AdminStore, SearchStore, SyncStore } from './roles.ts';
import { SqliteIndex } from './sqlite/index.ts';
import { openPostgres, postgresIndexExists } from './postgres/index.ts';
import type { AnnBuild } from './postgres/writer.ts';

/** Where the index lives: a SQLite file, or a postgres:// URL (storage/postgres). */
export interface IndexLocation {
  db: string;
  /** A server index's vector search defaults (config `search`): exact scans, HNSW candidates. */
  search?: { exact?: boolean; efSearch?: number };
  /** How a server index builds its HNSW graphs (config `hnsw`). */
  hnsw?: AnnBuild;
}

export type IndexRole = 'sync' | 'search' | 'admin';

/**
 * The only place a storage backend is named. Each caller asks for its role:
 * - sync: writes documents and vectors, owns runs and the lock (`dryRun`: a private snapshot, nothing on disk changes);
 * - search: reads, and sees a writer's later commits (`oneShot`: a process answering a query or two
 *   and exiting, which should not cache what a long-lived reader amortises);
 * - admin: status, gc, export on an index that must exist (`readOnly` for status and export).
 */
export function openIndex(at: IndexLocation, role: 'sync', opts?: { dryRun?: boolean }): SyncStore;
export function openIndex(at: IndexLocation, role: 'search', opts?: { oneShot?: boolean }): SearchStore;
export function openIndex(at: IndexLocation, role: 'admin', opts?: { readOnly?: boolean }): AdminStore;
export function openIndex(
  at: IndexLocation,
  role: IndexRole,
  opts: { dryRun?: boolean; readOnly?: boolean; oneShot?: boolean } = {},
): SyncStore | SearchStore | AdminStore {
  if (isDatabaseUrl(at.db)) {
    // A missing index is found at the first call (connecting is asynchronous).
    const search = { exact: at.search?.exact, efSearch: at.search?.efSearch };
    if (role === 'search' || (role === 'admin' && opts.readOnly)) return openPostgres(at.db, 'read', search);
    return openPostgres(at.db, role === 'sync' && opts.dryRun ? 'dryrun' : 'write', search, at.hnsw);
  }
  if (role !== 'sync' && !existsSync(at.db)) {
    throw new RagsyncError(`no index at ${at.db}: run "ragsync index" first`, EXIT.failed);
  }
  // Readers (and status/export) never migrate or otherwise write: another program's database, or
  // one from a newer ragsync, is refused untouched.
  if (role === 'search' || (role === 'admin' && opts.readOnly)) return new SqliteIndex(at.db, 'read', !!opts.oneShot);
  return new SqliteIndex(at.db, role === 'sync' && opts.dryRun ? 'snapshot' : 'write');
}

/** Opens and finds indexes at any location: the engine hands it to code that works on several (sources, copy). */
export interface IndexOpener {
  open: typeof openIndex;
  exists: typeof indexExists;
}

/** Whether an index is there to read (a file, or a server schema holding one). */
export async function indexExists(at: IndexLocation): Promise<boolean> {
  return isDatabaseUrl(at.db) ? postgresIndexExists(at.db) : existsSync(at.db);
}

import type { IndexDump, IndexReader, IndexWriter, RunLog } from '../roles.ts';
import { PgDb, type PgMode } from './db.ts';
import { pgLocation } from './location.ts';
import { PgIndexReader, type VectorSearchDefaults } from './reader.ts';
import { PgRunLog } from './run-log.ts';
import { PgIndexWriter, type AnnBuild } from './writer.ts';
import { PgIndexDump } from './dump.ts';

export type PgIndex = IndexWriter & IndexReader & RunLog & IndexDump & { close(): Promise<void>; readonly db: PgDb };

/**
 * The Postgres backend: one pool shared by role objects, each with its own state (the run log
 * holds the lock's connection), composed into the object storage/open.ts hands out. Connecting,
 * checking the server and migrating happen at the first call (open is synchronous for callers).
 */
export function openPostgres(url: string, mode: PgMode, search: VectorSearchDefaults = {}, build: AnnBuild = {}): PgIndex {
  const db = new PgDb(pgLocation(url), mode);
  const runs = new PgRunLog(db);
  const parts: object[] = [new PgIndexWriter(db, mode === 'dryrun', build), new PgIndexReader(db, search), runs, new PgIndexDump(db)];
  const store: Record<string, unknown> = {
    db,
    async close() {
      await runs.releaseAll();
      await db.close();
    },
  };
  for (const part of parts) {
    for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(part))) {
      const m = (part as Record<string, unknown>)[name];
      if (name !== 'constructor' && typeof m === 'function' && !(name in store)) store[name] = m.bind(part);
    }
  }
  return store as unknown as PgIndex;
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

import type { Database } from 'better-sqlite3';
import { openSqlite } from './open-sqlite.ts';
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { RagsyncError, EXIT } from '../../core/errors.ts';
import { migrationVersions } from './migrate.ts';

/** "RGSY" in the SQLite header's application_id (set by migration 006). */
export const APPLICATION_ID = 0x52475359;

export type Identity =
  /** No schema objects at all: a new (or zero-byte) database. */
  | { kind: 'empty' }
  /** Someone else's database: another application id, or tables and no ragsync migrations. */
  | { kind: 'foreign' }
  /** `version`: the newest migration applied; `applied`: every one applied (older files may miss some). */
  | { kind: 'ragsync'; version: number; applied: Set<number> };

/** What the file is, read without writing anything. */
export function identify(db: Database): Identity {
  const appId = db.pragma('application_id', { simple: true }) as number;
  const objects = db.prepare("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").pluck().all() as string[];
  const ours = (): Identity => {
    const applied = new Set(
      objects.includes('schema_migrations') ? (db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]) : [],
    );
    return { kind: 'ragsync', version: Math.max(0, ...applied), applied };
  };
  if (appId === APPLICATION_ID) return ours();
  if (appId !== 0) return { kind: 'foreign' };
  if (!objects.length) return { kind: 'empty' };
  // Before 006: ragsync's own migrations table (other tools name theirs alike, with other columns).
  if (objects.includes('schema_migrations')) {
    const cols = new Set((db.prepare('PRAGMA table_info(schema_migrations)').all() as { name: string }[]).map((c) => c.name));
    if (cols.has('version') && cols.has('name') && cols.has('applied_at')) return ours();
  }
  return { kind: 'foreign' };
}

const notOurs = (file: string) =>
  new RagsyncError(`not a ragsync index: ${file} (a SQLite database with other tables; point "db" at another file)`, EXIT.usage);

/** Largest WAL-mode file examined from a private copy rather than opened in place. */
const COPY_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Refuses another program's database from its bytes alone, before SQLite opens it: opening a
 * WAL-mode file in place (even read-only) creates -wal and -shm files beside it. The header says
 * the application id; a WAL-mode file with no -wal beside it is whole, so a private in-memory copy
 * shows its tables. Anything undecided here is checked by assertOwnSchema after opening.
 */
export function refuseForeignFile(file: string): void {
  let header: Buffer;
  let size: number;
  try {
    size = statSync(file).size;
    if (size < 100) return;
    header = Buffer.alloc(100);
    const fd = openSync(file, 'r');
    try {
      readSync(fd, header, 0, 100, 0);
    } finally {
      closeSync(fd);
    }
  } catch {
    return; // SQLite reports it in its own words (a directory, no permission …)
  }
  if (header.toString('latin1', 0, 16) !== 'SQLite format 3\0') return;
  const appId = header.readUInt32BE(68);
  if (appId === APPLICATION_ID) return;
  if (appId !== 0) throw notOurs(file);
  if (header[18] !== 2 || existsSync(file + '-wal') || size > COPY_MAX_BYTES) return;
  const bytes = readFileSync(file);
  bytes[18] = bytes[19] = 1; // read the copy as a rollback-journal file
  const copy = openSqlite(bytes);
  try {
    if (identify(copy).kind === 'foreign') throw notOurs(file);
  } finally {
    copy.close();
  }
}

/** The newest schema version this code knows. */
export const knownVersion = (): number => Math.max(0, ...migrationVersions());

/**
 * Refuses a database that is not ragsync's, or whose schema is newer than this code; `forRead`
 * also refuses one that would need migrating (readers never write a schema) or that is empty.
 * Throws RagsyncError naming the file and both versions.
 */
export function assertOwnSchema(db: Database, file: string, forRead: boolean): void {
  const id = identify(db);
  const versions = migrationVersions();
  const known = Math.max(0, ...versions);
  if (id.kind === 'foreign') throw notOurs(file);
  if (id.kind === 'empty') {
    if (forRead) throw new RagsyncError(`no index at ${file} (the file is empty): run "ragsync index" first`, EXIT.failed);
    return;
  }
  if (id.version > known) {
    throw new RagsyncError(
      `index ${file} has schema version ${id.version}; this ragsync knows up to ${known}: upgrade ragsync (the index is left as it is)`,
      EXIT.usage,
    );
  }
  const missing = versions.filter((v) => !id.applied.has(v));
  if (forRead && missing.length) {
    const gaps = id.version >= known ? ` without migration ${missing.join(', ')}` : '';
    throw new RagsyncError(
      `index ${file} has schema version ${id.version}${gaps}; this ragsync needs ${known}: run "ragsync index" once to upgrade it (read commands never change the schema)`,
      EXIT.usage,
    );
  }
}

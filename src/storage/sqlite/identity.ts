import type { Database } from 'better-sqlite3';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { RagsyncError, EXIT } from '../../core/errors.ts';
import { describeSystemError } from '../../core/error-words.ts';

/**
 * Whether a database file is ragsync's, checked before anything is written to it. A config that
 * points `db` at another program's SQLite file, at a file that is not SQLite, or at an index made
 * by a newer ragsync must be refused untouched: migrating the first would write ragsync's schema
 * into someone else's data, and writing the last with an older schema's assumptions could damage it.
 */

/** `PRAGMA application_id` of a ragsync index ("rgsy"), set by migration 006. */
export const APPLICATION_ID = 0x72677379;

/**
 * The oldest schema this version's readers understand (the run counts of migration 005). A reader
 * never migrates: an older index is upgraded by the next `ragsync index` (a writer).
 */
export const READER_MIN_VERSION = 5;

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

export type FileState = 'missing' | 'empty' | 'sqlite';

/** What is at the path, from its first bytes: refuses directories and files that are not SQLite. */
export function inspectFile(file: string): FileState {
  let size: number;
  try {
    const st = statSync(file);
    if (st.isDirectory()) throw new RagsyncError(`the index ${file} is a directory, not a database file (config "db")`, EXIT.usage);
    if (!st.isFile()) throw new RagsyncError(`the index ${file} is not a regular file (config "db")`, EXIT.usage);
    size = st.size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw worded(err, file);
  }
  if (size === 0) return 'empty';
  const head = Buffer.alloc(16);
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    readSync(fd, head, 0, 16, 0);
  } catch (err) {
    throw worded(err, file);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (!head.equals(SQLITE_MAGIC)) throw new RagsyncError(`not a ragsync index: ${file} (not an SQLite database)`, EXIT.usage);
  return 'sqlite';
}

export interface SchemaState {
  /** No tables at all: a new (or just created) database. */
  fresh: boolean;
  /** Highest migration applied (0 when fresh). */
  version: number;
}

/**
 * Reads (never writes) who made the database and which schema it has. Throws for another program's
 * database and for a schema newer than `latest`; readers (`minVersion`) also refuse an older one.
 */
export function checkSchema(db: Database, file: string, latest: number, minVersion?: number): SchemaState {
  const appId = db.pragma('application_id', { simple: true }) as number;
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
  if (appId !== APPLICATION_ID) {
    if (appId !== 0) throw new RagsyncError(`not a ragsync index: ${file} (an SQLite file of another program: application_id ${appId})`, EXIT.usage);
    if (!tables.length) return { fresh: true, version: 0 };
    // Made before ragsync set its application_id: recognised by its migration table and tables.
    const ours = tables.includes('schema_migrations') && tables.includes('documents') && tables.includes('vectors');
    if (!ours) {
      const shown = tables.slice(0, 5).join(', ') + (tables.length > 5 ? `, … (${tables.length} tables)` : '');
      throw new RagsyncError(`not a ragsync index: ${file} (it holds other tables: ${shown}); ragsync leaves it untouched`, EXIT.usage);
    }
  }
  const applied = new Set(
    tables.includes('schema_migrations') ? (db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]) : [],
  );
  const version = Math.max(0, ...applied);
  if (version > latest) {
    throw new RagsyncError(
      `the index ${file} has schema version ${version}, newer than this ragsync knows (${latest}): it was written by a newer ` +
        'ragsync; upgrade ragsync to use it (the index was not touched)',
      EXIT.usage,
    );
  }
  if (minVersion !== undefined) {
    const missing = Array.from({ length: minVersion }, (_, i) => i + 1).filter((v) => !applied.has(v));
    if (missing.length) {
      throw new RagsyncError(
        `the index ${file} has an older schema (version ${version}${missing.some((v) => v < version) ? `, without migration ${missing.join(', ')}` : ''}); ` +
          `this ragsync reads version ${minVersion} to ${latest}: run "ragsync index" once to upgrade it (reading commands never change the schema)`,
        EXIT.usage,
      );
    }
  }
  return { fresh: false, version };
}

/** Any error met while opening, in words naming the file when it is a kind the user can fix. */
export function worded(err: unknown, file: string): Error {
  if (err instanceof RagsyncError) return err;
  const w = describeSystemError(err, { file });
  if (!w) return err instanceof Error ? err : new Error(String(err));
  return Object.assign(new RagsyncError(w.message, w.exitCode), { code: (err as { code?: unknown }).code });
}

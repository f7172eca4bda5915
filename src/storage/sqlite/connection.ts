import type { Database } from 'better-sqlite3';
import { openSqlite } from './open-sqlite.ts';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrate } from './migrate.ts';
import { backfillVectorCodes, vectorCodesLost } from './codes.ts';
import { assertOwnSchema, refuseForeignFile } from './identity.ts';
import { registerGlob } from './filter.ts';
import { defaultAnalyzer, indexTerms } from '../../core/text/analyzer.ts';

/** Page cache of a read-only connection, KiB. */
const READER_CACHE_KIB = 4096;

export type OpenMode =
  /** Read-write; creates the file and applies pending migrations. */
  | 'write'
  /** Read-only; sees later commits of a writer (searchers). */
  | 'read'
  /**
   * A private in-memory copy of the index as it is now (dry runs): nothing on disk is created or
   * changed, not even the -wal/-shm files a read-only connection would leave. A missing file gives
   * an empty index.
   */
  | 'snapshot';

function prepare(db: Database): Database {
  db.pragma('foreign_keys = ON');
  registerGlob(db);
  return db;
}

function migrated(db: Database): Database {
  const applied = migrate(db);
  if (applied.includes(KEYWORD_INDEX_MIGRATION)) backfillKeywordIndex(db);
  // Codes for vectors without one: all of them once migration 010 is applied, and any lost since
  // (a vector changed in place, a code deleted by hand: marked by a trigger, migration 015).
  if (applied.includes(VECTOR_CODES_MIGRATION) || vectorCodesLost(db)) backfillVectorCodes(db);
  return db;
}

/** The migration that created chunks_fts. */
const KEYWORD_INDEX_MIGRATION = 2;
/** The migration that created vector_codes (int8 copies of the vectors). */
const VECTOR_CODES_MIGRATION = 10;

/**
 * An index made before the keyword index existed gets one now, with the engine's own analysis, so
 * keyword search works at once. The terms are provisional: those documents carry no analyzer in
 * their fingerprint, so the next run re-indexes them with their profile's analyzer.
 */
function backfillKeywordIndex(db: Database): void {
  const insert = db.prepare('INSERT INTO chunks_fts (rowid, head, body) VALUES (?, ?, ?)');
  db.transaction(() => {
    // Pages by id: better-sqlite3 cannot write while a read cursor is open on the connection.
    const page = db.prepare('SELECT id, heading, text FROM chunks WHERE id > ? ORDER BY id LIMIT 1000');
    for (let last = 0; ; ) {
      const rows = page.all(last) as { id: number; heading: string; text: string }[];
      if (!rows.length) break;
      for (const r of rows) insert.run(r.id, indexTerms(defaultAnalyzer, r.heading), indexTerms(defaultAnalyzer, r.text));
      last = rows[rows.length - 1]!.id;
    }
    bumpGeneration(db);
  })();
}

/** Runs `check` on a fresh connection; a refusal closes it before anything was written. */
function checked(db: Database, check: (db: Database) => void): Database {
  try {
    check(db);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * Opens a connection with the project's pragmas and SQL functions. Every mode first checks the
 * file is ragsync's and not newer than this code (storage/sqlite/identity.ts), before anything is
 * written to it; only 'write' migrates, so readers never change a schema.
 */
export function openDatabase(file: string, mode: OpenMode): Database {
  if (mode === 'snapshot') {
    if (!existsSync(file)) return migrated(prepare(openSqlite(':memory:')));
    if (!existsSync(file + '-wal')) {
      const bytes = readFileSync(file);
      // Header bytes 18-19 say "WAL"; an in-memory copy must be told it is a rollback-journal file.
      if (bytes.length >= 20) bytes[18] = bytes[19] = 1;
      const copy = bytes.length ? openSqlite(bytes) : openSqlite(':memory:');
      return migrated(prepare(checked(copy, (db) => assertOwnSchema(db, file, false))));
    }
    // A writer is active (its WAL holds recent commits): read through it, read-only.
    refuseForeignFile(file);
    const db = openSqlite(file, { readonly: true, fileMustExist: true, timeout: 10_000 });
    return prepare(checked(db, (c) => assertOwnSchema(c, file, false)));
  }
  if (mode === 'read') {
    if (!existsSync(file)) throw new Error(`no index at ${file}`);
    refuseForeignFile(file);
    const db = openSqlite(file, { readonly: true, fileMustExist: true, timeout: 10_000 });
    // A reader's hot pages (FTS terms, chunk texts) are few; better-sqlite3's default 16 MB page
    // cache mostly holds pages read once, resident for the life of a server.
    db.pragma(`cache_size = -${READER_CACHE_KIB}`);
    return prepare(checked(db, (c) => assertOwnSchema(c, file, true)));
  }
  mkdirSync(dirname(file), { recursive: true });
  refuseForeignFile(file);
  const db = checked(openSqlite(file, { timeout: 10_000 }), (c) => {
    assertOwnSchema(c, file, false);
    c.pragma('journal_mode = WAL');
  });
  // NORMAL is safe in WAL mode: a power cut can lose the last commit, never corrupt the file.
  db.pragma('synchronous = NORMAL');
  return migrated(prepare(db));
}

export const now = () => new Date().toISOString();
export const parseJson = (s: string): Record<string, unknown> => JSON.parse(s) as Record<string, unknown>;

/** Bumps the generation counter; call inside the transaction that changes chunks or vectors. */
export function bumpGeneration(db: Database): void {
  db.prepare("UPDATE meta SET value = value + 1 WHERE key = 'generation'").run();
}

/** Slices of at most SQLite's default variable limit for IN (…) lists. */
export function* slices<T>(items: T[], size = 500): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}

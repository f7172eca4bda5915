import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { packageRoot } from '../../core/package-root.ts';

export const MIGRATIONS_DIR = join(packageRoot(import.meta.url), 'migrations');

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const MIGRATION_FILE = /^(\d+)_([\w-]+)\.sql$/;
/** A migration that says so runs with foreign keys off (and checked before it commits). */
const FOREIGN_KEYS_OFF = /^-- ragsync: foreign_keys off$/m;

/** The versions of migrations/NNN_name.sql from the file names alone (a read-only open checks these). */
export function migrationVersions(dir = MIGRATIONS_DIR): number[] {
  return readdirSync(dir)
    .flatMap((f) => MIGRATION_FILE.exec(f)?.[1] ?? [])
    .map(Number)
    .sort((a, b) => a - b);
}

/** migrations/NNN_name.sql, in numeric order. */
export function listMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .map((f) => MIGRATION_FILE.exec(f))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ version: Number(m[1]), name: m[2]!, sql: readFileSync(join(dir, m[0]), 'utf8') }))
    .sort((a, b) => a.version - b.version);
}

/** Versions applied so far (empty on a new database). */
export function appliedVersions(db: Database): Set<number> {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  if (!exists) return new Set();
  return new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
}

/** Applies each pending migration in its own transaction, recording it in schema_migrations. */
export function migrate(db: Database, dir = MIGRATIONS_DIR): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const done = appliedVersions(db);
  const applied: number[] = [];
  // The usual open has nothing pending: decided from the file names, without reading the SQL.
  if (migrationVersions(dir).every((v) => done.has(v))) return applied;
  for (const m of listMigrations(dir)) {
    if (done.has(m.version)) continue;
    // A table rebuilt under references to it (SQLite's 12-step procedure) needs foreign keys off,
    // which only takes effect outside a transaction; they are checked before the migration commits.
    const fkOff = FOREIGN_KEYS_OFF.test(m.sql) && db.pragma('foreign_keys', { simple: true }) === 1;
    if (fkOff) db.pragma('foreign_keys = OFF');
    // IMMEDIATE + re-check: two processes opening a new database at once apply each migration once.
    let ran: boolean;
    try {
      ran = db.transaction(() => {
        if (appliedVersions(db).has(m.version)) return false;
        db.exec(m.sql);
        if (fkOff && (db.pragma('foreign_key_check') as unknown[]).length) throw new Error(`migration ${m.version} ${m.name} broke foreign keys`);
        db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
          m.version,
          m.name,
          new Date().toISOString(),
        );
        return true;
      }).immediate();
    } finally {
      if (fkOff) db.pragma('foreign_keys = ON');
    }
    if (ran) applied.push(m.version);
  }
  return applied;
}

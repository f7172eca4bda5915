import type { Database, Statement } from 'better-sqlite3';
import { openFailure } from './annotate.ts';
import { openDatabase, type OpenMode } from './connection.ts';

/**
 * One open database shared by the roles of a SqliteIndex, with the statements prepared on it:
 * preparing costs as much as running the small queries searches repeat.
 */
export class SqliteConnection {
  readonly db: Database;
  private readonly statements = new Map<string, Statement>();

  constructor(
    readonly file: string,
    mode: OpenMode,
  ) {
    try {
      this.db = openDatabase(file, mode);
    } catch (err) {
      throw openFailure(err, file);
    }
  }

  /** A statement prepared once on this connection. */
  prepared(sql: string): Statement {
    let s = this.statements.get(sql);
    if (!s) {
      if (this.statements.size > 200) this.statements.clear(); // filters make the SQL vary: keep the cache bounded
      this.statements.set(sql, (s = this.db.prepare(sql)));
    }
    return s;
  }

  close(): void {
    this.statements.clear();
    if (this.db.open) this.db.close();
  }
}

/** The index's generation: bumped by every transaction that changes chunks or vectors. */
export function readGeneration(c: SqliteConnection): number {
  return (c.prepared("SELECT value FROM meta WHERE key = 'generation'").pluck().get() ?? 0) as number;
}

/** How many vectors a fingerprint has (from the narrow key index, no BLOB read). */
export function vectorCount(c: SqliteConnection, fingerprint: string): number {
  return c.prepared('SELECT count(*) FROM vectors INDEXED BY vectors_key WHERE fingerprint = ?').pluck().get(fingerprint) as number;
}

/** How many int8 codes a fingerprint has (codes live and die with their vectors: equal counts mean one each). */
export function codeCount(c: SqliteConnection, fingerprint: string): number {
  return c.prepared('SELECT count(*) FROM vector_codes WHERE fingerprint = ?').pluck().get(fingerprint) as number;
}

/** The dimensions of an embedder fingerprint, 0 when the index has not seen it. */
export function embedderDims(c: SqliteConnection, fingerprint: string): number {
  return (c.prepared('SELECT dims FROM embedders WHERE fingerprint = ?').pluck().get(fingerprint) ?? 0) as number;
}

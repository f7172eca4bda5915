import type { Database, Statement } from 'better-sqlite3';

const statements = new WeakMap<Database, Map<string, Statement>>();

/**
 * A statement prepared once per connection (the reader's methods are mixed into SqliteIndex, so
 * the cache hangs off the connection): preparing costs as much as running these small queries.
 */
export function prepared(db: Database, sql: string): Statement {
  let m = statements.get(db);
  if (!m) statements.set(db, (m = new Map()));
  let s = m.get(sql);
  if (!s) {
    if (m.size > 200) m.clear(); // filters make the SQL vary: keep the cache bounded
    m.set(sql, (s = db.prepare(sql)));
  }
  return s;
}

/** The index's generation: bumped by every transaction that changes chunks or vectors. */
export function readGeneration(db: Database): number {
  return (prepared(db, "SELECT value FROM meta WHERE key = 'generation'").pluck().get() ?? 0) as number;
}

/** How many vectors a fingerprint has (from the narrow key index, no BLOB read). */
export function vectorCount(db: Database, fingerprint: string): number {
  return prepared(db, 'SELECT count(*) FROM vectors INDEXED BY vectors_key WHERE fingerprint = ?').pluck().get(fingerprint) as number;
}

/** How many int8 codes a fingerprint has (codes live and die with their vectors: equal counts mean one each). */
export function codeCount(db: Database, fingerprint: string): number {
  return prepared(db, 'SELECT count(*) FROM vector_codes WHERE fingerprint = ?').pluck().get(fingerprint) as number;
}

/** The dimensions of an embedder fingerprint, 0 when the index has not seen it. */
export function embedderDims(db: Database, fingerprint: string): number {
  return (prepared(db, 'SELECT dims FROM embedders WHERE fingerprint = ?').pluck().get(fingerprint) ?? 0) as number;
}

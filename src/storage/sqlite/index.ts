import type { Database } from 'better-sqlite3';
import { openDatabase, type OpenMode } from './connection.ts';
import { closeReaderExtras, SqliteIndexReader } from './reader.ts';
import { SqliteRunLog } from './run-log.ts';
import { SqliteIndexWriter } from './writer.ts';
import { SqliteIndexDump } from './dump.ts';
import { openFailure, withPathOnErrors } from './annotate.ts';
import type { DocumentWrite } from '../roles.ts';

/**
 * The SQLite backend: one connection serving every role (writer, reader, run log), each role's
 * methods written in its own module and mixed in here. Callers outside storage/ see only the
 * role interfaces that storage/open.ts hands them.
 */
export class SqliteIndex {
  readonly db: Database;
  readonly dryRun: boolean;

  constructor(
    readonly file: string,
    mode: OpenMode = 'write',
    /** A one-shot reader (SqliteIndexReader.oneShot). */
    readonly oneShot = false,
  ) {
    try {
      this.db = openDatabase(file, mode);
    } catch (err) {
      throw openFailure(err, file);
    }
    this.dryRun = mode !== 'write';
  }

  async close(): Promise<void> {
    closeReaderExtras(this.db);
    if (this.db.open) this.db.close();
  }
}

export interface SqliteIndex extends SqliteIndexWriter, SqliteIndexReader, SqliteRunLog, SqliteIndexDump {}

/** A document write whose methods' errors carry the database file, as the roles' do. */
function withTaggedWrite(begin: SqliteIndexWriter['beginDocuments']): SqliteIndexWriter['beginDocuments'] {
  return async function (this: SqliteIndex, source: string): Promise<DocumentWrite> {
    const w = await begin.call(this, source);
    const file = this.file;
    const tag = <F extends (...args: never[]) => unknown>(f: F) => withPathOnErrors(f.bind(w) as F, () => file);
    return { write: tag(w.write), remove: tag(w.remove), commit: tag(w.commit), rollback: tag(w.rollback) };
  };
}

for (const role of [SqliteIndexWriter, SqliteIndexReader, SqliteRunLog, SqliteIndexDump]) {
  for (const name of Object.getOwnPropertyNames(role.prototype)) {
    if (name === 'constructor') continue;
    const d = Object.getOwnPropertyDescriptor(role.prototype, name)!;
    // Errors leave the backend naming the database file (core/io-errors.ts puts them in words),
    // those of a batched document write too.
    if (typeof d.value === 'function') d.value = withPathOnErrors(d.value, (self) => (self as SqliteIndex).file);
    if (name === 'beginDocuments') d.value = withTaggedWrite(d.value as SqliteIndexWriter['beginDocuments']);
    Object.defineProperty(SqliteIndex.prototype, name, d);
  }
}

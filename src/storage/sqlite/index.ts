import type { Database } from 'better-sqlite3';
import type { OpenMode } from './connection.ts';
import { SqliteIndexReader } from './reader.ts';
import { SqliteRunLog } from './run-log.ts';
import { SqliteIndexWriter } from './writer.ts';
import { SqliteIndexDump } from './dump.ts';
import { withPathOnErrors } from './annotate.ts';
import { SqliteConnection } from './statements.ts';
import { delegateRoles } from '../compose.ts';
import type { DocumentWrite, IndexDump, IndexReader, IndexWriter, RunLog } from '../roles.ts';

/**
 * The SQLite backend: one connection shared by role objects (writer, reader, run log, dump), each
 * with its own state, and the role methods delegated to them. Callers outside storage/ see only
 * the role interfaces that storage/open.ts hands them.
 */
export class SqliteIndex {
  readonly connection: SqliteConnection;
  readonly writer: SqliteIndexWriter;
  readonly reader: SqliteIndexReader;
  readonly runs: SqliteRunLog;
  readonly dump: SqliteIndexDump;
  readonly dryRun: boolean;

  constructor(
    readonly file: string,
    mode: OpenMode = 'write',
    /** A one-shot reader (SqliteIndexReader.oneShot). */
    readonly oneShot = false,
  ) {
    this.connection = new SqliteConnection(file, mode);
    this.dryRun = mode !== 'write';
    this.writer = new SqliteIndexWriter(this.connection, this.dryRun);
    this.reader = new SqliteIndexReader(this.connection, oneShot);
    this.runs = new SqliteRunLog(this.connection);
    this.dump = new SqliteIndexDump(this.connection);
  }

  get db(): Database {
    return this.connection.db;
  }

  async close(): Promise<void> {
    this.reader.close();
    this.connection.close();
  }
}

export interface SqliteIndex extends IndexWriter, IndexReader, RunLog, IndexDump {}

/** A document write whose methods' errors carry the database file, as the roles' do. */
function withTaggedWrite(begin: IndexWriter['beginDocuments']): IndexWriter['beginDocuments'] {
  return async function (this: SqliteIndex, source: string): Promise<DocumentWrite> {
    const w = await begin.call(this, source);
    const file = this.file;
    const tag = <F extends (...args: never[]) => unknown>(f: F) => withPathOnErrors(f.bind(w) as F, () => file);
    return { write: tag(w.write), remove: tag(w.remove), restamp: tag(w.restamp), commit: tag(w.commit), rollback: tag(w.rollback) };
  };
}

// Errors leave the backend naming the database file (core/io-errors.ts puts them in words), those
// of a batched document write too.
delegateRoles(SqliteIndex, { writer: SqliteIndexWriter, reader: SqliteIndexReader, runs: SqliteRunLog, dump: SqliteIndexDump }, (delegate, name) => {
  const tagged = withPathOnErrors(delegate, (self) => (self as SqliteIndex).file);
  return name === 'beginDocuments' ? (withTaggedWrite(tagged as IndexWriter['beginDocuments']) as typeof delegate) : tagged;
});

import type { Database } from 'better-sqlite3';
import { openDatabase, type OpenMode } from './connection.ts';
import { SqliteIndexReader } from './reader.ts';
import { SqliteRunLog } from './run-log.ts';
import { SqliteIndexWriter } from './writer.ts';

/**
 * The SQLite backend: one connection serving every role (writer, reader, run log), each role's
 * methods written in its own module and mixed in here. Callers outside storage/ see only the
 * role interfaces that storage/open.ts hands them.
 */
export class SqliteIndex {
  readonly db: Database;
  readonly dryRun: boolean;

  constructor(file: string, mode: OpenMode = 'write') {
    this.db = openDatabase(file, mode);
    this.dryRun = mode !== 'write';
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

export interface SqliteIndex extends SqliteIndexWriter, SqliteIndexReader, SqliteRunLog {}

for (const role of [SqliteIndexWriter, SqliteIndexReader, SqliteRunLog]) {
  for (const name of Object.getOwnPropertyNames(role.prototype)) {
    if (name !== 'constructor') Object.defineProperty(SqliteIndex.prototype, name, Object.getOwnPropertyDescriptor(role.prototype, name)!);
  }
}

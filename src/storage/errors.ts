/**
 * A storage failure by what it means to the caller, whatever the backend: sync, the lock and the
 * daemon decide on `kind`, never on a backend's codes. `code` keeps the backend's own (SQLITE_FULL,
 * a Postgres SQLSTATE) and `path` the database it is about, so core/io-errors.ts can still put a
 * file's problem in words.
 */
export type StorageErrorKind =
  /** No space left for a write (disk, quota). */
  | 'full'
  /** Another connection held a lock past the wait (SQLite's busy timeout, a lock timeout). */
  | 'busy'
  /** A lock conflict inside the database (a table locked by another statement). */
  | 'locked'
  /** The stored data is damaged, or is not a database of this kind. */
  | 'corrupt'
  /** The database may not be read or written by us (file modes, read-only replica, grants). */
  | 'permission'
  /** The database cannot be reached (refused, timed out, dropped mid-run). */
  | 'unreachable'
  /** The server refused our credentials. */
  | 'auth'
  /** This worker's lease on a source was taken over: it may not write that source any more. */
  | 'lease';

export class StorageError extends Error {
  override readonly name = 'StorageError';
  readonly code?: string;
  readonly path?: string;

  constructor(
    readonly kind: StorageErrorKind,
    message: string,
    opts: { code?: string; path?: string; cause?: unknown } = {},
  ) {
    super(message, { cause: opts.cause });
    if (opts.code !== undefined) this.code = opts.code;
    if (opts.path !== undefined) this.path = opts.path;
  }
}

export function isStorageError(err: unknown, kind?: StorageErrorKind): err is StorageError {
  return err instanceof StorageError && (kind === undefined || err.kind === kind);
}

import { RagsyncError, EXIT, errorMessage } from '../../core/errors.ts';
import { describeIoError } from '../../core/io-errors.ts';
import { StorageError, type StorageErrorKind } from '../errors.ts';

/** SQLite's primary result codes by what they mean to a caller (extended codes share their base's). */
const KINDS: Record<string, StorageErrorKind> = {
  SQLITE_FULL: 'full',
  SQLITE_BUSY: 'busy',
  SQLITE_LOCKED: 'locked',
  SQLITE_CORRUPT: 'corrupt',
  SQLITE_NOTADB: 'corrupt',
  SQLITE_READONLY: 'permission',
  SQLITE_PERM: 'permission',
  SQLITE_CANTOPEN: 'permission',
  SQLITE_AUTH: 'auth',
};

/**
 * SQLite's errors do not say which file they are about. The backend tags each one with its
 * database path, and one with a code callers act on becomes a StorageError of that kind (same
 * message and code), so the CLI turns the code into words naming that file.
 */
export function tagWithPath(err: unknown, file: string): unknown {
  if (err instanceof StorageError || err instanceof RagsyncError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  const kind = typeof code === 'string' ? KINDS[code.split('_').slice(0, 2).join('_')] : undefined;
  if (kind) return new StorageError(kind, (err as Error).message, { code: code as string, path: file, cause: err });
  if (err && typeof err === 'object' && (err as { path?: unknown }).path === undefined) {
    try {
      Object.defineProperty(err, 'path', { value: file, enumerable: false, configurable: true });
    } catch {
      // a frozen error stays as it is
    }
  }
  return err;
}

/** A failure to open `file` as one line naming it (exit 2: nothing was attempted). */
export function openFailure(err: unknown, file: string): RagsyncError {
  if (err instanceof RagsyncError) return err;
  // A file-system error names its own path (a parent folder that is a file, say); SQLite's do not.
  const own = (err as { path?: unknown })?.path;
  const words = describeIoError(err, typeof own === 'string' ? own : file) ?? `cannot open the index ${file}: ${errorMessage(err)}`;
  return new RagsyncError(words, EXIT.usage);
}

/** Wraps a role method so that whatever it throws (or its async iterator throws) carries `file`. */
export function withPathOnErrors<F extends (...args: never[]) => unknown>(fn: F, fileOf: (self: unknown) => string): F {
  const isGenerator = fn.constructor.name === 'AsyncGeneratorFunction';
  if (isGenerator) {
    return async function* (this: unknown, ...args: never[]) {
      try {
        yield* fn.apply(this, args) as AsyncIterable<unknown>;
      } catch (err) {
        throw tagWithPath(err, fileOf(this));
      }
    } as unknown as F;
  }
  return function (this: unknown, ...args: never[]) {
    try {
      const out = fn.apply(this, args);
      return out instanceof Promise ? out.catch((err: unknown) => Promise.reject(tagWithPath(err, fileOf(this)))) : out;
    } catch (err) {
      throw tagWithPath(err, fileOf(this));
    }
  } as F;
}

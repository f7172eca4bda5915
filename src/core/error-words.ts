import { EXIT } from './errors.ts';

/**
 * SQLite, file-system and socket error codes in words a person can act on, naming the file or the
 * port. The CLI's last-resort handler and the storage backend use it so that nothing a user can
 * fix (a wrong path, permissions, a full disk, a busy port) reaches them as "internal error".
 */
export interface Worded {
  message: string;
  exitCode: number;
}

interface CodedError {
  code?: unknown;
  errno?: unknown;
  syscall?: unknown;
  path?: unknown;
  address?: unknown;
  port?: unknown;
  message?: unknown;
}

/** [code pattern, what it means, exit code]: the first match wins. */
const SQLITE: [RegExp, string, number][] = [
  [/^SQLITE_NOTADB/, 'is not an SQLite database (not a ragsync index)', EXIT.usage],
  [/^SQLITE_CORRUPT/, 'is corrupt (the database disk image is malformed): restore it from a backup, or move it away and index again', EXIT.usage],
  [/^SQLITE_READONLY_DIRECTORY/, 'cannot be used: its folder is read-only (SQLite must create the -wal and -shm files beside it)', EXIT.usage],
  [/^SQLITE_READONLY/, 'is read-only (no write permission on the file or the disk)', EXIT.usage],
  [/^SQLITE_CANTOPEN_ISDIR/, 'is a directory, not a database file', EXIT.usage],
  [/^SQLITE_CANTOPEN/, 'cannot be opened (its folder is missing or not accessible)', EXIT.usage],
  [/^SQLITE_(PERM|AUTH)/, 'cannot be opened: permission denied', EXIT.usage],
  [/^SQLITE_FULL/, 'cannot be written: the disk is full', EXIT.failed],
  [/^SQLITE_BUSY|^SQLITE_LOCKED/, 'is busy: another process holds a lock on it', EXIT.failed],
  [/^SQLITE_IOERR/, 'could not be read or written (I/O error)', EXIT.failed],
];

const FS: Record<string, [string, number]> = {
  EISDIR: ['is a directory, not a file', EXIT.usage],
  ENOTDIR: ['is not a folder (a file sits where a folder should be)', EXIT.usage],
  EACCES: ['permission denied', EXIT.usage],
  EPERM: ['permission denied (operation not permitted)', EXIT.usage],
  EROFS: ['is on a read-only file system', EXIT.usage],
  ENOSPC: ['cannot be written: the disk is full', EXIT.failed],
  EDQUOT: ['cannot be written: disk quota exceeded', EXIT.failed],
  ENOENT: ['does not exist', EXIT.usage],
  ELOOP: ['is a symbolic link loop', EXIT.usage],
  EMFILE: ['cannot be opened: too many open files in this process', EXIT.failed],
};

const NET: Record<string, (port: string, address: string) => string> = {
  EADDRINUSE: (port, address) => `port ${port} on ${address} is already in use (another ragsync serve or daemon, or another program, listens there)`,
  EACCES: (port, address) => `port ${port} on ${address} may not be bound by this user (ports below 1024 need privileges)`,
  EADDRNOTAVAIL: (port, address) => `${address} is not an address of this machine (cannot listen on port ${port} there)`,
};

/**
 * The error in words, or null when it is not one of the user-fixable kinds above. `file` names the
 * database (or other file) the caller was working on when the error does not carry a path itself.
 */
export function describeSystemError(err: unknown, ctx: { file?: string } = {}): Worded | null {
  if (!err || typeof err !== 'object') return null;
  const e = err as CodedError;
  const code = typeof e.code === 'string' ? e.code : '';
  if (!code) return null;
  if (e.syscall === 'listen' || e.syscall === 'bind' || code === 'EADDRINUSE') {
    const words = NET[code];
    if (words) return { message: words(String(e.port ?? '?'), String(e.address ?? 'this host')), exitCode: EXIT.usage };
  }
  if (code.startsWith('SQLITE_')) {
    const hit = SQLITE.find(([re]) => re.test(code));
    if (!hit) return null;
    const what = ctx.file ? `the index ${ctx.file}` : 'the index database';
    return { message: `${what} ${hit[1]}`, exitCode: hit[2] };
  }
  const fs = FS[code];
  if (fs) {
    const path = typeof e.path === 'string' ? e.path : ctx.file;
    if (!path) return null;
    return { message: `${path}: ${fs[0]}`, exitCode: fs[1] };
  }
  return null;
}

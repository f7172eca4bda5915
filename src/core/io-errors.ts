import { existsSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';

/**
 * SQLite, file-system and socket error codes in words a person can act on, naming the file or the
 * address. One place, so `status`, `index`, `serve` and the daemon say the same thing about the
 * same problem instead of "internal error: SQLITE_CANTOPEN".
 */

interface CodedError {
  code?: unknown;
  message?: unknown;
  /** fs errors carry the path; storage annotates SQLite errors with the database file. */
  path?: unknown;
  /** listen() errors carry the address and port. */
  address?: unknown;
  port?: unknown;
  syscall?: unknown;
}

const isDirectory = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/** `<what> <path>` for a file, or `<host>:<port>` for a socket, from the error or the caller. */
function subjectOf(e: CodedError, given?: string): string {
  if (given) return given;
  if (typeof e.path === 'string') return e.path;
  if (e.port !== undefined) return `${typeof e.address === 'string' ? e.address : '*'}:${String(e.port)}`;
  return '(unknown file)';
}

/**
 * One line for a known code, else null (the caller keeps the original message). `subject` is the
 * file or address when the error itself does not name it.
 */
export function describeIoError(err: unknown, subject?: string): string | null {
  if (!err || typeof err !== 'object') return null;
  const e = err as CodedError;
  const code = typeof e.code === 'string' ? e.code : '';
  if (!code) return null;
  const what = subjectOf(e, subject);
  const raw = typeof e.message === 'string' ? e.message : '';
  // SQLite's extended codes (SQLITE_READONLY_DBMOVED, SQLITE_IOERR_WRITE …) share their base's meaning.
  const base = code.startsWith('SQLITE_') ? code.split('_').slice(0, 2).join('_') : code;
  // SQLite reports a directory as CANTOPEN or IOERR depending on the mode: say what it is.
  if (base.startsWith('SQLITE_') && isDirectory(what)) {
    return `database path ${what} is a directory, not a file: point "db" at a file inside it`;
  }
  switch (base) {
    case 'SQLITE_NOTADB':
      return `database file ${what} is not a SQLite database (or is encrypted or damaged beyond its header): point "db" at a ragsync index, or move the file away`;
    case 'SQLITE_CORRUPT':
      return `database file ${what} is corrupt (${raw}): restore it from a backup, or move it away and re-index`;
    case 'SQLITE_CANTOPEN':
      if (!isDirectory(dirname(what))) return `cannot open database file ${what}: its folder does not exist`;
      return existsSync(what)
        ? `cannot open database file ${what}: permission denied, or its folder is read-only (SQLite must create ${basename(what)}-wal and ${basename(what)}-shm beside it)`
        : `cannot create database file ${what}: permission denied, or its folder is read-only`;
    case 'SQLITE_READONLY':
      return `database file ${what} is read-only (the file, its folder or the file system): ragsync must be able to write it and create ${what}-wal and ${what}-shm beside it`;
    case 'SQLITE_PERM':
    case 'SQLITE_AUTH':
      return `permission denied: database file ${what}`;
    case 'SQLITE_FULL':
    case 'ENOSPC':
      return `disk full: cannot write ${what}`;
    case 'SQLITE_IOERR':
      return `I/O error on database file ${what} (${raw}): check the disk`;
    case 'SQLITE_BUSY':
    case 'SQLITE_LOCKED':
      return `database file ${what} is locked by another process for too long`;
    case 'SQLITE_NOMEM':
      return `out of memory while using database file ${what}`;
    case 'EACCES':
    case 'EPERM':
      if (e.syscall === 'listen' || e.syscall === 'bind') {
        return `permission denied to listen on ${what} (ports below 1024 need privileges): choose another --port`;
      }
      return e.syscall === 'mkdir' ? `permission denied: cannot create folder ${what}` : `permission denied: ${what}`;
    case 'EROFS':
      return `read-only file system: cannot write ${what}`;
    case 'EISDIR':
      return `${what} is a directory, not a file`;
    case 'ENOTDIR':
      return `a part of ${what} is a file, not a folder`;
    case 'ENOENT':
      return `not found: ${what}`;
    case 'EEXIST':
      return e.syscall === 'mkdir' ? `${what} exists and is not a folder` : `already exists: ${what}`;
    case 'EADDRINUSE':
      return `address ${what} is already in use (another server is listening there): stop it or choose another --port`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return e.syscall === 'getaddrinfo' && typeof (e as { hostname?: unknown }).hostname === 'string'
        ? `cannot resolve host ${(e as { hostname: string }).hostname} (check --host)`
        : null;
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${what}: no such address on this machine (check --host)`;
    default:
      return null;
  }
}

import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { LockHolder, RunLog } from '../storage/roles.ts';
import { isStorageError } from '../storage/errors.ts';
import { shownDb } from '../core/db-url.ts';
import { RagsyncError, EXIT } from '../core/errors.ts';

/**
 * Names this holding of the lock (a holder tells its own lock from a later one): unique enough
 * without node:crypto, which a no-op run would load for this alone.
 */
const lockToken = () => `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}-${Math.random().toString(36).slice(2)}`;

/**
 * The index lock: one writer at a time across processes (daemon, manual `ragsync index`, a crontab
 * run), kept as a row in the database so that taking over a dead holder's lock is atomic. A
 * process that is SIGKILLed leaves its row behind; the next run sees the holder is dead and takes
 * over. Within one process a guard refuses a second run on the same database.
 */

/** How often a holder refreshes its heartbeat. */
export const HEARTBEAT_MS = 15_000;
/** A holder on another host (whose pid we cannot check) is presumed dead after this silence. */
export const FOREIGN_STALE_MS = 120_000;

const heldHere = new Set<string>();

let bootId: string | null | undefined;
function currentBootId(): string | null {
  if (bootId === undefined) {
    try {
      bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      bootId = null;
    }
  }
  return bootId;
}

/**
 * "<boot id>:<start tick>" of a process (Linux), or null where /proc is not available. Two processes
 * with the same pid but different values are different processes (the pid was reused).
 */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) may contain spaces and parentheses: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = fields[19]; // field 22 overall
    const boot = currentBootId();
    return start && boot ? `${boot}:${start}` : null;
  } catch {
    return null;
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the holder of a lock row is gone, so its lock may be taken over. */
export function holderIsStale(h: LockHolder, now = Date.now()): boolean {
  if (h.host !== hostname()) return now - Date.parse(h.heartbeatAt) > FOREIGN_STALE_MS;
  if (!pidAlive(h.pid)) return true;
  if (h.procStart) {
    const actual = processStart(h.pid);
    if (actual && actual !== h.procStart) return true;
  }
  return false;
}

export function describeHolder(h: LockHolder): string {
  // A holder that has not said who it is yet (its row is written just after it takes the lock).
  if (!h.pid) return 'a run on another connection that has not recorded itself yet';
  return `pid ${h.pid} on ${h.host}${h.acquiredAt ? `, since ${h.acquiredAt}` : ''}`;
}

export interface IndexLock {
  readonly holder: LockHolder;
  release(): Promise<void>;
}

/**
 * Takes the index lock of `dbPath` through `store`, or throws RagsyncError(EXIT.locked) naming the
 * holder. While held, a heartbeat keeps the row fresh (for holders on other hosts to judge).
 */
export async function acquireIndexLock(store: RunLog, dbPath: string, log?: Logger, opts: { shared?: boolean } = {}): Promise<IndexLock> {
  if (heldHere.has(dbPath)) {
    throw new RagsyncError(`index is locked: a run in this process (pid ${process.pid}) is indexing ${shownDb(dbPath)}`, EXIT.locked);
  }
  const at = new Date().toISOString();
  const holder: LockHolder = {
    token: lockToken(),
    pid: process.pid,
    host: hostname(),
    procStart: processStart(process.pid),
    acquiredAt: at,
    heartbeatAt: at,
  };
  heldHere.add(dbPath);
  try {
    const attempt = await store.tryLock(holder, (h) => holderIsStale(h), opts).catch((err: unknown) => {
      // SQLite's own write lock stayed busy past the busy timeout: another process is writing.
      if (isStorageError(err, 'busy')) {
        throw new RagsyncError(`index is locked: another process has been writing ${shownDb(dbPath)} for too long`, EXIT.locked);
      }
      throw err;
    });
    if (!attempt.acquired) {
      throw new RagsyncError(`index is locked by another run (${describeHolder(attempt.holder)}): ${shownDb(dbPath)}`, EXIT.locked);
    }
    if (attempt.replaced) log?.warn({ stale: attempt.replaced }, 'took over a stale index lock (its holder is gone)');
  } catch (err) {
    heldHere.delete(dbPath);
    throw err;
  }
  const timer = setInterval(() => {
    store.heartbeatLock(holder.token).then(
      (ours) => {
        if (!ours) log?.error('index lock row disappeared while running');
      },
      (err: unknown) => log?.warn({ err: String(err) }, 'lock heartbeat failed'),
    );
  }, HEARTBEAT_MS);
  timer.unref();
  let released = false;
  return {
    holder,
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      heldHere.delete(dbPath);
      await store.releaseLock(holder.token);
    },
  };
}

/** Whether this process is running an index of `dbPath` right now. */
export function isIndexingHere(dbPath: string): boolean {
  return heldHere.has(dbPath);
}

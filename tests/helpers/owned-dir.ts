import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Temp folders that name the process owning them, so that a run killed before it could clean up
 * (SIGKILL, a closed terminal) leaves folders the next run can tell apart from everyone else's:
 * those whose owner process is gone. A folder without the owner file is never ours.
 */

/** The file in an owned folder naming its owner: "<pid> <start time>" (the start time guards against a reused pid). */
export const OWNER = 'owner.pid';

/** The process's start time in clock ticks since boot (Linux /proc), or '' where there is none. */
function startTime(pid: number): string {
  try {
    // The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
  } catch {
    return '';
  }
}

/** Whether a process runs (an exited one its parent has not yet reaped, a zombie, does not). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true; // no /proc: kill(0) has answered
  }
}

/** Marks `dir` as owned by this process. */
export function markOwned(dir: string): void {
  writeFileSync(join(dir, OWNER), `${process.pid} ${startTime(process.pid)}`);
}

/** A fresh folder `under/<prefix>XXXXXX` owned by this process. */
export function makeOwnedDir(under: string, prefix: string): string {
  const dir = mkdtempSync(join(under, prefix));
  markOwned(dir);
  return dir;
}

/** Whether `dir` is owned by a process that no longer runs; false when it has no owner file. */
export function ownerGone(dir: string): boolean {
  let text: string;
  try {
    text = readFileSync(join(dir, OWNER), 'utf8');
  } catch {
    return false;
  }
  const [pid, started] = text.trim().split(' ');
  const owner = Number(pid);
  if (!Number.isInteger(owner) || owner <= 0) return false;
  if (!alive(owner)) return true;
  // The pid runs again, but as another process (started at another time): the owner is gone.
  return Boolean(started) && Boolean(startTime(owner)) && started !== startTime(owner);
}

/** The folders `under/<prefix>*` whose owner is gone. */
export function staleOwnedDirs(under: string, prefix: string): string[] {
  let names: string[];
  try {
    names = readdirSync(under);
  } catch {
    return [];
  }
  return names.filter((n) => n.startsWith(prefix)).map((n) => join(under, n)).filter(ownerGone);
}

/**
 * Removes an owned folder, its owner file last: should removing the rest fail (a process still
 * writing into it), the folder stays marked and the next run's sweep takes it.
 */
export function removeOwnedDir(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) if (n !== OWNER) rmSync(join(dir, n), { recursive: true, force: true, maxRetries: 3 });
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}

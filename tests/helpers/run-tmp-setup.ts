import { chmodSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { basename, join } from 'node:path';
import { alive, makeOwnedDir, removeOwnedDir, staleOwnedDirs } from './owned-dir.ts';

/**
 * Sends `signal` to every process of the run whose folder is `dir`: those whose environment names
 * it (the workers and all they spawned inherit RAGSYNC_TEST_RUN_DIR). Linux /proc; elsewhere none.
 */
export function signalRunProcesses(dir: string, signal: NodeJS.Signals): number[] {
  const marker = `\0RAGSYNC_TEST_RUN_DIR=${dir}\0`;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n) && Number(n) !== process.pid);
  } catch {
    return [];
  }
  const hit: number[] = [];
  for (const pid of pids) {
    try {
      if (!`\0${readFileSync(`/proc/${pid}/environ`, 'utf8')}`.includes(marker)) continue;
      process.kill(Number(pid), signal);
      hit.push(Number(pid));
    } catch {
      // gone, or not ours to read
    }
  }
  return hit;
}

/** The prefix of a test run's temp folder in the system's temp folder. */
export const RUN_PREFIX = 'ragsync-test-run-';

/**
 * Vitest global setup: one temp folder for the whole run, owned by the run's main process, and
 * TMPDIR pointing into it, so every temp folder the run makes — the tests' own, and those of the
 * CLIs, git, npm and browsers they spawn — lands inside. The run's end removes it, so does an
 * interrupted run (Ctrl-C, a CI timeout's SIGTERM); a killed run's folder is removed by the next
 * run, which removes only run folders whose owner process is gone.
 */
export default function setup(): () => void {
  const system = tmpdir();
  for (const dir of staleOwnedDirs(system, RUN_PREFIX)) {
    // A killed run's workers (orphans spin) and what they spawned go with its folder.
    signalRunProcesses(dir, 'SIGKILL');
    removeOwnedDir(dir);
  }
  const dir = makeOwnedDir(system, RUN_PREFIX);
  // A temp folder as /tmp is: other users reach in and make their own (the test clusters' server
  // runs as `postgres` when we are root; tests run the CLI as an unprivileged user, whose tsx keeps
  // its cache here).
  chmodSync(dir, 0o1777);
  // tsx keeps its compile cache in the temp folder: the CLIs the tests spawn from the sources share
  // the one that outlives runs rather than compiling everything afresh in each.
  const tsxCache = join(system, `tsx-${process.geteuid?.() ?? userInfo().username}`);
  mkdirSync(tsxCache, { recursive: true });
  symlinkSync(tsxCache, join(dir, basename(tsxCache)));
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    process.env.TMPDIR = system;
    try {
      removeOwnedDir(dir);
    } catch {
      // something still writes there: it stays marked, and the next run removes it
    }
  };
  const interrupted = (signal: NodeJS.Signals) => {
    // The runner exits without stopping its workers, which then spin on: they go first, with what
    // they spawned, then the folder they worked in.
    const pids = signalRunProcesses(dir, 'SIGTERM');
    for (let waited = 0; waited < 3000 && pids.some(alive); waited += 50) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    remove();
    // Then what the signal would have done: the runner's own handler, else the default (exit).
    if (!process.listenerCount(signal)) process.kill(process.pid, signal);
  };
  process.prependOnceListener('exit', remove);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.prependOnceListener(signal, interrupted);
  // os.tmpdir() reads TMPDIR on every call; the workers and what they spawn inherit it. The shared
  // fixtures (tests/helpers/shared-fixture.ts) keep what one run builds once in RAGSYNC_TEST_RUN_DIR.
  process.env.TMPDIR = dir;
  process.env.RAGSYNC_TEST_RUN_DIR = dir;
  return remove;
}

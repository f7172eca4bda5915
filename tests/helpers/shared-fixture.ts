import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { markOwned, ownerGone } from './owned-dir.ts';

/**
 * Something expensive (an index of a whole corpus) built once per test run and reused, read-only,
 * by every test file that needs it. Test files run in separate processes: the first to ask builds
 * it in the run's folder (RAGSYNC_TEST_RUN_DIR, tests/helpers/run-tmp-setup.ts) while holding a
 * lock, the others wait for it. Should the builder fail, those waiting fail with its error; should
 * its process die, the next to ask builds it again. Outside a test run (no run folder) each process
 * builds its own.
 */

const WAIT_MS = 50;
const DONE = 'done.json';
const FAILED = 'failed.txt';

let local: string | undefined;
const built = new Map<string, Promise<unknown>>();

function runDir(): string {
  const dir = process.env.RAGSYNC_TEST_RUN_DIR;
  if (dir && existsSync(dir)) return dir;
  return (local ??= mkdtempSync(join(tmpdir(), 'ragsync-fixtures-')));
}

/**
 * The folder `name` after `build` has filled it once for the whole run, and what `build` returned
 * (JSON). `build` gets the empty folder; the files it leaves there must not be changed by users.
 */
export function sharedFixture<T>(name: string, build: (dir: string) => Promise<T>): Promise<{ dir: string; value: T }> {
  let p = built.get(name) as Promise<{ dir: string; value: T }> | undefined;
  if (!p) {
    p = obtain(name, build);
    built.set(name, p);
  }
  return p;
}

async function obtain<T>(name: string, build: (dir: string) => Promise<T>): Promise<{ dir: string; value: T }> {
  const root = join(runDir(), 'fixtures');
  mkdirSync(root, { recursive: true });
  const dir = join(root, name);
  const lock = `${dir}.lock`;
  for (;;) {
    if (existsSync(join(dir, DONE))) return { dir, value: JSON.parse(readFileSync(join(dir, DONE), 'utf8')) as T };
    if (existsSync(join(lock, FAILED))) throw new Error(`the shared fixture "${name}" failed to build in another test file: ${readFileSync(join(lock, FAILED), 'utf8')}`);
    let mine = false;
    try {
      mkdirSync(lock);
      mine = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (mine) {
      markOwned(lock);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir);
      let value: T;
      try {
        value = await build(dir);
      } catch (err) {
        writeFileSync(join(lock, FAILED), (err as Error).stack ?? String(err));
        throw err;
      }
      writeFileSync(join(dir, DONE), JSON.stringify(value ?? null));
      return { dir, value };
    }
    // Another process builds it; a builder that died leaves its lock to the next taker.
    if (ownerGone(lock)) rmSync(lock, { recursive: true, force: true });
    else await new Promise((r) => setTimeout(r, WAIT_MS));
  }
}

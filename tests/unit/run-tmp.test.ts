// The test run's temp folder: every temp folder of a run lands in one folder owned by the run's
// main process; the run's end or an interruption removes it, a killed run's is removed by the next
// run — and nothing else is.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alive, makeOwnedDir, OWNER, ownerGone, removeOwnedDir, staleOwnedDirs } from '../helpers/owned-dir.ts';
import { RUN_PREFIX } from '../helpers/run-tmp-setup.ts';
import { REPO_ROOT, tempDir } from '../helpers/tmp.ts';

const deadPid = () => spawnSync('true').pid!;
async function until(check: () => boolean, ms = 5000): Promise<void> {
  for (const end = Date.now() + ms; !check(); ) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('owned folders', () => {
  it('a folder is stale only when it names an owner and that owner is gone', () => {
    const t = tempDir();
    try {
      const mine = makeOwnedDir(t.dir, 'x-');
      const dead = makeOwnedDir(t.dir, 'x-');
      writeFileSync(join(dead, OWNER), `${deadPid()} 123`);
      // A live pid that started at another time than recorded: the pid was reused.
      const reused = makeOwnedDir(t.dir, 'x-');
      writeFileSync(join(reused, OWNER), `${process.pid} 1`);
      // Written by an older run: the pid alone.
      const old = makeOwnedDir(t.dir, 'x-');
      writeFileSync(join(old, OWNER), String(deadPid()));
      const unmarked = join(t.dir, 'x-unmarked');
      mkdirSync(unmarked);
      const otherPrefix = makeOwnedDir(t.dir, 'y-');
      writeFileSync(join(otherPrefix, OWNER), String(deadPid()));

      expect(ownerGone(mine)).toBe(false);
      expect(ownerGone(unmarked)).toBe(false);
      expect(staleOwnedDirs(t.dir, 'x-').sort()).toEqual([dead, reused, old].sort());
    } finally {
      t.cleanup();
    }
  });

  it('removing one takes its owner file last, so a half-removed folder stays marked', () => {
    const t = tempDir();
    try {
      const dir = makeOwnedDir(t.dir, 'x-');
      mkdirSync(join(dir, 'a', 'b'), { recursive: true });
      writeFileSync(join(dir, 'a', 'b', 'f'), 'x');
      removeOwnedDir(dir);
      expect(existsSync(dir)).toBe(false);
    } finally {
      t.cleanup();
    }
  });
});

/** A process that runs the run's temp setup under `system` and prints the folder (and TMPDIR) it made. */
function runSetup(system: string) {
  // It spawns a process of its own (as a worker would), which inherits the run's environment.
  const script = `import setup from ${JSON.stringify(join(REPO_ROOT, 'tests/helpers/run-tmp-setup.ts'))};
setup();
const worker = (await import('node:child_process')).spawn('sleep', ['600'], { stdio: 'ignore' });
console.log(JSON.stringify({ dir: process.env.RAGSYNC_TEST_RUN_DIR, tmp: (await import('node:os')).tmpdir(), worker: worker.pid }));
setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: REPO_ROOT, env: { ...process.env, TMPDIR: system }, stdio: ['ignore', 'pipe', 'inherit'] });
  const started = new Promise<{ dir: string; tmp: string; worker: number }>((resolve) => {
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!));
    });
  });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  return { child, started, exited };
}

// (tsx's cache folder, made in the temp folder by the child's tsx, is not one.)
const runFolders = (under: string) => readdirSync(under).filter((n) => n.startsWith(RUN_PREFIX)).map((n) => join(under, n));

describe('the run folder', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`an interrupted run (${signal}) stops its processes and removes its folder, and the signal still ends it`, async () => {
      const t = tempDir();
      try {
        const run = runSetup(t.dir);
        const { dir, tmp, worker } = await run.started;
        expect(dir.startsWith(join(t.dir, RUN_PREFIX))).toBe(true);
        expect(tmp).toBe(dir);
        mkdirSync(join(dir, 'ragsync-something-abc', 'deep'), { recursive: true });
        run.child.kill(signal);
        expect(await run.exited).toBe(signal);
        expect(runFolders(t.dir)).toEqual([]);
        expect(alive(worker)).toBe(false);
      } finally {
        t.cleanup();
      }
    });
  }

  it("a killed run's processes and folder are removed by the next run; a running run's and others' folders are not", async () => {
    const t = tempDir();
    try {
      const killed = runSetup(t.dir);
      const { dir: left, worker: orphan } = await killed.started;
      writeFileSync(join(left, 'leftover'), 'x');
      killed.child.kill('SIGKILL');
      await killed.exited;
      expect(existsSync(left)).toBe(true);
      expect(alive(orphan)).toBe(true);
      const unmarked = join(t.dir, `${RUN_PREFIX}someone-elses`);
      mkdirSync(unmarked);
      const running = runSetup(t.dir);
      const { dir: live } = await running.started;
      const next = runSetup(t.dir);
      const { dir: mine } = await next.started;
      expect(runFolders(t.dir).sort()).toEqual([unmarked, live, mine].sort());
      await until(() => !alive(orphan));
      for (const r of [running, next]) {
        r.child.kill('SIGTERM');
        await r.exited;
      }
      expect(runFolders(t.dir)).toEqual([unmarked]);
    } finally {
      t.cleanup();
    }
  });
});

// One run at a time: across processes (the index lock row) and within one (the in-process guard).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';

import { holderIsStale, processStart, FOREIGN_STALE_MS } from '../../src/sync/lock.ts';
import { RagsyncError, EXIT } from '../../src/core/errors.ts';
import { CLASSICS, classicsUpstream, cli, dbState, isStopped, setBranch, spawnCli, waitFor, writeConfig, hasClassics, classicsCorpus } from './daemon-helpers.ts';
import { runIndex } from '../../src/engine/library.ts';

let tmp: string;
let url: string;
let file: string;
let db: string;

beforeAll(async () => {
  if (!hasClassics) return;
  tmp = mkdtempSync(join(tmpdir(), 'ragsync-lock-'));
  url = classicsUpstream(tmp, CLASSICS.initial);
  ({ file, db } = writeConfig(tmp, { url }));
  expect((await runIndex(loadConfig(file))).status).toBe('ok');
});

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const QUERY = '甲木 日主 身弱';

function setLock(holder: { pid: number; host?: string; procStart?: string | null; heartbeatAt?: string }): void {
  const c = new BetterSqlite3(db);
  const at = holder.heartbeatAt ?? new Date().toISOString();
  c.prepare(
    `INSERT OR REPLACE INTO index_lock (id, token, pid, host, proc_start, acquired_at, heartbeat_at)
     VALUES (1, 'test', ?, ?, ?, ?, ?)`,
  ).run(holder.pid, holder.host ?? hostname(), holder.procStart ?? null, at, at);
  c.close();
}

describe.skipIf(!hasClassics)(classicsCorpus.title('two concurrent `ragsync index` processes'), () => {
  it('one indexes, the other exits 75 naming the holder; a search meanwhile sees a consistent index', async () => {
    const before = await cli(['search', QUERY, '-c', file, '--json', '-k', '5']);
    expect(before.code, before.stderr).toBe(0);
    expect(JSON.parse(before.stdout)).toHaveLength(5);
    const runsBefore = dbState(db).runs.length;

    setBranch(url, CLASSICS.tip); // real work for the first process: the 2 commits after the initial one
    // A freezes (SIGSTOP) right after its first batch of vectors commits, holding the lock.
    const a = spawnCli(['index', '-c', file, '--json'], { RAGSYNC_FAILPOINT: 'after-vectors:1:stop' });
    await waitFor(() => isStopped(a.pid!) || a.exitCode !== null, 'the first index to reach its first batch');
    expect(a.exitCode).toBeNull();

    const b = await cli(['index', '-c', file, '--json']);
    expect(b.code).toBe(EXIT.locked);
    expect(b.stdout).toBe('');
    const line = b.stderr.trim();
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toContain(`pid ${a.pid}`);
    expect(line).toMatch(/^ragsync: index is locked by another run/);

    // Mid-run, a search answers from the last committed state: the new vectors are not referenced
    // by any chunk yet, so the answer is exactly the one from before the run.
    const during = await cli(['search', QUERY, '-c', file, '--json', '-k', '5']);
    expect(during.code, during.stderr).toBe(0);
    expect(JSON.parse(during.stdout)).toEqual(JSON.parse(before.stdout));
    const mid = dbState(db);
    expect(mid.runs).toHaveLength(runsBefore + 1); // the loser started no run
    expect(mid.runs.at(-1)!.status).toBe('running');
    expect(mid.lock?.pid).toBe(a.pid);

    a.kill('SIGCONT');
    const done = await a.done;
    expect(done.code, done.stderr).toBe(0);
    const result = JSON.parse(done.stdout) as { status: string; embedded: number };
    expect(result.status).toBe('ok');
    expect(result.embedded).toBeGreaterThan(0);
    const after = dbState(db);
    expect(after.integrity).toBe('ok');
    expect(after.lock).toBeNull();
    expect(after.runs.at(-1)!.status).toBe('ok');
  });
});

describe.skipIf(!hasClassics)(classicsCorpus.title('two `ragsync index` started at once on a new database'), () => {
  it('both migrate safely; one indexes everything, the other is locked out (or, if it came late, finds nothing to do)', async () => {
    const dir = join(tmp, 'race');
    mkdirSync(dir);
    const race = writeConfig(dir, { url });
    const [x, y] = await Promise.all([cli(['index', '-c', race.file, '--json']), cli(['index', '-c', race.file, '--json'])]);
    const outcomes = [x, y].map((r) => (r.code === 0 ? (JSON.parse(r.stdout) as { embedded: number }).embedded : r.code));
    const distinct = dbState(race.db).distinctTexts;
    expect(distinct).toBeGreaterThan(0);
    // Sorted: the run that embedded everything, then 75 (locked) or 0 texts embedded (ran after it).
    expect(outcomes.sort((a, b) => b! - a!)).toSatisfy(
      (o: (number | null)[]) => (o[0] === distinct && (o[1] === EXIT.locked || o[1] === 0)),
    );
    expect(dbState(race.db).integrity).toBe('ok');
  });
});

describe.skipIf(!hasClassics)(classicsCorpus.title('stale locks'), () => {
  it('takes over a lock whose process is gone, or whose pid now belongs to another process', async () => {
    const gone = spawnSync('true'); // a pid that existed and is gone
    setLock({ pid: gone.pid });
    expect((await runIndex(loadConfig(file))).status).toBe('ok');
    expect(dbState(db).lock).toBeNull();

    // Our own pid is alive, but the recorded start time says it was another process.
    setLock({ pid: process.pid, procStart: 'another-boot:1' });
    expect((await runIndex(loadConfig(file))).status).toBe('ok');
    expect(dbState(db).lock).toBeNull();
  });

  it('refuses while the holder is alive (exit 75, nothing written)', async () => {
    setLock({ pid: process.pid, procStart: processStart(process.pid) });
    const runs = dbState(db).runs.length;
    const r = await cli(['index', '-c', file]);
    expect(r.code).toBe(75);
    expect(r.stderr).toContain(`pid ${process.pid} on ${hostname()}`);
    expect(dbState(db).runs).toHaveLength(runs);
    const c = new BetterSqlite3(db);
    c.prepare('DELETE FROM index_lock').run();
    c.close();
  });

  it('judges a holder on another host by its heartbeat', () => {
    const now = Date.now();
    const base = { token: 't', pid: 1, host: 'elsewhere.example', procStart: null, acquiredAt: new Date(now).toISOString() };
    expect(holderIsStale({ ...base, heartbeatAt: new Date(now - 1000).toISOString() }, now)).toBe(false);
    expect(holderIsStale({ ...base, heartbeatAt: new Date(now - FOREIGN_STALE_MS - 1).toISOString() }, now)).toBe(true);
  });
});

describe.skipIf(!hasClassics)(classicsCorpus.title('in-process guard'), () => {
  it('a second run in the same process is refused while the first holds the lock', async () => {
    const cfg = loadConfig(file);
    const [first, second] = await Promise.allSettled([runIndex(cfg), runIndex(cfg)]);
    expect(first.status).toBe('fulfilled');
    expect(second.status).toBe('rejected');
    const err = (second as PromiseRejectedResult).reason as RagsyncError;
    expect(err).toBeInstanceOf(RagsyncError);
    expect(err.exitCode).toBe(EXIT.locked);
    expect(err.message).toContain('in this process');
    // And once the first is done the lock is free again.
    expect((await runIndex(cfg)).status).toBe('ok');
  });
});

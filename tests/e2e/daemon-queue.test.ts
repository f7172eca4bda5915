// The Daemon scheduler in process: first-run flags, and requests merged instead of overlapping.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import { Daemon } from '../../src/daemon/daemon.ts';
import { silentLogger } from '../../src/core/log.ts';
import { classicsUpstream, dbState, writeConfig, hasClassics, classicsCorpus } from './daemon-helpers.ts';

let tmp: string;
let file: string;
let db: string;

beforeAll(() => {
  if (!hasClassics) return;
  tmp = mkdtempSync(join(tmpdir(), 'ragsync-queue-'));
  ({ file, db } = writeConfig(tmp, { url: classicsUpstream(tmp), daemon: { schedule: '0 0 1 1 *' } }));
});

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe.skipIf(!hasClassics)(classicsCorpus.title('Daemon'), () => {
  it('--dry-run applies to the first run only; runs requested meanwhile are merged, never overlapping', async () => {
    const d = new Daemon({ config: loadConfig(file), log: silentLogger, runOnStart: true, dryRun: true });
    d.start();
    // Requested while the first (dry) run is going: merged into one run after it.
    d.request(null, 'cron');
    d.request(null, 'cron');
    await d.whenIdle();
    const runs = dbState(db).runs;
    expect(runs).toHaveLength(1); // the dry run records nothing; the merged requests ran once
    expect(runs[0]).toMatchObject({ trigger: 'cron', status: 'ok' });
    expect(runs[0]!.embedded).toBe(dbState(db).distinctTexts);
    expect(await d.stop()).toBe('stopped');
    d.request(null, 'cron'); // after stop: ignored
    await d.whenIdle();
    expect(dbState(db).runs).toHaveLength(1);
    const health = await d.health();
    expect(health).toMatchObject({ ok: true, statusCode: 200, status: 'ok' });
  });

  it('--force applies to the first run', async () => {
    const d = new Daemon({ config: loadConfig(file), log: silentLogger, runOnStart: true, force: true });
    d.start();
    await d.whenIdle();
    d.request(null, 'cron');
    await d.whenIdle();
    await d.stop();
    const runs = dbState(db).runs.slice(-2);
    expect(runs.map((r) => r.trigger)).toEqual(['start', 'cron']);
    expect(runs[0]!.embedded).toBe(dbState(db).distinctTexts); // forced: everything again
    expect(runs[1]!.embedded).toBe(0);
  });
});

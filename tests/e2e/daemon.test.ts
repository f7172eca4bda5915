// `ragsync daemon`: runs on a cron schedule, records runs, answers /healthz, and stops gracefully.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';

import { classicsUpstream, cli, dbState, isStopped, spawnCli, waitFor, writeConfig, type DbState, hasClassics, classicsCorpus } from './daemon-helpers.ts';
import { runIndex } from '../../src/engine/library.ts';

const STOP_BOUND_MS = 10_000;
let tmp: string;
let url: string;
let reference: DbState;

beforeAll(async () => {
  if (!hasClassics) return;
  tmp = mkdtempSync(join(tmpdir(), 'ragsync-daemon-'));
  url = classicsUpstream(tmp);
  const dir = join(tmp, 'reference');
  mkdirSync(dir);
  const { file, db } = writeConfig(dir, { url });
  expect((await runIndex(loadConfig(file))).status).toBe('ok');
  reference = dbState(db);
});

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

function logLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe.skipIf(!hasClassics)(classicsCorpus.title('ragsync daemon'), () => {
  it('runs on a per-second schedule, records cron runs, serves /healthz and /search, stops on SIGTERM with exit 0', async () => {
    const dir = join(tmp, 'scheduled');
    mkdirSync(dir);
    const { file } = writeConfig(dir, { url });
    const d = spawnCli(['daemon', '-c', file, '--schedule', '* * * * * *', '--serve', '--port', '0']);
    let out = '';
    d.stdout!.on('data', (b: Buffer) => (out += b.toString()));
    await waitFor(() => /"msg":"run ok"/.test(out) || d.exitCode !== null, 'a scheduled run', 60_000);
    expect(d.exitCode).toBeNull();

    const base = logLines(out).find((l) => l.msg === 'serving the HTTP API')!.url as string;
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
    const health = (await res.json()) as { ok: boolean; status: string; lastSuccessAgeMs: number };
    expect(health.ok).toBe(true);
    expect(health.status).toBe('ok');
    expect(typeof health.lastSuccessAgeMs).toBe('number');
    // The same process serves the search API over the index it keeps up to date.
    const search = await fetch(`${base}/search?q=${encodeURIComponent('甲木')}&k=3`);
    expect(search.status).toBe(200);
    expect(((await search.json()) as { results: unknown[] }).results.length).toBeGreaterThan(0);

    const status = await cli(['status', '-c', file, '--json']);
    expect(status.code, status.stderr).toBe(0);
    const report = JSON.parse(status.stdout) as {
      sources: { name: string }[];
      runs: { id: number; trigger: string; status: string; startedAt: string; finishedAt: string | null; embedded: number; retries: number }[];
    };
    expect(report.sources.map((s) => s.name)).toEqual(['classics']);
    const done = report.runs.filter((r) => r.status !== 'running');
    expect(done[0]).toMatchObject({ trigger: 'cron', status: 'ok', retries: 0 });
    expect(done.at(-1)!.embedded).toBe(reference.distinctTexts); // the first run embedded everything
    const ids = report.runs.map((r) => r.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a)); // newest first
    for (const r of done) expect(Date.parse(r.finishedAt!)).toBeGreaterThanOrEqual(Date.parse(r.startedAt));

    d.kill('SIGTERM');
    const exit = await d.done;
    expect(exit.code).toBe(0);
    expect(exit.stderr).toBe(''); // the daemon logs to stdout only
    const lines = logLines(exit.stdout); // and every line is JSON (not a terminal)
    expect(lines.at(-1)!.msg).toBe('daemon stopped');
    expect(lines.filter((l) => typeof l.msg === 'string' && /^run (ok|partial|failed|aborted)$/.test(l.msg)).length).toBeGreaterThan(0);
  });

  it('SIGTERM during a run: exits 0 within the bound, database consistent, the next run resumes', async () => {
    const dir = join(tmp, 'sigterm');
    mkdirSync(dir);
    const { file, db } = writeConfig(dir, { url, daemon: { schedule: '0 0 1 1 *', stopTimeoutMs: STOP_BOUND_MS } });
    // The run freezes right after its third batch of vectors commits; SIGTERM arrives there.
    const d = spawnCli(['daemon', '-c', file, '--run-on-start'], { RAGSYNC_FAILPOINT: 'after-vectors:3:stop' });
    await waitFor(() => isStopped(d.pid!) || d.exitCode !== null, 'the run to reach its third batch', 60_000);
    expect(d.exitCode).toBeNull();
    const t0 = Date.now();
    d.kill('SIGTERM');
    d.kill('SIGCONT');
    const exit = await d.done;
    const elapsed = Date.now() - t0;
    expect(exit.code, exit.stdout + exit.stderr).toBe(0);
    expect(elapsed).toBeLessThan(STOP_BOUND_MS);
    const msgs = logLines(exit.stdout).map((l) => l.msg);
    expect(msgs).toContain('run aborted');
    expect(msgs.at(-1)).toBe('daemon stopped');

    const after = dbState(db);
    expect(after.integrity).toBe('ok');
    expect(after.lock).toBeNull();
    expect(after.runs.at(-1)).toMatchObject({ status: 'aborted', trigger: 'start' });
    expect(after.vectors).toBeGreaterThanOrEqual(3 * 8); // the committed batches were kept
    expect(after.vectors).toBeLessThan(reference.distinctTexts);

    const next = await runIndex(loadConfig(file));
    expect(next.status).toBe('ok');
    const final = dbState(db);
    expect(final.chunks).toEqual(reference.chunks);
    expect(final.referencedVectors).toEqual(reference.referencedVectors);
    expect(next.textsEmbedded).toBe(final.distinctTexts - after.vectors);
  });
});

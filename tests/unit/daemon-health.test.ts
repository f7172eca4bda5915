import { describe, expect, it } from 'vitest';
import { computeHealth } from '../../src/daemon/health.ts';
import type { RunRecord } from '../../src/storage/roles.ts';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-01-01T12:00:00Z');
let nextId = 100;

/** A run that finished `agoMs` before NOW. Lists are newest first, as status() returns them. */
function run(status: RunRecord['status'], agoMs: number): RunRecord {
  const at = new Date(NOW - agoMs).toISOString();
  return {
    id: nextId--,
    trigger: 'cron',
    status,
    startedAt: at,
    finishedAt: status === 'running' ? null : at,
    fingerprint: 'hash:x',
    forced: false,
    textsEmbedded: 0,
    requests: 0,
    tokens: 0,
    retries: 0,
    error: null,
    sources: [],
  };
}

describe('computeHealth', () => {
  it('200 with the age of the last success', () => {
    const h = computeHealth([run('ok', 10 * 60_000), run('ok', HOUR)], { intervalMs: HOUR, now: NOW });
    expect(h).toMatchObject({ ok: true, statusCode: 200, status: 'ok', lastSuccessAgeMs: 10 * 60_000, consecutiveFailures: 0 });
  });

  it('a partial run counts as a success; aborted and running runs count neither way', () => {
    const h = computeHealth([run('running', 0), run('aborted', 60_000), run('partial', HOUR)], { intervalMs: HOUR, now: NOW });
    expect(h).toMatchObject({ statusCode: 200, lastSuccessAgeMs: HOUR, running: true });
  });

  it('503 when no success within twice the interval', () => {
    const h = computeHealth([run('ok', 2 * HOUR + 1)], { intervalMs: HOUR, now: NOW });
    expect(h).toMatchObject({ ok: false, statusCode: 503, status: 'stale', maxAgeMs: 2 * HOUR });
    expect(computeHealth([run('ok', 2 * HOUR)], { intervalMs: HOUR, now: NOW }).statusCode).toBe(200);
  });

  it('503 after the first failed run by default, even with a recent success, with the error as the reason', () => {
    const failed = { ...run('failed', 60_000), error: 'embedding failed (openai-compatible m at http://127.0.0.1:9/v1): HTTP 503: down' };
    const runs = [failed, run('failed', 120_000), run('ok', 180_000)];
    const two = computeHealth(runs, { intervalMs: HOUR, now: NOW });
    expect(two).toMatchObject({ statusCode: 503, status: 'failing', consecutiveFailures: 2, failuresToUnhealthy: 1 });
    expect(two.reason).toBe(`the last 2 runs failed (run #${failed.id}: ${failed.error})`);
    const one = computeHealth(runs.slice(1), { intervalMs: HOUR, now: NOW });
    expect(one).toMatchObject({ statusCode: 503, consecutiveFailures: 1 });
    expect(one.reason).toMatch(/^the last run failed \(run #\d+: no error recorded\)$/);
    // A deployment that tolerates a blip says so in config (daemon.failuresToUnhealthy).
    expect(computeHealth(runs.slice(1), { intervalMs: HOUR, now: NOW, failuresToUnhealthy: 2 }).statusCode).toBe(200);
    expect(computeHealth(runs, { intervalMs: HOUR, now: NOW, failuresToUnhealthy: 2 }).statusCode).toBe(503);
    // One good run and it is healthy again.
    expect(computeHealth([run('ok', 1000), ...runs], { intervalMs: HOUR, now: NOW })).toMatchObject({ statusCode: 200, status: 'ok', consecutiveFailures: 0 });
  });

  it('says why in one sentence', () => {
    expect(computeHealth([run('ok', 10 * 60_000)], { intervalMs: HOUR, now: NOW }).reason).toMatch(/^last successful run #\d+ 10m ago$/);
    expect(computeHealth([run('ok', 3 * HOUR)], { intervalMs: HOUR, now: NOW }).reason).toMatch(
      /^the last successful run \(#\d+\) was 3h ago, more than twice the schedule's interval \(2h\)$/,
    );
    expect(computeHealth([], { intervalMs: HOUR, now: NOW }).reason).toBe('no successful run yet');
  });

  it('no run yet: healthy while the daemon is young, then 503', () => {
    expect(computeHealth([], { intervalMs: HOUR, now: NOW, since: NOW - HOUR })).toMatchObject({ statusCode: 200, status: 'starting', lastSuccessAgeMs: null });
    expect(computeHealth([], { intervalMs: HOUR, now: NOW, since: NOW - 3 * HOUR })).toMatchObject({ statusCode: 503, status: 'stale' });
    expect(computeHealth([], { intervalMs: HOUR, now: NOW }).statusCode).toBe(503);
  });
});

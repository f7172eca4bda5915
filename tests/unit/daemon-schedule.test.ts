import { describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import { healthIntervalMs, scheduleIntervalMs, scheduleJobs } from '../../src/daemon/schedule.ts';
import { RagsyncError } from '../../src/core/errors.ts';
import { refreshSources } from '../../src/daemon/intervals.ts';
import { Debounce, watchedSources } from '../../src/daemon/watch.ts';

const source = (name: string, extra: Record<string, unknown> = {}) => ({ name, kind: 'dir', path: `/tmp/${name}`, ...extra });

describe('daemon config', () => {
  it('defaults to hourly, no run on start', () => {
    const c = parseConfig({ sources: [source('a')] });
    expect(c.daemon).toMatchObject({ schedule: '0 * * * *', runOnStart: false, stopTimeoutMs: 20_000 });
  });

  it('rejects a bad cron expression or time zone with the field named', () => {
    expect(() => parseConfig({ sources: [source('a')], daemon: { schedule: 'every hour' } })).toThrow(
      /daemon\.schedule: not a valid cron expression .*"every hour"/,
    );
    expect(() => parseConfig({ sources: [source('a', { schedule: '61 * * * *' })] })).toThrow(/sources\[0\]\.schedule/);
    expect(() => parseConfig({ sources: [source('a')], daemon: { timezone: 'Mars/Olympus' } })).toThrow(/daemon\.timezone/);
  });
});

describe('scheduleJobs', () => {
  it('one job for all sources, or the default plus one per own schedule', () => {
    expect(scheduleJobs(parseConfig({ sources: [source('a'), source('b')] }))).toEqual([{ expression: '0 * * * *', sources: null }]);
    const c = parseConfig({
      sources: [source('a'), source('b', { schedule: '*/5 * * * *' }), source('c', { schedule: '*/5 * * * *' })],
      daemon: { schedule: '30 * * * *' },
    });
    expect(scheduleJobs(c)).toEqual([
      { expression: '30 * * * *', sources: ['a'] },
      { expression: '*/5 * * * *', sources: ['b', 'c'] },
    ]);
    // --schedule overrides the default (six fields: seconds first).
    expect(scheduleJobs(c, '*/10 * * * * *')[0]).toEqual({ expression: '*/10 * * * * *', sources: ['a'] });
    expect(() => scheduleJobs(c, 'nope')).toThrow(RagsyncError);
  });

  it('the interval is the longest gap between firings', () => {
    expect(scheduleIntervalMs('0 * * * *')).toBe(3_600_000);
    expect(scheduleIntervalMs('* * * * * *')).toBe(1000);
    expect(scheduleIntervalMs('0 9 * * 1-5', 'UTC')).toBe(3 * 24 * 3_600_000); // Friday → Monday
    // Health uses the shortest job: any successful run counts.
    const c = parseConfig({ sources: [source('a'), source('b', { schedule: '*/5 * * * *' })] });
    expect(healthIntervalMs(c)).toBe(5 * 60_000);
  });
});

describe('refreshIntervalMs and watch', () => {
  it('a source with refreshIntervalMs leaves the cron jobs; health takes the shortest of both', () => {
    const c = parseConfig({
      sources: [source('a'), source('b', { refreshIntervalMs: 60_000 }), source('c', { schedule: '0 */6 * * *' })],
      daemon: { schedule: '0 * * * *' },
    });
    expect(scheduleJobs(c)).toEqual([
      { expression: '0 * * * *', sources: ['a'] },
      { expression: '0 */6 * * *', sources: ['c'] },
    ]);
    expect(healthIntervalMs(c)).toBe(60_000);
    // Every source on its own interval: no cron job at all.
    const only = parseConfig({ sources: [source('a', { refreshIntervalMs: 7_200_000 })] });
    expect(scheduleJobs(only)).toEqual([]);
    expect(healthIntervalMs(only)).toBe(7_200_000);
    expect(refreshSources(c)).toEqual([{ name: 'b', everyMs: 60_000 }]);
  });

  it('rejects schedule with refreshIntervalMs, watch on a git source, and out-of-range values, naming the field', () => {
    expect(() => parseConfig({ sources: [source('a', { schedule: '0 * * * *', refreshIntervalMs: 60_000 })] })).toThrow(
      /sources\[0\]\.refreshIntervalMs: give schedule or refreshIntervalMs, not both/,
    );
    expect(() => parseConfig({ sources: [{ name: 'g', url: 'https://example.com/r.git', watch: true }] })).toThrow(
      /sources\[0\]\.watch: only for a dir source \(this one is git\)/,
    );
    expect(() => parseConfig({ sources: [source('a', { refreshIntervalMs: 10 })] })).toThrow(/sources\[0\]\.refreshIntervalMs/);
    expect(() => parseConfig({ sources: [source('a')], daemon: { watchDebounceMs: -1 } })).toThrow(/daemon\.watchDebounceMs/);
    expect(parseConfig({ sources: [source('a')] }).daemon?.watchDebounceMs).toBe(1000);
    expect(() => parseConfig({ sources: [source('a')], daemon: { leaseSeconds: 0 } })).toThrow(/daemon\.leaseSeconds/);
    expect(() => parseConfig({ sources: [source('a')], daemon: { leaseSeconds: 2.5 } })).toThrow(/daemon\.leaseSeconds/);
    expect(parseConfig({ sources: [source('a')] }).daemon?.leaseSeconds).toBe(120);
  });

  it('--watch takes every dir source but those set "watch": false; without it, those set true', () => {
    const c = parseConfig({
      sources: [source('a'), source('b', { watch: false }), source('c', { watch: true }), { name: 'g', url: 'https://example.com/r.git' }],
    });
    expect(watchedSources(c, true).map((s) => s.name)).toEqual(['a', 'c']);
    expect(watchedSources(c, false).map((s) => s.name)).toEqual(['c']);
    expect(() => watchedSources(parseConfig({ sources: [{ name: 'g', url: 'https://example.com/r.git' }] }), true)).toThrow(/--watch: .*no dir source/);
  });
});

describe('Debounce', () => {
  it('fires once after a quiet period for a burst, and at the latest maxWait after the first poke', async () => {
    vi.useFakeTimers();
    try {
      const fired: number[] = [];
      const d = new Debounce(100, 300, (n) => fired.push(n));
      for (let i = 0; i < 20; i++) {
        d.poke();
        vi.advanceTimersByTime(5);
      }
      expect(fired).toEqual([]);
      vi.advanceTimersByTime(100);
      expect(fired).toEqual([20]);
      // Pokes every 50 ms never leave 100 ms quiet: maxWait fires anyway.
      for (let i = 0; i < 10; i++) {
        d.poke();
        vi.advanceTimersByTime(50);
      }
      expect(fired).toEqual([20, 6]);
      // The four pokes after it are pending; cancel (the daemon stopping) drops them.
      d.poke();
      d.cancel();
      vi.advanceTimersByTime(1000);
      expect(fired).toEqual([20, 6]);
    } finally {
      vi.useRealTimers();
    }
  });
});

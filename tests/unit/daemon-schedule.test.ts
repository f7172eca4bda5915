import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import { healthIntervalMs, scheduleIntervalMs, scheduleJobs } from '../../src/daemon/schedule.ts';
import { RagsyncError } from '../../src/core/errors.ts';

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

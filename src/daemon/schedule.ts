import cron from 'node-cron';
import type { Config } from '../config/load.ts';
import { RagsyncError, EXIT } from '../core/errors.ts';

/** One cron job of the daemon: when, and which sources (null: every source without its own schedule). */
export interface ScheduleJob {
  expression: string;
  sources: string[] | null;
}

export function assertCron(expr: string, where: string): void {
  if (!cron.validate(expr)) {
    throw new RagsyncError(`${where}: not a valid cron expression (5 fields, or 6 with seconds first) (got "${expr}")`, EXIT.usage);
  }
}

/**
 * The daemon's jobs: the default schedule (config `daemon.schedule`, or `--schedule`) for sources
 * without a schedule or a refreshIntervalMs of their own, plus one job per distinct per-source
 * schedule. Sources with refreshIntervalMs run on their own timers (intervals.ts).
 */
export function scheduleJobs(config: Config, override?: string): ScheduleJob[] {
  const main = override ?? config.daemon?.schedule ?? '0 * * * *';
  assertCron(main, override ? '--schedule' : 'daemon.schedule');
  const own = new Map<string, string[]>();
  const rest: string[] = [];
  for (const s of config.sources) {
    if (s.schedule) own.set(s.schedule, [...(own.get(s.schedule) ?? []), s.name]);
    else if (!s.refreshIntervalMs) rest.push(s.name);
  }
  const jobs: ScheduleJob[] = [];
  if (rest.length) jobs.push({ expression: main, sources: rest.length === config.sources.length ? null : rest });
  for (const [expression, sources] of own) jobs.push({ expression, sources });
  return jobs;
}

/**
 * The longest gap between two consecutive firings over the next `samples` firings: the interval
 * health compares the last success against ("0 9 * * 1-5" gives the weekend's 72 h).
 */
export function scheduleIntervalMs(expression: string, timezone?: string, samples = 60): number {
  const task = cron.createTask(expression, () => {}, timezone ? { timezone } : {});
  try {
    const next = task.getNextRuns(samples).map((d) => d.getTime());
    let max = 0;
    for (let i = 1; i < next.length; i++) max = Math.max(max, next[i]! - next[i - 1]!);
    return max || 3_600_000;
  } finally {
    void task.destroy();
  }
}

/**
 * The interval health judges the index by: the shortest of the daemon's jobs and sources'
 * refreshIntervalMs (any successful run counts). `ragsync serve` can use it too, for an index kept
 * fresh by a daemon or a crontab.
 */
export function healthIntervalMs(config: Config, override?: string): number {
  const tz = config.daemon?.timezone;
  return Math.min(
    ...scheduleJobs(config, override).map((j) => scheduleIntervalMs(j.expression, tz)),
    ...config.sources.flatMap((s) => (s.refreshIntervalMs ? [s.refreshIntervalMs] : [])),
  );
}

/** What health is judged against for this config: its schedule's interval and failure threshold. */
export function healthOptions(config: Config, override?: string): { intervalMs: number; failuresToUnhealthy?: number } {
  return { intervalMs: healthIntervalMs(config, override), failuresToUnhealthy: config.daemon?.failuresToUnhealthy };
}

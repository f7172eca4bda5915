import type { Config } from '../config/load.ts';
import { computeHealth } from '../daemon/health.ts';
import { scheduleIntervalMs, scheduleJobs } from '../daemon/schedule.ts';
import type { Store } from '../storage/types.ts';
import type { HealthReport } from './http.ts';

/**
 * /healthz for `ragsync serve`: the daemon's health rules (issue 5) over the run history, judged
 * against the config's schedules — 503 when the last runs failed or no run succeeded within twice
 * the longest gap between scheduled runs. Before any success it says "starting" for that long.
 */
export function scheduleHealth(store: Store, config: Config, since = Date.now()): () => Promise<HealthReport> {
  const tz = config.daemon?.timezone;
  const intervalMs = Math.min(...scheduleJobs(config).map((j) => scheduleIntervalMs(j.expression, tz)));
  return async () => {
    const h = computeHealth(await store.recentRuns(20), { intervalMs, since });
    return { status: h.statusCode, body: { ...h } };
  };
}

import type { RunLog, RunRecord } from '../storage/roles.ts';

export interface HealthOptions {
  /** The schedule's interval: no success within twice this is unhealthy. */
  intervalMs: number;
  now?: number;
  /** When the daemon started: before any success, it is healthy ("starting") for 2 intervals. */
  since?: number;
  /** This many failed runs in a row (newest first) make it unhealthy even if a success is recent. */
  failuresToUnhealthy?: number;
}

export interface Health {
  ok: boolean;
  statusCode: 200 | 503;
  status: 'ok' | 'starting' | 'stale' | 'failing';
  lastSuccessAt: string | null;
  lastSuccessAgeMs: number | null;
  maxAgeMs: number;
  consecutiveFailures: number;
  lastRun: { id: number; status: string; startedAt: string; finishedAt: string | null } | null;
  running: boolean;
}

const SUCCESS = new Set(['ok', 'partial']);

/**
 * Health from the run history (newest first): 200 with the age of the last successful run (ok or
 * partial); 503 when the last runs failed, or when nothing succeeded within twice the interval.
 * Aborted runs (a stop, a kill) count neither way; a run in progress is reported, not judged.
 */
export function computeHealth(runs: RunRecord[], opts: HealthOptions): Health {
  const now = opts.now ?? Date.now();
  const maxAgeMs = 2 * opts.intervalMs;
  const threshold = opts.failuresToUnhealthy ?? 2;
  const finished = runs.filter((r) => r.status !== 'running' && r.status !== 'aborted');
  let consecutiveFailures = 0;
  for (const r of finished) {
    if (r.status !== 'failed') break;
    consecutiveFailures++;
  }
  const success = finished.find((r) => SUCCESS.has(r.status));
  const lastSuccessAt = success ? (success.finishedAt ?? success.startedAt) : null;
  const lastSuccessAgeMs = lastSuccessAt ? Math.max(0, now - Date.parse(lastSuccessAt)) : null;
  let status: Health['status'];
  if (consecutiveFailures >= threshold) status = 'failing';
  else if (lastSuccessAgeMs !== null && lastSuccessAgeMs <= maxAgeMs) status = 'ok';
  else if (lastSuccessAgeMs === null && opts.since !== undefined && now - opts.since <= maxAgeMs) status = 'starting';
  else status = 'stale';
  const ok = status === 'ok' || status === 'starting';
  const last = runs[0];
  return {
    ok,
    statusCode: ok ? 200 : 503,
    status,
    lastSuccessAt,
    lastSuccessAgeMs,
    maxAgeMs,
    consecutiveFailures,
    lastRun: last ? { id: last.id, status: last.status, startedAt: last.startedAt, finishedAt: last.finishedAt } : null,
    running: last?.status === 'running',
  };
}

/** Health of the index behind `store` (any process may be the writer: runs are in the database). */
export async function storeHealth(store: Pick<RunLog, 'recentRuns'>, opts: HealthOptions): Promise<Health> {
  return computeHealth(await store.recentRuns(20), opts);
}

/** The shape the HTTP server's `health` hook takes: status code + JSON body. */
export function healthReport(h: Health): { status: number; body: Record<string, unknown> } {
  return { status: h.statusCode, body: { ...h } };
}

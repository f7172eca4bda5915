import type { RunLog, RunRecord } from '../storage/roles.ts';

export interface HealthOptions {
  /** The schedule's interval: no success within twice this is unhealthy. */
  intervalMs: number;
  now?: number;
  /** When the daemon started: before any success, it is healthy ("starting") for 2 intervals. */
  since?: number;
  /**
   * This many failed runs in a row (newest first) make it unhealthy even if a success is recent.
   * Default 1: an hourly daemon whose run could not embed is reported at once, not two hours later.
   */
  failuresToUnhealthy?: number;
}

export interface Health {
  ok: boolean;
  statusCode: 200 | 503;
  status: 'ok' | 'starting' | 'stale' | 'failing';
  /** The verdict in one sentence (the error of the failed run, the age of the last success …). */
  reason: string;
  lastSuccessAt: string | null;
  lastSuccessAgeMs: number | null;
  maxAgeMs: number;
  consecutiveFailures: number;
  failuresToUnhealthy: number;
  lastRun: { id: number; status: string; startedAt: string; finishedAt: string | null; error: string | null } | null;
  running: boolean;
  /** A Postgres worker (daemon): the sources it holds now; none: idle. */
  worker?: { state: 'idle' | 'indexing'; holding: { source: string; heldForMs: number; tick: string }[] };
}

export const DEFAULT_FAILURES_TO_UNHEALTHY = 1;

const SUCCESS = new Set(['ok', 'partial']);

/** "3h 5m", "42s": ages in reasons, for people. */
export function formatAge(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h${m % 60 ? ` ${m % 60}m` : ''}`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

/**
 * Health from the run history (newest first): 200 with the age of the last successful run (ok or
 * partial); 503 when the last runs failed, or when nothing succeeded within twice the interval.
 * Aborted runs (a stop, a kill) count neither way; a run in progress is reported, not judged.
 */
export function computeHealth(runs: RunRecord[], opts: HealthOptions): Health {
  const now = opts.now ?? Date.now();
  const maxAgeMs = 2 * opts.intervalMs;
  const threshold = opts.failuresToUnhealthy ?? DEFAULT_FAILURES_TO_UNHEALTHY;
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
  let reason: string;
  if (consecutiveFailures >= threshold) {
    status = 'failing';
    const failed = finished[0]!;
    const runsWord = consecutiveFailures === 1 ? 'the last run' : `the last ${consecutiveFailures} runs`;
    reason = `${runsWord} failed (run #${failed.id}: ${failed.error ?? 'no error recorded'})`;
  } else if (lastSuccessAgeMs !== null && lastSuccessAgeMs <= maxAgeMs) {
    status = 'ok';
    reason = `last successful run #${success!.id} ${formatAge(lastSuccessAgeMs)} ago`;
  } else if (lastSuccessAgeMs === null && opts.since !== undefined && now - opts.since <= maxAgeMs) {
    status = 'starting';
    reason = `no successful run yet, started ${formatAge(now - opts.since)} ago`;
  } else {
    status = 'stale';
    reason =
      lastSuccessAgeMs === null
        ? 'no successful run yet'
        : `the last successful run (#${success!.id}) was ${formatAge(lastSuccessAgeMs)} ago, more than twice the schedule's interval (${formatAge(maxAgeMs)})`;
  }
  const ok = status === 'ok' || status === 'starting';
  const last = runs[0];
  return {
    ok,
    statusCode: ok ? 200 : 503,
    status,
    reason,
    lastSuccessAt,
    lastSuccessAgeMs,
    maxAgeMs,
    consecutiveFailures,
    failuresToUnhealthy: threshold,
    lastRun: last ? { id: last.id, status: last.status, startedAt: last.startedAt, finishedAt: last.finishedAt, error: last.error } : null,
    running: last?.status === 'running',
  };
}

/** Health of the index behind `store` (any process may be the writer: runs are in the database). */
export async function storeHealth(store: Pick<RunLog, 'recentRuns'>, opts: HealthOptions): Promise<Health> {
  return computeHealth(await store.recentRuns(Math.max(20, (opts.failuresToUnhealthy ?? 1) + 1)), opts);
}

/** The shape the HTTP server's `health` hook takes: status code + JSON body. */
export function healthReport(h: Health): { status: number; body: Record<string, unknown> } {
  return { status: h.statusCode, body: { ...h } };
}

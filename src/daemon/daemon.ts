import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from 'pino';
import type { Config } from '../config/load.ts';
import type { Embedder } from '../embedding/types.ts';
import type { RunLog } from '../storage/roles.ts';
import type { IndexResult } from '../sync/run.ts';
import { openEngine, type Engine } from '../engine/engine.ts';
import { RagsyncError, EXIT, errorMessage } from '../core/errors.ts';
import { isDatabaseUrl } from '../core/db-url.ts';
import { sourcesHeldHere } from '../sync/lease.ts';
import { computeHealth, storeHealth, type Health } from './health.ts';
import { healthIntervalMs, scheduleJobs, type ScheduleJob } from './schedule.ts';
import { refreshSources, startRefreshTimers } from './intervals.ts';
import { watchSources, watchedSources } from './watch.ts';

export interface DaemonOptions {
  config: Config;
  log: Logger;
  /** Overrides config daemon.schedule (sources with their own schedule keep it). */
  schedule?: string;
  runOnStart?: boolean;
  /** Apply to the first run only. */
  dryRun?: boolean;
  force?: boolean;
  stopTimeoutMs?: number;
  /** Watch every dir source (but those set `"watch": false`); without it, those set `"watch": true`. */
  watch?: boolean;
  /** The engine runs index with (its embedder serves every run); default: one over `config`, closed at stop. */
  engine?: Engine;
  /** Tests: use this embedder (when no engine is given). */
  embedder?: Embedder;
}

/** A firing's time to the second (ISO), whatever the lag of the timer that fired it. */
const tickOf = (d: Date) => new Date(Math.floor(d.getTime() / 1000) * 1000).toISOString();

export type StopOutcome = 'stopped' | 'timeout';

/**
 * A watch or interval run that finds the index locked (a manual run) is asked for again this much
 * later: its change would otherwise wait for the next change or a whole interval.
 */
export const LOCKED_RETRY_MS = 5000;

/**
 * The scheduler: node-cron jobs, per-source refresh timers and folder watches request runs;
 * requests made while a run is going are merged and run right after it (one run at a time in this
 * process; the index lock covers other processes).
 */
export class Daemon {
  readonly jobs: ScheduleJob[];
  readonly intervalMs: number;
  /** The dir sources whose folders this daemon watches. */
  readonly watched: string[];
  readonly startedAt = Date.now();
  private readonly tasks: ScheduledTask[] = [];
  private readonly closers: (() => void)[] = [];
  private readonly retries = new Set<NodeJS.Timeout>();
  private readonly abort = new AbortController();
  /** Sources requested and not yet run; 'all' for every source. */
  private pending: Set<string> | 'all' | null = null;
  private pendingTrigger = 'cron';
  private pendingTick: string | undefined;
  private current: Promise<void> | null = null;
  private firstRun = true;
  private stopping = false;
  private readonly engine: Engine;
  runs = 0;

  constructor(private readonly o: DaemonOptions) {
    this.engine = o.engine ?? openEngine(o.config, { lifetime: 'long-lived', log: o.log, embedder: o.embedder });
    this.jobs = scheduleJobs(o.config, o.schedule);
    this.intervalMs = healthIntervalMs(o.config, o.schedule);
    this.watched = watchedSources(o.config, !!o.watch).map((s) => s.name);
  }

  /** Starts the cron jobs at once; resolves when the refresh timers and folder watches are set too. */
  async start(): Promise<void> {
    const tz = this.o.config.daemon?.timezone;
    for (const job of this.jobs) {
      // The tick a firing is for, the same in every worker whose clock agrees to the second: each
      // source is indexed once per tick however many daemons share the index.
      const task = cron.schedule(job.expression, (ctx) => this.request(job.sources, 'cron', `cron:${job.expression}@${tickOf(ctx.date)}`), {
        name: `ragsync:${job.sources?.join(',') ?? 'all'}`,
        ...(tz ? { timezone: tz } : {}),
      });
      this.tasks.push(task);
      this.o.log.info({ schedule: job.expression, timezone: tz ?? 'system', sources: job.sources ?? 'all', next: task.getNextRun() }, 'scheduled');
    }
    if (this.o.runOnStart ?? this.o.config.daemon?.runOnStart) this.request(null, 'start');
    await Promise.all([this.startRefreshTimers(), this.startWatching()]);
  }

  private async startRefreshTimers(): Promise<void> {
    const sources = refreshSources(this.o.config);
    if (!sources.length) return;
    const last = await this.lastSynced();
    if (this.stopping) return;
    const timers = startRefreshTimers(sources, last, (name) => this.request([name], 'interval'), this.o.log);
    this.closers.push(() => timers.stop());
  }

  /** When each source was last synced, as the index recorded it. */
  private async lastSynced(): Promise<Map<string, number>> {
    if (!(await this.engine.indexExists())) return new Map();
    const store = this.engine.openStore('search');
    try {
      const { sources } = await store.status({ runs: 0 });
      return new Map(sources.flatMap((s) => (s.indexedAt ? [[s.name, Date.parse(s.indexedAt)] as const] : [])));
    } finally {
      await store.close();
    }
  }

  /**
   * Watches the folders, then syncs the watched sources once: what changed while no daemon was
   * watching is picked up, and what the index already holds (same size and mtime) is not read.
   */
  private async startWatching(): Promise<void> {
    if (!this.watched.length) return;
    const sources = this.o.config.sources.filter((s) => this.watched.includes(s.name));
    const quietMs = this.o.config.daemon?.watchDebounceMs ?? 1000;
    const watch = await watchSources(sources, quietMs, (name) => this.request([name], 'watch'), this.o.log);
    if (this.stopping) return watch.close();
    this.closers.push(() => watch.close());
    this.request(this.watched, 'watch');
  }

  /** Asks for a run of `sources` (null: all). Never overlaps: merged into the next run if one is going. */
  request(sources: string[] | null, trigger: string, tick?: string): void {
    if (this.stopping) return;
    if (sources === null || this.pending === 'all') this.pending = 'all';
    else this.pending = new Set([...(this.pending ?? []), ...sources]);
    this.pendingTrigger = trigger;
    this.pendingTick = tick;
    if (!this.current) this.current = this.drain().finally(() => (this.current = null));
  }

  private async drain(): Promise<void> {
    while (this.pending && !this.stopping) {
      const want = this.pending;
      const trigger = this.pendingTrigger;
      const tick = this.pendingTick;
      this.pending = null;
      await this.runOnce(want === 'all' ? undefined : [...want].sort(), trigger, tick);
    }
  }

  private async runOnce(sources: string[] | undefined, trigger: string, tick?: string): Promise<IndexResult | null> {
    const first = this.firstRun;
    this.firstRun = false;
    const log = this.o.log;
    try {
      const result = await this.engine.index({
        sources,
        trigger,
        ...(tick ? { tick } : {}),
        dryRun: first && !!this.o.dryRun,
        force: first && !!this.o.force,
        log,
        signal: this.abort.signal,
      });
      this.runs++;
      return result;
    } catch (err) {
      if (err instanceof RagsyncError && err.exitCode === EXIT.locked) {
        const retry = sources && (trigger === 'watch' || trigger === 'interval');
        log.warn({ trigger, ...(retry ? { retryInMs: LOCKED_RETRY_MS } : {}) }, `run skipped: ${err.message}`);
        if (retry) this.retryLater(sources, trigger);
      } else log.error({ trigger, err: errorMessage(err) }, 'run failed to start');
      return null;
    }
  }

  private retryLater(sources: string[], trigger: string): void {
    const t = setTimeout(() => {
      this.retries.delete(t);
      this.request(sources, trigger);
    }, LOCKED_RETRY_MS);
    this.retries.add(t);
  }

  /** Resolves when no run is going or queued. */
  async whenIdle(): Promise<void> {
    while (this.current) await this.current;
  }

  /** Health from the run history (for /healthz), judged against this daemon's schedule. */
  async health(store?: Pick<RunLog, 'recentRuns'>): Promise<Health> {
    return this.withWorker(await this.runHealth(store));
  }

  private async runHealth(store?: Pick<RunLog, 'recentRuns'>): Promise<Health> {
    const opts = { intervalMs: this.intervalMs, since: this.startedAt, failuresToUnhealthy: this.o.config.daemon?.failuresToUnhealthy };
    if (store) return storeHealth(store, opts);
    if (!(await this.engine.indexExists())) return computeHealth([], opts);
    const own = this.engine.openStore('search');
    try {
      return await storeHealth(own, opts);
    } finally {
      await own.close();
    }
  }

  /** On Postgres this daemon is one of the index's workers: what it holds, or that it is idle. */
  private withWorker(h: Health): Health {
    if (!isDatabaseUrl(this.o.config.db)) return h;
    const now = Date.now();
    const holding = sourcesHeldHere().map((l) => ({ source: l.source, heldForMs: now - l.since, tick: l.tick }));
    return { ...h, worker: { state: holding.length ? 'indexing' : 'idle', holding } };
  }

  /**
   * Graceful stop: no new runs, abort the current one (it stops after the batch in flight commits),
   * wait at most `stopTimeoutMs` for it.
   */
  async stop(): Promise<StopOutcome> {
    this.stopping = true;
    this.pending = null;
    for (const t of this.tasks) await t.destroy();
    for (const close of this.closers) close();
    for (const t of this.retries) clearTimeout(t);
    this.abort.abort();
    const outcome = await this.settle();
    // Its own engine's connections end with it (a run still in flight after a timeout keeps them).
    if (outcome === 'stopped' && !this.o.engine) await this.engine.close();
    return outcome;
  }

  private async settle(): Promise<StopOutcome> {
    if (!this.current) return 'stopped';
    const bound = this.o.stopTimeoutMs ?? this.o.config.daemon?.stopTimeoutMs ?? 20_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<StopOutcome>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), bound);
    });
    try {
      return await Promise.race([this.current.then((): StopOutcome => 'stopped'), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

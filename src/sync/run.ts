import type { Logger } from 'pino';
import type { Config, SourceConfig } from '../config/load.ts';
import { selectSources } from '../config/select.ts';
import { RagsyncError, EXIT, errorMessage } from '../core/errors.ts';
import { silentLogger } from '../core/log.ts';
import { defaultAnalyzer } from '../core/text/analyzer.ts';
import type { Embedder } from '../embedding/types.ts';
import { sourceKind, type SnapshotContext } from '../sources/registry.ts';
import type { Snapshot, UnlistedSnapshot } from '../sources/types.ts';
import type { RunSourceRecord, SourceLeases, SyncStore } from '../storage/roles.ts';
import type { Progress } from './apply.ts';
import { EmbedderFailure } from './embedder-failure.ts';
import { acquireIndexLock, type IndexLock } from './lock.ts';
import { DEFAULT_LEASE_SECONDS, leaseRenewal } from './lease.ts';
import { failpoint } from '../core/failpoint.ts';
import { workerIdentity } from '../core/worker.ts';
import { isStorageError } from '../storage/errors.ts';
import { cedictLexicon } from './lexicon/cedict.ts';
import { htmlPreparerOf } from './build-document.ts';
import { pipelineFingerprint, type Pipeline } from './plan.ts';
import { listingKey } from './listing.ts';
import { emptyResult, type IndexOptions, type IndexResult, type IndexStatus, type SourceResult } from './run-result.ts';
import { flatCounts, syncSource, type SourceRunContext } from './source-pipeline.ts';

export type { IndexOptions, IndexResult, IndexStatus, SourceResult } from './run-result.ts';
export { flatCounts };

export const STATUS_EXIT: Record<IndexStatus, number> = {
  ok: EXIT.ok,
  partial: EXIT.partial,
  failed: EXIT.failed,
  aborted: EXIT.failed,
};

export { selectSources };

async function snapshotOf(config: Config, source: SourceConfig, store: SyncStore, ctx: Omit<SnapshotContext, 'stored' | 'indexedCommit'>): Promise<Snapshot | UnlistedSnapshot> {
  const stored = async () => new Map((await store.listDocuments(source.name)).map((d) => [d.path, d.stamp]));
  const indexedCommit = (await store.sourceListing(source.name))?.commit ?? null;
  return sourceKind(config, source.kind).snapshot(source, { ...ctx, indexedCommit, stored });
}

/**
 * The commit at which a git source need not be listed: the one its last complete run recorded
 * under the listing key these settings give. Any doubt lists: dry runs, --force, --max-docs, no
 * key (never indexed in full, partial, deferred, or a run that wrote and did not finish).
 */
async function unlistedCommit(config: Config, store: SyncStore, source: SourceConfig, key: (commit: string) => string, opts: IndexOptions): Promise<string | undefined> {
  if (!sourceKind(config, source.kind).listingKey || opts.dryRun || opts.force || opts.maxDocs !== undefined) return undefined;
  const held = await store.sourceListing(source.name);
  if (!held?.commit || !held.listing) return undefined;
  return held.listing === key(held.commit) ? held.commit : undefined;
}

/**
 * A run fails when no source got through, or when the embedder failed and none of the texts the
 * run planned to embed was stored: the index stopped following upstream, and health must say so.
 * Sources left out after an earlier failure ('skipped') do not count as getting through.
 */
function overallStatus(results: SourceResult[], aborted: boolean, embedderFailed: boolean): IndexStatus {
  if (aborted) return 'aborted';
  if (!results.some((r) => r.status === 'ok' || r.status === 'partial')) return 'failed';
  const planned = results.reduce((n, r) => n + r.planned.texts, 0);
  const stored = results.reduce((n, r) => n + r.written.texts, 0);
  if (embedderFailed && planned > 0 && stored === 0) return 'failed';
  if (results.some((r) => r.status !== 'ok')) return 'partial';
  return 'ok';
}

/** Exit code of a run: a configuration problem found mid-run (a missing API key) is still a 2. */
function exitCodeOf(status: IndexStatus, failures: unknown[]): number {
  if (status === 'failed' && failures.some((e) => e instanceof RagsyncError && e.exitCode === EXIT.usage)) return EXIT.usage;
  return STATUS_EXIT[status];
}

/** What a run works with, built by the engine (src/engine): the caller owns and closes both. */
export interface RunDeps {
  embedder: Embedder;
  /** Opened for this run's kind (a dry run's store writes nothing). */
  store: SyncStore;
}

/**
 * One indexing run over the selected sources, as an async generator of progress events that
 * returns the run's result. Per source: snapshot (git fetch), plan, then (unless a dry run) apply.
 * A source that fails is recorded and the others still run; the index keeps its previous state
 * for the failed one.
 */
export async function* syncRun(config: Config, opts: IndexOptions, deps: RunDeps): AsyncGenerator<Progress, IndexResult> {
  const started = Date.now();
  const log = opts.log ?? silentLogger;
  const dryRun = !!opts.dryRun;
  const selected = selectSources(config, opts.sources);
  const pipelines = new Map(selected.map((s): [string, Pipeline] => [s.name, pipelineOf(config, s)]));
  const { embedder, store } = deps;
  const fingerprint = embedder.info.fingerprint;
  // A long-lived embedder serves many runs: a run reports its own requests.
  const before = { ...embedder.stats };
  const trigger = opts.trigger ?? 'manual';
  const results: SourceResult[] = [];
  const dropped = { texts: 0 };
  let runId: number | null = null;
  let aborted = false;
  let stopRest: string | null = null;
  let lock: IndexLock | null = null;
  const failures: unknown[] = [];
  let unusable: string | null = null;
  // On Postgres, runs are workers: each source is claimed under a lease, the run lock is shared.
  const leases = !dryRun && store.claimSource ? (store as SyncStore & SourceLeases) : null;
  const leaseSeconds = config.daemon?.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
  const worker = workerIdentity();
  const tick = opts.tick ?? `${trigger}:${worker.host}:${worker.pid}:${started}`;
  const startRun = async () => (runId ??= await store.startRun({ trigger, fingerprint, forced: !!opts.force }));
  try {
    if (!dryRun) {
      // Before anything else: only a lock holder may mark 'running' runs as interrupted.
      lock = await acquireIndexLock(store, config.db, log, { shared: !!leases });
      const stale = await store.abortStaleRuns();
      if (stale) log.warn({ runs: stale }, 'marked interrupted runs as aborted');
      await store.registerEmbedder(embedder.info);
      // A worker records a run once it holds a source: one that finds nothing to claim stays idle.
      if (!leases) await startRun();
      // An embedder that cannot work at all (its key is not set) fails the run before any source
      // is touched, recorded like any failed run so health hears of it.
      try {
        embedder.ready?.();
      } catch (err) {
        failures.push(err);
        unusable = errorMessage(err);
        stopRest = `not run: ${unusable}`;
        log.error({ embedder: fingerprint }, errorMessage(err));
        await startRun();
      }
    }
    // Every source is fetched at once (network waits and git processes overlap); planning and
    // applying then go one source at a time. A failed fetch surfaces when its source's turn comes.
    // A worker fetches a source only once it holds it.
    const keyOf = (s: SourceConfig) => (commit: string) => listingKey(s, commit, pipelineFingerprint(pipelines.get(s.name)!), fingerprint);
    const fetch = async (s: SourceConfig) => {
      const prepareHtml = htmlPreparerOf(pipelines.get(s.name)!);
      const unlistedAt = await unlistedCommit(config, store, s, keyOf(s), opts);
      return snapshotOf(config, s, store, { dryRun, log, unlistedAt, signal: opts.signal, prepareHtml });
    };
    const snapshots = new Map<string, Promise<Snapshot | UnlistedSnapshot>>();
    const fetchNow = (s: SourceConfig) => {
      const p = fetch(s);
      p.catch(() => {}); // handled when the source's turn comes
      snapshots.set(s.name, p);
    };
    if (!leases && !unusable) for (const s of selected) fetchNow(s);
    const ctx: SourceRunContext = {
      config,
      store,
      embedder,
      log,
      dryRun,
      force: !!opts.force,
      maxDocs: opts.maxDocs,
      allowEmpty: !!opts.allowEmpty,
      allowDelete: !!opts.allowDelete,
      signal: opts.signal,
      embeddedThisRun: new Set<string>(),
      dropped,
    };
    const runSource = async function* (source: SourceConfig): AsyncGenerator<Progress, SourceResult> {
      const state = await store.ensureSource({ name: source.name, kind: source.kind, ...sourceKind(config, source.kind).record(source) });
      const result = emptyResult(source.name, state.commit);
      results.push(result);
      if (!stopRest && opts.signal?.aborted) {
        aborted = true;
        stopRest = 'not run: stopped';
      }
      if (stopRest) {
        result.error = stopRest;
        // Every source fails with an embedder that cannot work; after a failure, the rest are left out.
        if (unusable) result.status = 'failed';
        return result;
      }
      if (!snapshots.has(source.name)) fetchNow(source);
      const outcome = yield* syncSource(ctx, {
        source,
        state,
        pipeline: pipelines.get(source.name)!,
        fetched: snapshots.get(source.name)!,
        listingKey: keyOf(source),
        result,
      });
      if (outcome.aborted) aborted = true;
      if ('failure' in outcome && !isStorageError(outcome.failure, 'lease')) {
        failures.push(outcome.failure);
        // An embedder or database failure will fail the next source too: stop here, keep what is stored.
        stopRest = `not run: ${source.name} failed first`;
      }
      return result;
    };
    if (!leases) {
      for (const source of selected) yield* runSource(source);
    } else if (!unusable) {
      const byName = new Map(selected.map((s) => [s.name, s]));
      // Claim, index, release: one source at a time until none is free for this tick.
      while (!stopRest && !opts.signal?.aborted) {
        const lease = await leases.claimSource([...byName.keys()], tick, worker, leaseSeconds, started);
        if (!lease) break;
        byName.delete(lease.source);
        const id = await startRun();
        if (lease.tookOver) log.warn({ source: lease.source, from: lease.tookOver, tick: lease.tick }, 'took over a source whose worker stopped renewing its lease');
        failpoint('source-claimed');
        const renew = leaseRenewal(leases, lease, leaseSeconds, log);
        let result: SourceResult;
        try {
          result = yield* runSource(byName.get(lease.source) ?? selected.find((s) => s.name === lease.source)!);
        } finally {
          renew.stop();
        }
        const released = await leases.releaseLease(lease, id, toRunSource(result));
        if (!released) log.warn({ source: lease.source }, 'the source\'s lease was taken over before its run was recorded');
      }
    }
    // The packed codes one-shot searches read: rewritten when the run (or an older one) moved the
    // index past them. A derived cache: failing to write it costs searches speed, not results.
    if (!dryRun && !unusable && !aborted && store.refreshCodePack) {
      await store.refreshCodePack(fingerprint).catch((err: unknown) => log.warn({ err: errorMessage(err) }, 'could not write the packed vector codes'));
    }
    // A worker that found every source taken or done for this tick was idle: nothing failed.
    let idle: IndexResult['idle'];
    if (leases && !results.length && !failures.length && !aborted && !unusable) {
      const names = new Set(selected.map((s) => s.name));
      const rows = (await leases.leases()).filter((l) => names.has(l.source));
      idle = { held: rows.filter((l) => l.held), done: rows.filter((l) => !l.held).map((l) => l.source) };
    }
    const status = leases && !results.length && !failures.length ? (aborted ? 'aborted' : 'ok') : overallStatus(results, aborted, failures.some((e) => e instanceof EmbedderFailure));
    const result: IndexResult = {
      status,
      dryRun,
      textsEmbedded: results.reduce((n, r) => n + r.written.texts, 0),
      textsDropped: dropped.texts,
      durationMs: Date.now() - started,
      fingerprint,
      runId,
      trigger,
      requests: embedder.stats.requests - before.requests,
      tokens: embedder.stats.tokens - before.tokens,
      retries: embedder.stats.retries - before.retries,
      sources: results,
      ...(idle ? { idle } : {}),
      exitCode: exitCodeOf(status, failures),
    };
    if (dropped.texts) log.warn({ texts: dropped.texts }, 'stop timed out: texts in flight were dropped (embedded again next run)');
    if (runId !== null) await recordFinish(store, runId, result, log);
    // The level carries the verdict too, for log-based alerting.
    const level = status === 'ok' ? 'info' : status === 'failed' ? 'error' : 'warn';
    log[level](runSummary(result), `run ${status}`);
    return result;
  } finally {
    await lock?.release().catch((err: unknown) => log.warn({ err: errorMessage(err) }, 'could not release the index lock'));
  }
}

/**
 * Records the run's outcome. When the full record cannot be written (disk full), the status alone
 * is tried, so the run does not stay 'running'.
 */
async function recordFinish(store: SyncStore, runId: number, r: IndexResult, log: Logger): Promise<void> {
  const finish = {
    status: r.status,
    textsEmbedded: r.textsEmbedded,
    requests: r.requests,
    tokens: r.tokens,
    retries: r.retries,
    error: r.sources.find((s) => s.error)?.error ?? null,
    sources: r.sources.map(toRunSource),
  };
  try {
    await store.finishRun(runId, finish);
  } catch (err) {
    log.error({ runId, err: errorMessage(err) }, 'could not record the run in full; recording its status only');
    await store.finishRun(runId, { ...finish, sources: [] }).catch((e: unknown) =>
      log.error({ runId, err: errorMessage(e) }, 'could not record the run'),
    );
  }
}

/** The one log line a run ends with. */
export function runSummary(r: IndexResult) {
  return {
    runId: r.runId,
    trigger: r.trigger,
    status: r.status,
    dryRun: r.dryRun,
    textsEmbedded: r.textsEmbedded,
    requests: r.requests,
    tokens: r.tokens,
    retries: r.retries,
    durationMs: r.durationMs,
    sources: r.sources.map((s) => ({
      name: s.name,
      status: s.status,
      commitBefore: s.commitBefore,
      commit: s.commit,
      ...(r.dryRun ? { planned: flatCounts(s.planned) } : { written: flatCounts(s.written) }),
      ...(s.error ? { error: s.error } : {}),
    })),
  };
}

function toRunSource(r: SourceResult): RunSourceRecord {
  return {
    source: r.name,
    status: r.status,
    commitBefore: r.commitBefore,
    commitAfter: r.commit,
    planned: r.planned,
    written: r.written,
    skippedFiles: r.skippedFiles,
    error: r.error,
  };
}

/** The chunker and analyzer of a source's profile. */
function pipelineOf(config: Config, s: SourceConfig): Pipeline {
  return {
    chunker: config.profiles.createChunker(s.chunker, s.chunking),
    analyzer: config.profiles.get(s.profile).analyzer ?? defaultAnalyzer,
    ...(s.lexicon ? { lexicon: cedictLexicon() } : {}),
    content: { html: { contentSelector: s.contentSelector, excludeSelectors: s.excludeSelectors ?? [] } },
  };
}

/** Runs a run's generator to the end, handing each progress event to `onProgress`. */
export async function toEnd(it: AsyncGenerator<Progress, IndexResult>, onProgress?: (p: Progress) => void): Promise<IndexResult> {
  for (;;) {
    const step = await it.next();
    if (step.done) return step.value;
    onProgress?.(step.value);
  }
}

import { dirname } from 'node:path';
import type { Logger } from 'pino';
import type { Config, SourceConfig } from '../config/load.ts';
import { errorMessage } from '../core/errors.ts';
import { describeIoError } from '../core/io-errors.ts';
import type { WorkCounts } from '../core/types.ts';
import type { Embedder } from '../embedding/types.ts';
import { snapshotPreview, snapshotSkips, sourceKind } from '../sources/registry.ts';
import type { Snapshot, UnlistedSnapshot } from '../sources/types.ts';
import type { SourceState, SyncStore } from '../storage/roles.ts';
import { isStorageError } from '../storage/errors.ts';
import { isDatabaseUrl, shownDb } from '../core/db-url.ts';
import { AbortedError, applyPlan, type Progress } from './apply.ts';
import { judgeDeletions } from './delete-guard.ts';
import { lostContent } from './lost-content.ts';
import { planSource, planUnlisted, type Pipeline, type SourcePlan } from './plan.ts';
import type { SourceResult } from './run-result.ts';

/**
 * One source's turn in a run, as named steps: list (the fetched snapshot, or none when the commit
 * and settings are those of the last complete run), plan, guard (refuse mass deletions), apply
 * (embed, then write) and record (the commit reached). Each step fills the source's result; the
 * run around it (run.ts) holds the lock, the run record and the order of sources.
 */

/** What every source of a run shares. */
export interface SourceRunContext {
  config: Config;
  store: SyncStore;
  embedder: Embedder;
  log: Logger;
  dryRun: boolean;
  force: boolean;
  maxDocs?: number;
  allowEmpty: boolean;
  allowDelete: boolean;
  signal?: AbortSignal;
  /** Texts stored earlier in this run (another source may share them): never sent twice. */
  embeddedThisRun: Set<string>;
  dropped: { texts: number };
}

/** What one source's pipeline did, for the run to decide about the sources after it. */
export interface SourceOutcome {
  /** The run was stopped during this source. */
  aborted: boolean;
  /** An apply failure (the embedder or the database): the run leaves the remaining sources out. */
  failure?: unknown;
}

export interface SourceJob {
  source: SourceConfig;
  state: SourceState;
  pipeline: Pipeline;
  fetched: Promise<Snapshot | UnlistedSnapshot>;
  /** The listing key of these settings at a commit (sync/listing.ts). */
  listingKey: (commit: string) => string;
  result: SourceResult;
}

export async function* syncSource(ctx: SourceRunContext, job: SourceJob): AsyncGenerator<Progress, SourceOutcome> {
  let plan: SourcePlan | undefined;
  try {
    return yield* syncPlanned(ctx, job, (p) => (plan = p));
  } finally {
    // What the plan kept for apply, whether applied, refused, a dry run or failed.
    plan?.release();
  }
}

async function* syncPlanned(ctx: SourceRunContext, job: SourceJob, planned: (plan: SourcePlan) => void): AsyncGenerator<Progress, SourceOutcome> {
  const { source, result } = job;
  let plan: SourcePlan;
  try {
    plan = await listAndPlan(ctx, job);
    planned(plan);
    result.planned = plan.counts;
    result.estimatedTokens = plan.tokens;
    result.deferred = plan.deferred;
    result.skippedFiles = plan.skipped;
    result.plan = plan;
    for (const s of plan.skipped) ctx.log[s.intended ? 'info' : 'warn']({ source: source.name, path: s.path }, s.reason);
    // Files a chunker left out or cut into line windows, with its reason (the code chunker: generated, grammar failed).
    for (const w of plan.write) if (w.doc.note) ctx.log[w.doc.note.level]({ source: source.name, path: w.doc.path }, w.doc.note.message);
    if (!(await guard(ctx, job, plan))) return { aborted: false };
  } catch (err) {
    result.status = 'failed';
    result.error = errorMessage(err);
    ctx.log.error({ source: source.name }, result.error);
    return { aborted: !!ctx.signal?.aborted };
  }
  ctx.log.info({ source: source.name, commit: plan.commitAfter, dryRun: ctx.dryRun, listed: plan.listed, read: plan.filesRead, planned: flatCounts(plan.counts) }, 'planned');
  yield { type: 'planned', source: source.name, plan };
  // Apply may leave out files that changed while it read them: partial is asked again after it.
  // What a source left out as asked (a site's noindex pages) is listed but is not a failure.
  const partial = () => plan.skipped.some((s) => !s.intended) || plan.deferred > 0;
  if (ctx.dryRun) {
    result.status = partial() ? 'partial' : 'ok';
    return { aborted: false };
  }
  try {
    yield* apply(ctx, job, plan);
    await record(ctx, job, plan, partial());
    result.status = partial() ? 'partial' : 'ok';
    return { aborted: false };
  } catch (err) {
    result.status = 'failed';
    result.error = describeWriteError(err, ctx.config.db);
    ctx.log.error({ source: source.name }, result.error);
    return { aborted: err instanceof AbortedError || !!ctx.signal?.aborted, failure: err };
  }
}

/** List and plan: an unlisted snapshot plans nothing to do unless some stored text lacks its vector. */
async function listAndPlan(ctx: SourceRunContext, job: SourceJob): Promise<SourcePlan> {
  const { source, state } = job;
  const { store } = ctx;
  const fetched = await job.fetched;
  job.result.commit = fetched.commit;
  job.result.wouldFetch = snapshotPreview(fetched);
  const planOpts = {
    force: ctx.force,
    maxDocs: ctx.maxDocs,
    fingerprint: ctx.embedder.info.fingerprint,
    commitBefore: state.commit,
    // A dry run keeps nothing for apply; a run keeps the documents it builds next to a file index.
    outlineOnly: ctx.dryRun,
    ...(isDatabaseUrl(ctx.config.db) ? {} : { spillDir: dirname(ctx.config.db) }),
  };
  const unlisted = 'unlisted' in fetched ? await planUnlisted(store, source, fetched.commit, state.documents, planOpts) : null;
  if (unlisted) {
    ctx.log.debug({ source: source.name, commit: fetched.commit }, 'unchanged since its last complete run: not listed');
    return unlisted;
  }
  // An unlisted snapshot here has a stored text without its vector: the recorded listing no
  // longer vouches for the documents, and the source is listed after all.
  if ('unlisted' in fetched) await store.forgetSourceListing(source.name);
  const snapshot = 'unlisted' in fetched ? await fetched.list() : fetched;
  const plan = await planSource(store, source, snapshot, job.pipeline, planOpts);
  const unfit = unfitInclude(source, snapshot.files, job.pipeline);
  if (unfit) ctx.log.warn({ source: source.name, include: source.include }, unfit);
  // What the snapshot itself could not take (a web page that timed out) is reported like a skipped file.
  const skips = snapshotSkips(fetched);
  plan.skipped.push(...skips);
  plan.counts.documents.skipped += skips.length;
  return plan;
}

/** Files listed, none of the kind the source's chunker is made for: its include globs do not fit it. */
function unfitInclude(source: SourceConfig, files: readonly { path: string }[], pipeline: Pipeline): string | null {
  const expects = pipeline.chunker.expects;
  if (!expects || !files.length || files.some((f) => expects(f.path))) return null;
  return (
    `source "${source.name}": no file of the kind the "${source.chunker}" chunker reads among the ${files.length} listed ` +
    `(include: ${source.include.map((g) => JSON.stringify(g)).join(', ')}): set "include" to globs that fit it, or drop it for the chunker's default`
  );
}

/**
 * Between plan and apply: a plan that would empty a source, or drop most of its content, is
 * refused (dry runs show the refusal too) and the source keeps every document it has.
 */
async function guard(ctx: SourceRunContext, job: SourceJob, plan: SourcePlan): Promise<boolean> {
  const { source, state, result } = job;
  const lost = await lostContent(ctx.store, plan);
  const verdict = judgeDeletions({
    where: `source "${source.name}" (${sourceKind(ctx.config, source.kind).describe(source)})`,
    stored: state.documents,
    listed: plan.listed,
    ...lost,
    maxDeleteShare: source.maxDeleteShare,
    allowEmpty: source.allowEmpty || ctx.allowEmpty,
    allowMassDelete: ctx.allowDelete || ctx.force,
    configPath: `sources[${ctx.config.sources.indexOf(source)}]`,
  });
  if (verdict.allowed) return true;
  result.status = 'failed';
  result.error = verdict.reason;
  ctx.log.error({ source: source.name, deleting: plan.delete.length, documents: state.documents, listed: plan.listed, ...lost }, verdict.reason);
  return false;
}

async function* apply(ctx: SourceRunContext, job: SourceJob, plan: SourcePlan): AsyncGenerator<Progress, void> {
  // Whatever this run writes, the recorded listing no longer vouches for the documents until it finishes.
  if (plan.write.length || plan.delete.length) await ctx.store.forgetSourceListing(job.source.name);
  yield* applyPlan(
    plan,
    {
      store: ctx.store,
      embedder: ctx.embedder,
      embeddedThisRun: ctx.embeddedThisRun,
      signal: ctx.signal,
      stopTimeoutMs: ctx.config.daemon?.stopTimeoutMs,
      dropped: ctx.dropped,
    },
    job.result.written,
  );
}

/**
 * The commit is recorded only once everything up to it is indexed; a deferred rest keeps the old
 * one. With it, when nothing was left out, the listing key: the next run at this commit and these
 * settings lists nothing. The source's own copy (a git checkout) moves to the commit just before:
 * until then it stays where the index is, and a copy that cannot move keeps the old commit recorded.
 */
async function record(ctx: SourceRunContext, job: SourceJob, plan: SourcePlan, partial: boolean): Promise<void> {
  if (plan.deferred > 0) return;
  await (await job.fetched).settle?.();
  const complete = sourceKind(ctx.config, job.source.kind).listingKey && !partial && plan.commitAfter !== null;
  await ctx.store.setSourceCommit(job.source.name, plan.commitAfter, new Date().toISOString(), complete ? job.listingKey(plan.commitAfter!) : null);
}

/** A database write failure in words people act on (disk full names the file). */
function describeWriteError(err: unknown, db: string): string {
  const dbPath = shownDb(db);
  if (isStorageError(err, 'full')) return `disk full: cannot write the index ${dbPath} (${errorMessage(err)}); the previous state is kept`;
  if (isStorageError(err)) return describeIoError(err, dbPath) ?? errorMessage(err);
  return errorMessage(err);
}

/** Counts as one flat object for a log line: planned and written alike. */
export function flatCounts(c: WorkCounts) {
  const d = c.documents;
  return { added: d.added, changed: d.changed, deleted: d.deleted, renamed: d.renamed, unchanged: d.unchanged, skipped: d.skipped,
    chunks: c.chunks, chunksReused: c.chunksReused, texts: c.texts };
}

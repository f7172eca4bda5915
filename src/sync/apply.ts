import { failpoint } from '../core/failpoint.ts';
import type { WorkCounts } from '../core/types.ts';
import type { Embedder } from '../embedding/types.ts';
import type { IndexWriter } from '../storage/roles.ts';
import { EmbedderFailure } from './embedder-failure.ts';
import type { SourcePlan } from './plan.ts';

export type Progress =
  | { type: 'planned'; source: string; plan: SourcePlan }
  | { type: 'embedded'; source: string; done: number; total: number }
  | { type: 'written'; source: string; done: number; total: number };

export interface ApplyContext {
  store: IndexWriter;
  embedder: Embedder;
  /** Texts stored earlier in this run (another source may share them): never sent twice. */
  embeddedThisRun: Set<string>;
  /** A graceful stop: no new batch starts; batches in flight are stored if they answer in time. */
  signal?: AbortSignal;
  /** How long batches in flight may take after a stop before they are dropped (default 20 s). */
  stopTimeoutMs?: number;
  /** Texts whose batch was in flight when a stop ran out of time: not stored, embedded again next run. */
  dropped?: { texts: number };
}

export class AbortedError extends Error {
  constructor() {
    super('run stopped before it finished');
    this.name = 'AbortedError';
  }
}

export const noWork = (): WorkCounts => ({
  documents: { added: 0, changed: 0, deleted: 0, renamed: 0, unchanged: 0, skipped: 0 },
  chunks: 0,
  chunksReused: 0,
  texts: 0,
});

/**
 * Executes a plan: embeds its texts in full batches and stores each batch of vectors in its own
 * transaction (a killed or stopped run keeps what it paid for; the next plan skips those texts).
 * Only once every text has its vector are the documents written, with the deletions and renames,
 * in ONE transaction: searches see the source either as it was or at the new commit, never both
 * versions of a split or moved file. `written` counts only what committed, so a stopped or failed
 * run reports the texts it stored and no documents.
 */
export async function* applyPlan(plan: SourcePlan, ctx: ApplyContext, written: WorkCounts = noWork()): AsyncGenerator<Progress, WorkCounts> {
  const { store, embedder } = ctx;
  const fingerprint = embedder.info.fingerprint;
  if (plan.fingerprint !== fingerprint) {
    throw new Error(`plan for ${plan.source} was made for ${plan.fingerprint}, not ${fingerprint}`);
  }
  const textOf = (h: string) => plan.embed.get(h) ?? plan.refill.get(h)!;
  const queue: string[] = []; // text hashes awaiting a vector, in document order
  const queued = new Set<string>();
  const totalTexts = plan.embed.size + plan.refill.size;
  let embeddedHere = 0;

  // In-flight requests are cut only when a stop outlasts its timeout (a stop itself lets them finish).
  const hard = new AbortController();
  let stopTimer: NodeJS.Timeout | undefined;
  const onStop = () => {
    stopTimer = setTimeout(() => hard.abort(), ctx.stopTimeoutMs ?? 20_000);
    stopTimer.unref();
  };
  if (ctx.signal?.aborted) onStop();
  else ctx.signal?.addEventListener('abort', onStop, { once: true });
  const stopping = () => !!ctx.signal?.aborted;

  async function embedBatch(hashes: string[]): Promise<void> {
    // Let timers, signals and HTTP requests in (a local embedder never waits on I/O, so without
    // this a SIGTERM or a /healthz request would wait for the whole run).
    await new Promise((resolve) => setImmediate(resolve));
    let vectors: Float32Array[];
    try {
      vectors = await embedder.embed(hashes.map(textOf), { signal: hard.signal, purpose: 'document' });
    } catch (err) {
      throw hard.signal.aborted ? err : new EmbedderFailure(embedder, err);
    }
    await store.putVectors(
      fingerprint,
      hashes.map((textHash, i) => ({ textHash, vector: vectors[i]! })),
    );
    for (const h of hashes) ctx.embeddedThisRun.add(h);
    written.texts += hashes.length;
    embeddedHere += hashes.length;
    failpoint('after-vectors');
  }

  // Up to `concurrency` batches in flight (a remote provider's latency would otherwise cap throughput
  // far below its rate limits). Each stores its own vectors as soon as it returns. With concurrency 1
  // this is the serial loop.
  const maxInFlight = Math.max(1, Math.floor(embedder.concurrency ?? 1));
  const inFlight: { hashes: string[]; done: Promise<unknown> }[] = [];
  let failure: unknown = null;

  const start = (hashes: string[]) => {
    // Rejections are caught here and handled in order by settleOldest(): none goes unhandled.
    inFlight.push({ hashes, done: embedBatch(hashes).then(() => null, (error: unknown) => ({ error })) });
  };

  async function* settleOldest(): AsyncGenerator<Progress, void> {
    const batch = inFlight.shift()!;
    const outcome = (await batch.done) as { error: unknown } | null;
    if (outcome) {
      if (hard.signal.aborted) {
        if (ctx.dropped) ctx.dropped.texts += batch.hashes.length;
      } else failure ??= outcome.error;
      return;
    }
    yield { type: 'embedded', source: plan.source, done: embeddedHere, total: totalTexts };
  }

  const more = () => !stopping() && !failure;
  const enqueue = (h: string) => {
    if (queued.has(h) || ctx.embeddedThisRun.has(h)) return;
    queued.add(h);
    queue.push(h);
  };
  try {
    for (const planned of plan.write) for (const c of planned.doc.chunks) if (plan.embed.has(c.textHash)) enqueue(c.textHash);
    for (const h of plan.refill.keys()) enqueue(h);
    while (queue.length && more()) {
      start(queue.splice(0, embedder.batchSize));
      if (inFlight.length >= maxInFlight) yield* settleOldest();
    }
    // Batches in flight finish (or, after a stop's timeout, are dropped) before anything else.
    while (inFlight.length) yield* settleOldest();
    if (failure) throw failure;
    if (stopping()) throw new AbortedError();
    if (plan.write.length || plan.delete.length) {
      const removed = [...plan.write.flatMap((w) => (w.from ? [w.from] : [])), ...plan.delete];
      await store.writeDocuments(plan.source, plan.write.map((w) => w.doc), removed);
      written.documents.deleted += plan.delete.length;
      for (const planned of plan.write) {
        if (!planned.restamp) written.documents[planned.kind]++;
        written.chunks += planned.doc.chunks.length;
        for (const c of planned.doc.chunks) if (!plan.embed.has(c.textHash)) written.chunksReused++;
      }
      yield { type: 'written', source: plan.source, done: plan.write.length, total: plan.write.length };
    }
    written.documents.unchanged = plan.counts.documents.unchanged;
    written.documents.skipped = plan.counts.documents.skipped;
    return written;
  } finally {
    clearTimeout(stopTimer);
    ctx.signal?.removeEventListener('abort', onStop);
    // An exception leaves nothing running behind the caller's back (it closes the store next).
    await Promise.all(inFlight.splice(0).map((b) => b.done));
  }
}

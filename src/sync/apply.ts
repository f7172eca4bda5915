import { failpoint } from '../core/failpoint.ts';
import type { DocumentRecord, WorkCounts } from '../core/types.ts';
import type { Embedder } from '../embedding/types.ts';
import type { IndexWriter } from '../storage/roles.ts';
import type { PlannedDocument, SourcePlan } from './plan.ts';

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

/** Most documents written in one transaction: bounds how long a writer holds the lock. */
const MAX_DOCS_PER_TRANSACTION = 200;

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
 * Executes a plan: embeds its texts in full batches, stores each batch of vectors in its own
 * transaction, and writes every document (its row and all its chunks) in a transaction once all
 * its texts have vectors. `written` counts only what committed, so a stopped or failed run reports
 * what it did, not what it meant to; a killed run loses at most the batches in flight, and the
 * next run's plan finds the stored vectors and skips them.
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
  const waiting: { planned: PlannedDocument; pending: Set<string> }[] = [];
  const totalTexts = plan.embed.size + plan.refill.size;
  let embeddedHere = 0;
  let docsWritten = 0;
  written.documents.unchanged = plan.counts.documents.unchanged;
  written.documents.skipped = plan.counts.documents.skipped;

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
    const vectors = await embedder.embed(hashes.map(textOf), { signal: hard.signal, purpose: 'document' });
    await store.putVectors(
      fingerprint,
      hashes.map((textHash, i) => ({ textHash, vector: vectors[i]! })),
    );
    for (const h of hashes) ctx.embeddedThisRun.add(h);
    written.texts += hashes.length;
    embeddedHere += hashes.length;
    failpoint('after-vectors');
  }

  const ready = (w: { pending: Set<string> }) => [...w.pending].every((h) => ctx.embeddedThisRun.has(h));

  /** Writes the leading documents whose texts all have vectors now. */
  async function flush(): Promise<number> {
    let n = 0;
    while (n < waiting.length && ready(waiting[n]!)) n++;
    let done = 0;
    while (done < n) {
      const part = waiting.slice(done, Math.min(n, done + MAX_DOCS_PER_TRANSACTION));
      const docs: DocumentRecord[] = part.map((w) => w.planned.doc);
      const removed = part.flatMap((w) => (w.planned.from ? [w.planned.from] : []));
      await store.writeDocuments(plan.source, docs, removed);
      for (const { planned } of part) {
        if (!planned.restamp) written.documents[planned.kind]++;
        written.chunks += planned.doc.chunks.length;
        for (const c of planned.doc.chunks) if (!plan.embed.has(c.textHash)) written.chunksReused++;
      }
      failpoint('after-documents');
      done += part.length;
      docsWritten += part.length;
    }
    waiting.splice(0, n);
    return n;
  }

  // Up to `concurrency` batches in flight (a remote provider's latency would otherwise cap throughput
  // far below its rate limits). Each stores its own vectors as soon as it returns; documents are
  // written in plan order once all their texts have vectors. With concurrency 1 this is the serial loop.
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
    if (!failure && (await flush())) yield { type: 'written', source: plan.source, done: docsWritten, total: plan.write.length };
  }

  const more = () => !stopping() && !failure;
  try {
    for (const planned of plan.write) {
      if (!more()) break;
      const pending = new Set<string>();
      for (const c of planned.doc.chunks) {
        if (!plan.embed.has(c.textHash) || ctx.embeddedThisRun.has(c.textHash)) continue;
        pending.add(c.textHash);
        if (!queued.has(c.textHash)) {
          queued.add(c.textHash);
          queue.push(c.textHash);
        }
      }
      waiting.push({ planned, pending });
      while (queue.length >= embedder.batchSize && more()) {
        start(queue.splice(0, embedder.batchSize));
        if (inFlight.length >= maxInFlight) yield* settleOldest();
      }
      if (waiting.length >= MAX_DOCS_PER_TRANSACTION && waiting.every(ready)) {
        await flush();
        yield { type: 'written', source: plan.source, done: docsWritten, total: plan.write.length };
      }
    }
    for (const h of plan.refill.keys()) {
      if (queued.has(h) || ctx.embeddedThisRun.has(h)) continue;
      queued.add(h);
      queue.push(h);
    }
    while (queue.length && more()) {
      start(queue.splice(0, embedder.batchSize));
      if (inFlight.length >= maxInFlight) yield* settleOldest();
    }
    // Batches in flight finish (or, after a stop's timeout, are dropped) before anything else.
    while (inFlight.length) yield* settleOldest();
    if (failure) throw failure;
    // Whatever has its vectors is written, even on a stop: what was paid for is kept.
    if (await flush()) yield { type: 'written', source: plan.source, done: docsWritten, total: plan.write.length };
    if (stopping()) throw new AbortedError();
    if (plan.delete.length) {
      await store.writeDocuments(plan.source, [], plan.delete);
      written.documents.deleted += plan.delete.length;
    }
    return written;
  } finally {
    clearTimeout(stopTimer);
    ctx.signal?.removeEventListener('abort', onStop);
    // An exception leaves nothing running behind the caller's back (it closes the store next).
    await Promise.all(inFlight.splice(0).map((b) => b.done));
  }
}

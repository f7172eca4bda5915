import type { Embedder } from '../embedding/types.ts';
import type { DocumentRecord, Store } from '../storage/roles.ts';
import { failpoint } from '../core/failpoint.ts';
import type { PlannedDocument, SourcePlan } from './plan.ts';

export type Progress =
  | { type: 'planned'; source: string; plan: SourcePlan }
  | { type: 'embedded'; source: string; done: number; total: number }
  | { type: 'written'; source: string; done: number; total: number };

export interface ApplyContext {
  store: Store;
  embedder: Embedder;
  /** Texts embedded earlier in this run (another source may share them): never sent twice. */
  embeddedThisRun: Set<string>;
  /** Texts sent to the embedder in this run, across sources. */
  counters: { embedded: number };
  signal?: AbortSignal;
}

/** Most documents written in one transaction: bounds how long a writer holds the lock. */
const MAX_DOCS_PER_TRANSACTION = 200;

export class AbortedError extends Error {
  constructor() {
    super('run stopped before it finished');
    this.name = 'AbortedError';
  }
}

/**
 * Executes a plan: embeds the missing texts in full batches, stores each batch of vectors in its own
 * transaction, and writes every document (its row and all its chunks) in a transaction once all its
 * texts have vectors. Progress is recorded only by commits, so a killed run loses at most the
 * batches in flight, and the next run's plan finds the stored vectors and skips them.
 */
export async function* applyPlan(plan: SourcePlan, ctx: ApplyContext): AsyncGenerator<Progress, void> {
  const { store, embedder } = ctx;
  const fingerprint = embedder.info.fingerprint;
  const queue: string[] = []; // text hashes awaiting a vector, in document order
  const queued = new Set<string>();
  const waiting: { planned: PlannedDocument; pending: Set<string> }[] = [];
  const totalTexts = plan.toEmbed.size;
  let embeddedHere = 0;
  let written = 0;

  const check = () => {
    if (ctx.signal?.aborted) throw new AbortedError();
  };

  async function embedBatch(hashes: string[]): Promise<void> {
    // Let timers, signals and HTTP requests in (a local embedder never waits on I/O, so without
    // this a SIGTERM or a /healthz request would wait for the whole run).
    await new Promise((resolve) => setImmediate(resolve));
    check();
    const vectors = await embedder.embed(
      hashes.map((h) => plan.toEmbed.get(h)!),
      { signal: ctx.signal, purpose: 'document' },
    );
    await store.putVectors(
      fingerprint,
      hashes.map((textHash, i) => ({ textHash, vector: vectors[i]! })),
    );
    for (const h of hashes) ctx.embeddedThisRun.add(h);
    ctx.counters.embedded += hashes.length;
    embeddedHere += hashes.length;
    failpoint('after-vectors');
  }

  /** Writes the leading documents whose texts all have vectors now. */
  async function flush(all: boolean): Promise<number> {
    let n = 0;
    while (n < waiting.length && (all || waiting[n]!.pending.size === 0)) {
      for (const h of waiting[n]!.pending) if (!ctx.embeddedThisRun.has(h)) throw new Error(`no vector for ${h}`);
      n++;
    }
    let done = 0;
    while (done < n) {
      check();
      const part = waiting.slice(done, Math.min(n, done + MAX_DOCS_PER_TRANSACTION));
      const docs: DocumentRecord[] = part.map((w) => w.planned.doc);
      const removed = part.flatMap((w) => (w.planned.from ? [w.planned.from] : []));
      await store.writeDocuments(plan.source, docs, removed);
      failpoint('after-documents');
      done += part.length;
      written += part.length;
    }
    waiting.splice(0, n);
    return n;
  }

  const settle = (hashes: string[]) => {
    const set = new Set(hashes);
    for (const w of waiting) for (const h of w.pending) if (set.has(h)) w.pending.delete(h);
  };

  // Up to `concurrency` batches in flight (a remote provider's latency would otherwise cap throughput
  // far below its rate limits). Each stores its own vectors as soon as it returns; documents are
  // written in plan order once all their texts have vectors. With concurrency 1 this is the serial loop.
  const maxInFlight = Math.max(1, Math.floor(embedder.concurrency ?? 1));
  const inFlight: Promise<{ hashes: string[] } | { error: unknown }>[] = [];

  const start = (hashes: string[]) => {
    check();
    // Rejections are caught here and rethrown in order by settleOldest(): none goes unhandled.
    inFlight.push(embedBatch(hashes).then(() => ({ hashes }), (error: unknown) => ({ error })));
  };

  async function* settleOldest(): AsyncGenerator<Progress, void> {
    const done = await inFlight.shift()!;
    if ('error' in done) {
      // Let the other batches finish (and store what they got) before the run stops.
      await Promise.all(inFlight.splice(0));
      // A request cut short by the signal is a stop, not a provider failure.
      throw ctx.signal?.aborted ? new AbortedError() : done.error;
    }
    settle(done.hashes);
    yield { type: 'embedded', source: plan.source, done: embeddedHere, total: totalTexts };
    if (await flush(false)) yield { type: 'written', source: plan.source, done: written, total: plan.write.length };
  }

  try {
    for (const planned of plan.write) {
      const pending = new Set<string>();
      for (const c of planned.doc.chunks) {
        if (!plan.toEmbed.has(c.textHash) || ctx.embeddedThisRun.has(c.textHash)) continue;
        pending.add(c.textHash);
        if (!queued.has(c.textHash)) {
          queued.add(c.textHash);
          queue.push(c.textHash);
        }
      }
      waiting.push({ planned, pending });
      while (queue.length >= embedder.batchSize) {
        start(queue.splice(0, embedder.batchSize));
        if (inFlight.length >= maxInFlight) yield* settleOldest();
      }
      if (waiting.length >= MAX_DOCS_PER_TRANSACTION && waiting.every((w) => w.pending.size === 0)) {
        await flush(false);
        yield { type: 'written', source: plan.source, done: written, total: plan.write.length };
      }
    }
    // Texts of stored documents that only lack a vector for this fingerprint (a switched embedder).
    for (const h of plan.toEmbed.keys()) {
      if (queued.has(h) || ctx.embeddedThisRun.has(h)) continue;
      queued.add(h);
      queue.push(h);
    }
    while (queue.length) {
      start(queue.splice(0, embedder.batchSize));
      if (inFlight.length >= maxInFlight) yield* settleOldest();
    }
    while (inFlight.length) yield* settleOldest();
  } finally {
    // An abort or a failure leaves nothing running behind the caller's back (it closes the store next).
    await Promise.all(inFlight.splice(0));
  }
  if (await flush(true)) yield { type: 'written', source: plan.source, done: written, total: plan.write.length };
  if (plan.delete.length) {
    check();
    await store.writeDocuments(plan.source, [], plan.delete);
  }
}

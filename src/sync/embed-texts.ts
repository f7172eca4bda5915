import { failpoint } from '../core/failpoint.ts';
import type { Embedder } from '../embedding/types.ts';
import type { IndexWriter } from '../storage/roles.ts';
import { EmbedderFailure } from './embedder-failure.ts';

/** A text to embed and the hash it is stored under. */
export type PendingText = readonly [textHash: string, text: string];

export interface EmbedTextsContext {
  store: IndexWriter;
  embedder: Embedder;
  /** Texts stored earlier in this run (another source may share them): never sent twice; marked as each batch commits. */
  embeddedThisRun: Set<string>;
  /** A graceful stop: no new batch starts; batches in flight are stored if they answer in time. */
  signal?: AbortSignal;
  /** How long batches in flight may take after a stop before they are dropped (default 20 s). */
  stopTimeoutMs?: number;
  /** Texts whose batch was in flight when a stop ran out of time: not stored, embedded again next run. */
  dropped?: { texts: number };
}

/**
 * Embeds texts as they come from `pending` (read lazily: only the texts of the batches being
 * sent are held) in full batches of the embedder's size, up to its concurrency in flight, and
 * stores each batch of vectors in its own transaction: a killed or stopped run keeps what it paid
 * for, and the next plan skips those texts. Yields after each stored batch; returns whether it
 * stopped before sending every text (a stop), and throws the first failure. `onStored` hears how
 * many texts each committed batch stored.
 */
export async function* embedTexts(
  pending: AsyncIterable<PendingText>,
  ctx: EmbedTextsContext,
  onStored: (texts: number) => void,
): AsyncGenerator<void, { stopped: boolean }> {
  const { store, embedder } = ctx;
  const fingerprint = embedder.info.fingerprint;
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

  async function embedBatch(batch: PendingText[]): Promise<void> {
    // Let timers, signals and HTTP requests in (a local embedder never waits on I/O, so without
    // this a SIGTERM or a /healthz request would wait for the whole run).
    await new Promise((resolve) => setImmediate(resolve));
    let vectors: Float32Array[];
    try {
      vectors = await embedder.embed(batch.map(([, text]) => text), { signal: hard.signal, purpose: 'document' });
    } catch (err) {
      throw hard.signal.aborted ? err : new EmbedderFailure(embedder, err);
    }
    await store.putVectors(
      fingerprint,
      batch.map(([textHash], i) => ({ textHash, vector: vectors[i]! })),
    );
    for (const [h] of batch) ctx.embeddedThisRun.add(h);
    onStored(batch.length);
    failpoint('after-vectors');
  }

  // Up to `concurrency` batches in flight (a remote provider's latency would otherwise cap throughput
  // far below its rate limits). Each stores its own vectors as soon as it returns. With concurrency 1
  // this is the serial loop.
  const maxInFlight = Math.max(1, Math.floor(embedder.concurrency ?? 1));
  const inFlight: { size: number; done: Promise<{ error: unknown } | null> }[] = [];
  let failure: unknown = null;
  const source = pending[Symbol.asyncIterator]();

  async function* settleOldest(): AsyncGenerator<void, void> {
    const batch = inFlight.shift()!;
    const outcome = await batch.done;
    if (outcome) {
      if (hard.signal.aborted) {
        if (ctx.dropped) ctx.dropped.texts += batch.size;
      } else failure ??= outcome.error;
      return;
    }
    yield;
  }

  /** The next full batch (or the last, shorter one); empty when every text was taken. */
  async function take(): Promise<PendingText[]> {
    const batch: PendingText[] = [];
    while (batch.length < embedder.batchSize) {
      const next = await source.next();
      if (next.done) break;
      batch.push(next.value);
    }
    return batch;
  }

  try {
    while (!stopping() && !failure) {
      const batch = await take();
      if (!batch.length) break;
      // Rejections are caught here and handled in order by settleOldest(): none goes unhandled.
      inFlight.push({ size: batch.length, done: embedBatch(batch).then(() => null, (error: unknown) => ({ error })) });
      if (inFlight.length >= maxInFlight) yield* settleOldest();
    }
    // Batches in flight finish (or, after a stop's timeout, are dropped) before anything else.
    while (inFlight.length) yield* settleOldest();
    if (failure) throw failure;
    return { stopped: stopping() };
  } finally {
    clearTimeout(stopTimer);
    ctx.signal?.removeEventListener('abort', onStop);
    // An exception leaves nothing running behind the caller's back (it closes the store next).
    await Promise.all(inFlight.splice(0).map((b) => b.done));
    await source.return?.();
  }
}

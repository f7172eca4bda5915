import type { DocumentRecord, WorkCounts } from '../core/types.ts';
import { writeInOne } from '../storage/document-write.ts';
import type { IndexWriter } from '../storage/roles.ts';
import { embedTexts, type EmbedTextsContext, type PendingText } from './embed-texts.ts';
import type { PlannedDocument, SourcePlan } from './plan.ts';

export type Progress =
  | { type: 'planned'; source: string; plan: SourcePlan }
  | { type: 'embedded'; source: string; done: number; total: number }
  | { type: 'written'; source: string; done: number; total: number };

/** What applying needs: the store, the embedder, and the run's shared state (texts stored, stop). */
export type ApplyContext = EmbedTextsContext;

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

/** Documents held at once while applying: bounded by chunks, so memory does not grow with the source. */
const BATCH_CHUNKS = 1000;
const BATCH_DOCUMENTS = 250;

/** The planned documents in batches of about BATCH_CHUNKS chunks (in plan order). */
export function* documentBatches(write: readonly PlannedDocument[]): Generator<PlannedDocument[]> {
  let batch: PlannedDocument[] = [];
  let chunks = 0;
  for (const w of write) {
    if (batch.length && (chunks + w.doc.chunks.length > BATCH_CHUNKS || batch.length >= BATCH_DOCUMENTS)) {
      yield batch;
      batch = [];
      chunks = 0;
    }
    batch.push(w);
    chunks += w.doc.chunks.length;
  }
  if (batch.length) yield batch;
}

/**
 * Executes a plan in two passes over the documents it built (kept on disk by the plan: no file
 * is read or chunked again), a batch at a time, so a run holds one batch of texts and chunks
 * however large the source:
 * 1. vectors: the texts the plan found without a vector are embedded; each batch of vectors
 *    commits on its own (a killed or stopped run keeps what it paid for).
 * 2. documents: once every text has its vector, the documents are written, with the deletions
 *    and renames, in ONE transaction fed batch by batch: searches see the source either as it was
 *    or at the new commit, never both versions of a split or moved file, never a half-written
 *    document.
 * `written` counts only what committed, so a stopped or failed run reports the texts it stored
 * and no documents. The plan is released once applied (or failed).
 */
export async function* applyPlan(plan: SourcePlan, ctx: ApplyContext, written: WorkCounts = noWork()): AsyncGenerator<Progress, WorkCounts> {
  try {
    return yield* applyOnce(plan, ctx, written);
  } finally {
    plan.release();
  }
}

async function* applyOnce(plan: SourcePlan, ctx: ApplyContext, written: WorkCounts): AsyncGenerator<Progress, WorkCounts> {
  const fingerprint = ctx.embedder.info.fingerprint;
  if (plan.fingerprint !== fingerprint) {
    throw new Error(`plan for ${plan.source} was made for ${plan.fingerprint}, not ${fingerprint}`);
  }
  const total = plan.embed.size + plan.refill.size;
  const embedding = embedTexts(pendingTexts(plan, ctx.embeddedThisRun), ctx, (n) => (written.texts += n));
  for (;;) {
    const step = await embedding.next();
    if (step.done) {
      if (step.value.stopped) throw new AbortedError();
      break;
    }
    yield { type: 'embedded', source: plan.source, done: written.texts, total };
  }
  if (plan.write.length || plan.delete.length || plan.restamp.length) {
    yield* writeDocuments(plan, ctx.store, written);
  }
  written.documents.unchanged = plan.counts.documents.unchanged;
  written.documents.skipped = plan.skipped.length;
  return written;
}

/**
 * The texts to embed, in document order, each once: the planned documents holding one are taken
 * a batch at a time (lazily, as the embedder takes them), then the refill's stored texts, a page
 * at a time.
 */
async function* pendingTexts(plan: SourcePlan, embeddedThisRun: ReadonlySet<string>): AsyncGenerator<PendingText> {
  const sent = new Set<string>();
  const wanted = (h: string) => plan.embed.has(h) && !sent.has(h) && !embeddedThisRun.has(h);
  for (const batch of documentBatches(plan.write)) {
    const paths = batch.filter((w) => w.doc.chunks.some((c) => wanted(c.textHash))).map((w) => w.doc.path);
    for (const doc of plan.documents(paths)) {
      for (const { textHash, text } of doc.chunks) {
        if (!wanted(textHash)) continue;
        sent.add(textHash);
        yield [textHash, text];
      }
    }
  }
  for await (const page of plan.refillTexts()) {
    for (const [h, text] of page) {
      if (sent.has(h) || embeddedThisRun.has(h)) continue;
      sent.add(h);
      yield [h, text];
    }
  }
}

/** Pass 2: the removals, then the documents batch by batch, in one write that commits at the end. */
async function* writeDocuments(plan: SourcePlan, store: IndexWriter, written: WorkCounts): AsyncGenerator<Progress, void> {
  const done = noWork();
  const removed = [...plan.delete, ...plan.write.flatMap((w) => (w.from ? [w.from] : []))];
  function* batches(): Generator<DocumentRecord[]> {
    for (const batch of documentBatches(plan.write)) {
      const docs = [...plan.documents(batch.map((w) => w.doc.path))];
      batch.forEach((w, i) => {
        done.documents[w.kind]++;
        done.chunks += docs[i]!.chunks.length;
        for (const c of docs[i]!.chunks) if (!plan.embed.has(c.textHash)) done.chunksReused++;
      });
      yield docs;
    }
  }
  await writeInOne(store, plan.source, removed, batches(), plan.restamp);
  // Counted once committed.
  written.documents.deleted += plan.delete.length;
  for (const k of ['added', 'changed', 'renamed'] as const) written.documents[k] += done.documents[k];
  written.chunks += done.chunks;
  written.chunksReused += done.chunksReused;
  yield { type: 'written', source: plan.source, done: plan.write.length, total: plan.write.length };
}

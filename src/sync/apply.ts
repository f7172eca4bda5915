import { shownPath } from '../core/shown-path.ts';
import type { DocumentRecord, WorkCounts } from '../core/types.ts';
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

/** Documents read again and held at once while applying: bounded by chunks, so memory does not grow with the source. */
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
 * Executes a plan in two passes over its documents, a batch at a time, so a run holds one batch
 * of texts and chunks however large the source:
 * 1. vectors: the texts the plan found without a vector are read again and embedded; each batch
 *    of vectors commits on its own (a killed or stopped run keeps what it paid for).
 * 2. documents: once every text has its vector, the documents are read and built again and
 *    written, with the deletions and renames, in ONE transaction fed batch by batch: searches see
 *    the source either as it was or at the new commit, never both versions of a split or moved
 *    file, never a half-written document.
 * `written` counts only what committed, so a stopped or failed run reports the texts it stored
 * and no documents. A file whose bytes changed since it was planned (a folder edited during the
 * run) is left out and added to the plan's skipped files: the next run indexes it.
 */
export async function* applyPlan(plan: SourcePlan, ctx: ApplyContext, written: WorkCounts = noWork()): AsyncGenerator<Progress, WorkCounts> {
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
  if (plan.write.length || plan.delete.length) {
    yield* writeDocuments(plan, ctx.store, written);
  }
  written.documents.unchanged = plan.counts.documents.unchanged;
  written.documents.skipped = plan.skipped.length;
  return written;
}

/**
 * The texts to embed, in document order, each once: the planned documents holding one are read
 * again a batch at a time (lazily, as the embedder takes them), then the refill's stored texts.
 */
async function* pendingTexts(plan: SourcePlan, embeddedThisRun: ReadonlySet<string>): AsyncGenerator<PendingText> {
  const sent = new Set<string>();
  const wanted = (h: string) => plan.embed.has(h) && !sent.has(h) && !embeddedThisRun.has(h);
  for (const batch of documentBatches(plan.write)) {
    const paths = batch.filter((w) => w.doc.chunks.some((c) => wanted(c.textHash))).map((w) => w.doc.path);
    if (!paths.length) continue;
    for await (const { texts } of plan.readTexts(paths)) {
      for (const { textHash, text } of texts) {
        if (!wanted(textHash)) continue;
        sent.add(textHash);
        yield [textHash, text];
      }
    }
  }
  for (const [h, text] of plan.refill) {
    if (sent.has(h) || embeddedThisRun.has(h)) continue;
    sent.add(h);
    yield [h, text];
  }
}

/** Pass 2: the documents, batch by batch, into one write that commits at the end. */
async function* writeDocuments(plan: SourcePlan, store: IndexWriter, written: WorkCounts): AsyncGenerator<Progress, void> {
  const done = noWork();
  const removed = [...plan.delete];
  const write = await store.beginDocuments(plan.source);
  try {
    for (const batch of documentBatches(plan.write)) {
      const planned = new Map(batch.map((w) => [w.doc.path, w]));
      const docs: DocumentRecord[] = [];
      for await (const built of plan.read(batch.map((w) => w.doc.path))) {
        const w = planned.get(built.path)!;
        if ('error' in built || built.doc.contentHash !== w.doc.contentHash) {
          // Left as stored (a rename's old path too); the run is partial and the next one plans it.
          plan.skipped.push({ path: built.path, reason: 'error' in built ? built.error : `${shownPath(built.path)}: changed while the run read it; indexed next run` });
          continue;
        }
        docs.push(built.doc);
        if (w.from) removed.push(w.from);
        if (!w.restamp) done.documents[w.kind]++;
        done.chunks += built.doc.chunks.length;
        for (const c of built.doc.chunks) if (!plan.embed.has(c.textHash)) done.chunksReused++;
      }
      await write.write(docs);
    }
    await write.remove(removed);
    await write.commit();
  } catch (err) {
    await write.rollback();
    throw err;
  }
  // Counted once committed.
  written.documents.deleted += plan.delete.length;
  for (const k of ['added', 'changed', 'renamed'] as const) written.documents[k] += done.documents[k];
  written.chunks += done.chunks;
  written.chunksReused += done.chunksReused;
  yield { type: 'written', source: plan.source, done: plan.write.length, total: plan.write.length };
}

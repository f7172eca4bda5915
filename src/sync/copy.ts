import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { RagsyncError, EXIT } from '../core/errors.ts';
import { shownDb } from '../core/db-url.ts';
import type { IndexDump, SyncStore } from '../storage/roles.ts';
import { acquireIndexLock } from './lock.ts';

/** Documents and vectors moved per transaction and per read. */
const DOCS_PER_BATCH = 200;
const VECTORS_PER_BATCH = 1000;

/** What an index holds, as a copy compares it: counts and order-independent digests. */
export interface IndexDigest {
  sources: number;
  documents: number;
  chunks: number;
  /** Over every chunk: source, path, ordinal, key, its text hash and the hash of its text as stored. */
  chunksHash: string;
  vectors: number;
  /** Over every vector of every fingerprint: fingerprint, text hash and the float32 bytes. */
  vectorsHash: string;
}

export interface CopyResult {
  from: IndexDigest;
  to: IndexDigest;
}

/** An order-independent digest: items hashed one by one, the sorted hashes hashed. */
class Digest {
  private readonly items: string[] = [];
  add(...parts: (string | number | Uint8Array)[]): void {
    const h = createHash('sha256');
    for (const p of parts) h.update(typeof p === 'number' ? String(p) : p).update('\0');
    this.items.push(h.digest('hex'));
  }
  get count(): number {
    return this.items.length;
  }
  hex(): string {
    const h = createHash('sha256');
    for (const i of this.items.sort()) h.update(i);
    return h.digest('hex');
  }
}

const vectorBytes = (v: Float32Array) => new Uint8Array(v.buffer, v.byteOffset, v.byteLength);

/**
 * Everything an index holds that a copy carries: walks the dump once and, if `into` is given,
 * writes each batch there as it goes (one transaction per batch of documents and of vectors).
 */
async function walk(from: IndexDump, into: SyncStore | null): Promise<IndexDigest> {
  const chunks = new Digest();
  const vectors = new Digest();
  let documents = 0;
  const sources = await from.dumpSources();
  for (const s of sources) {
    if (into) await into.ensureSource({ name: s.name, kind: s.kind, url: s.url, branch: s.branch });
    // Documents a previous, unfinished copy wrote and the source no longer has go.
    const stale = new Set(into ? (await into.listDocuments(s.name)).map((d) => d.path) : []);
    for await (const docs of from.dumpDocuments(s.name, DOCS_PER_BATCH)) {
      documents += docs.length;
      for (const d of docs) {
        stale.delete(d.path);
        for (const c of d.chunks) chunks.add(s.name, d.path, c.ordinal, c.key, c.textHash, createHash('sha256').update(c.text).digest('hex'));
      }
      if (into) await into.writeDocuments(s.name, docs);
    }
    if (into && stale.size) await into.writeDocuments(s.name, [], [...stale]);
    if (into) await into.setSourceCommit(s.name, s.commit, s.indexedAt ?? new Date().toISOString(), s.listing);
  }
  for (const e of await from.dumpEmbedders()) {
    if (into) await into.registerEmbedder(e);
    for await (const batch of from.dumpVectors(e.fingerprint, VECTORS_PER_BATCH)) {
      for (const v of batch) vectors.add(e.fingerprint, v.textHash, vectorBytes(v.vector));
      if (into) await into.putVectors(e.fingerprint, batch);
    }
    // The target's derived search structures (int8 code packs; an HNSW index), built once.
    if (into) await into.refreshCodePack?.(e.fingerprint);
  }
  return { sources: sources.length, documents, chunks: chunks.count, chunksHash: chunks.hex(), vectors: vectors.count, vectorsHash: vectors.hex() };
}

/** Reads an index whole and digests it (what a copy's check compares). */
export const digestIndex = (from: IndexDump): Promise<IndexDigest> => walk(from, null);

const same = (a: IndexDigest, b: IndexDigest) =>
  a.sources === b.sources && a.documents === b.documents && a.chunks === b.chunks && a.chunksHash === b.chunksHash && a.vectors === b.vectors && a.vectorsHash === b.vectorsHash;

/**
 * Whether `target` may receive a copy: it holds no document and no vector, or only what an
 * unfinished copy wrote (every run it records is a copy, the last one not finished ok). Anything
 * else is refused untouched.
 */
async function refuseOccupied(target: SyncStore, shown: string): Promise<void> {
  const sources = await target.dumpSources();
  const documents = (await Promise.all(sources.map((s) => target.listDocuments(s.name)))).reduce((n, d) => n + d.length, 0);
  let vectors = false;
  for (const e of await target.dumpEmbedders()) {
    for await (const b of target.dumpVectors(e.fingerprint, 1)) {
      vectors ||= b.length > 0;
      break;
    }
  }
  if (!documents && !vectors) return;
  const runs = await target.recentRuns(1000);
  if (runs.length && runs.every((r) => r.trigger === 'copy') && runs[0]!.status !== 'ok') return;
  throw new RagsyncError(
    `${shown} already holds an index (${sources.length} sources, ${documents} documents): copy writes only into an empty one; choose another target`,
    EXIT.usage,
  );
}

/**
 * Copies the index `from` into `to` (any backends), vectors included, nothing re-embedded; then
 * reads the target back and checks it holds the same chunk texts and vectors. The target must be
 * empty (or hold only an unfinished copy, which this one completes): nothing else is overwritten.
 * The copy is a run in the target's log (trigger "copy"), under the target's run lock.
 */
export async function copyIndex(
  from: IndexDump,
  to: { store: SyncStore; db: string },
  opts: { log?: Logger } = {},
): Promise<CopyResult> {
  const shown = shownDb(to.db);
  const lock = await acquireIndexLock(to.store, to.db, opts.log);
  try {
    await to.store.abortStaleRuns();
    await refuseOccupied(to.store, shown);
    // The run names the source's embedders (a copy embeds nothing itself).
    const fingerprint = (await from.dumpEmbedders()).map((e) => e.fingerprint).join(',');
    const runId = await to.store.startRun({ trigger: 'copy', fingerprint, forced: false });
    let copied: IndexDigest;
    try {
      copied = await walk(from, to.store);
    } catch (err) {
      await to.store
        .finishRun(runId, { status: 'failed', textsEmbedded: 0, requests: 0, tokens: 0, error: String((err as Error).message ?? err), sources: [] })
        .catch(() => {});
      throw err;
    }
    const written = await digestIndex(to.store);
    const ok = same(copied, written);
    await to.store.finishRun(runId, {
      status: ok ? 'ok' : 'failed',
      textsEmbedded: 0,
      requests: 0,
      tokens: 0,
      error: ok ? null : 'the copy differs from its source',
      sources: [],
    });
    if (!ok) {
      const now = await digestIndex(from);
      throw new RagsyncError(
        same(now, copied)
          ? `the copy at ${shown} differs from its source (${describe(written)} against ${describe(copied)}): run copy again`
          : `the source changed during the copy (a run committed meanwhile): run copy again`,
        EXIT.failed,
      );
    }
    return { from: copied, to: written };
  } finally {
    await lock.release();
  }
}

export const describe = (d: IndexDigest) =>
  `${d.sources} sources, ${d.documents} documents, ${d.chunks} chunks (${d.chunksHash.slice(0, 12)}), ${d.vectors} vectors (${d.vectorsHash.slice(0, 12)})`;

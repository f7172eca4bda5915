import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { builtinProfiles, parseConfig } from '../../src/builtin.ts';
import type { SourceConfig } from '../../src/config/load.ts';
import { sha256 } from '../../src/core/hash.ts';
import { defaultAnalyzer } from '../../src/core/text/analyzer.ts';
import { HashEmbedder } from '../../src/embedding/hash.ts';
import type { Embedder } from '../../src/embedding/types.ts';
import { openIndex } from '../../src/storage/open.ts';
import type { SyncStore } from '../../src/storage/roles.ts';
import { AbortedError, applyPlan, noWork } from '../../src/sync/apply.ts';
import { planSource, type Pipeline, type SourcePlan } from '../../src/sync/plan.ts';
import { memorySnapshot as snapshot } from '../helpers/snapshot.ts';
import { tempDir } from '../helpers/tmp.ts';

/** The offline embedder, recording every text it is sent. */
function recording(dims = 64, batchSize = 256): Embedder & { sent: string[] } {
  const inner = new HashEmbedder(dims, batchSize);
  const sent: string[] = [];
  return Object.assign(Object.create(inner) as HashEmbedder, {
    sent,
    async embed(texts: string[]) {
      sent.push(...texts);
      return inner.embed(texts);
    },
  });
}

const doc = (title: string, ...paras: string[]) => `# ${title}\n\n${paras.join('\n\n')}\n`;
const pipeline: Pipeline = { chunker: builtinProfiles.createChunker('markdown', { targetTokens: 60, overlap: 0 }), analyzer: defaultAnalyzer };

let t: ReturnType<typeof tempDir>;
let store: SyncStore;
let source: SourceConfig;
beforeEach(async () => {
  t = tempDir();
  const config = parseConfig({ db: join(t.dir, 'i.db'), sources: [{ name: 's', kind: 'dir', path: t.dir }] });
  source = config.sources[0]!;
  store = openIndex(config, 'sync');
  await store.ensureSource({ name: 's', kind: 'dir', url: null, branch: null });
});
afterEach(async () => {
  await store.close();
  t.cleanup();
});

async function plan(files: Record<string, string>, embedder: Embedder, opts: { force?: boolean; maxDocs?: number } = {}) {
  await store.registerEmbedder(embedder.info);
  return planSource(store, source, snapshot(files), pipeline, {
    force: !!opts.force,
    maxDocs: opts.maxDocs,
    fingerprint: embedder.info.fingerprint,
    commitBefore: null,
  });
}

async function apply(p: SourcePlan, embedder: Embedder, signal?: AbortSignal, written = noWork()) {
  const it = applyPlan(p, { store, embedder, embeddedThisRun: new Set(), signal }, written);
  for (;;) if ((await it.next()).done) break;
  return written;
}

const stored = async () => (await store.listDocuments('s')).map((d) => d.path).sort();

const v1 = { 'a.md': doc('A', 'alpha one', 'alpha two'), 'b.md': doc('B', 'beta one') };

describe('plan and apply', () => {
  it('add: every text is new; apply writes exactly the plan', async () => {
    const e = recording();
    const p = await plan(v1, e);
    expect(p.fingerprint).toBe(e.info.fingerprint);
    expect(p.counts.documents).toMatchObject({ added: 2, changed: 0, deleted: 0, renamed: 0, unchanged: 0 });
    expect(p.counts.texts).toBe(p.embed.size);
    expect(p.refill.size).toBe(0);
    expect(p.counts.chunksReused).toBe(0);
    const written = await apply(p, e);
    expect(written).toEqual(p.counts);
    expect(new Set(e.sent.map(sha256))).toEqual(p.embed);
    expect(await stored()).toEqual(['a.md', 'b.md']);
  });

  it('edit: only the changed text is embedded; unchanged documents are not read into the plan', async () => {
    const e = recording();
    await apply(await plan(v1, e), e);
    e.sent.length = 0;
    const p = await plan({ ...v1, 'a.md': doc('A', 'alpha one', 'alpha TWO changed') }, e);
    expect(p.counts.documents).toMatchObject({ changed: 1, unchanged: 1 });
    expect(p.embed.size).toBe(1);
    const written = await apply(p, e);
    expect(e.sent).toHaveLength(1);
    expect(e.sent[0]).toContain('alpha TWO changed');
    expect(e.sent.map(sha256)).toEqual([...p.embed]);
    expect(written.documents.changed).toBe(1);
    expect(written.chunksReused).toBe(written.chunks - 1);
  });

  it('rename: nothing embedded, the old path goes in the same write', async () => {
    const e = recording();
    await apply(await plan(v1, e), e);
    e.sent.length = 0;
    const p = await plan({ 'a2.md': v1['a.md'], 'b.md': v1['b.md'] }, e);
    expect(p.counts.documents).toMatchObject({ renamed: 1, deleted: 0, added: 0, unchanged: 1 });
    expect(p.write[0]).toMatchObject({ kind: 'renamed', from: 'a.md' });
    expect(p.counts.texts).toBe(0);
    await apply(p, e);
    expect(e.sent).toEqual([]);
    expect(await stored()).toEqual(['a2.md', 'b.md']);
  });

  it('a touched file (same bytes, new stamp): only its stamp is written, the file is not chunked, and the next plan reads nothing', async () => {
    const e = recording();
    await apply(await plan(v1, e), e);
    const before = await store.listDocuments('s');
    e.sent.length = 0;
    // The same bytes under new stamps, as a folder gives a file written again or read within its racy window.
    const touched = snapshot(v1);
    const restamped = { ...touched, files: touched.files.map((f) => (f.path === 'a.md' ? { ...f, stamp: `${f.stamp}:racy` } : f)) };
    let chunked = 0;
    const counting: Pipeline = { ...pipeline, chunker: { ...pipeline.chunker, fingerprint: pipeline.chunker.fingerprint, chunk: (input) => (chunked++, pipeline.chunker.chunk(input)) } };
    const planned = (snap: ReturnType<typeof snapshot>) => planSource(store, source, snap, counting, { force: false, fingerprint: e.info.fingerprint, commitBefore: null });
    const p = await planned(restamped);
    expect(p.filesRead).toBe(1);
    expect(chunked).toBe(0);
    expect(p.write).toEqual([]);
    expect(p.restamp).toEqual([{ path: 'a.md', stamp: restamped.files[0]!.stamp }]);
    expect(p.counts.documents).toMatchObject({ added: 0, changed: 0, unchanged: 2 });
    const written = await apply(p, e);
    expect(written.documents).toMatchObject({ changed: 0, unchanged: 2 });
    expect(e.sent).toEqual([]);
    const after = await store.listDocuments('s');
    expect(after.find((d) => d.path === 'a.md')!.stamp).toBe(restamped.files[0]!.stamp);
    // Nothing else of the document moved: same id, hash and chunks.
    expect(after.map(({ stamp: _, ...d }) => d)).toEqual(before.map(({ stamp: _, ...d }) => d));
    const again = await planned(restamped);
    expect(again.filesRead).toBe(0);
    again.release();
  });

  it('each file is read and chunked once: apply writes what the plan read, even if the file changes meanwhile', async () => {
    const e = recording();
    await store.registerEmbedder(e.info);
    const snap = snapshot(v1);
    const reads: string[] = [];
    const read = snap.read.bind(snap);
    snap.read = async function* (paths) {
      for await (const f of read(paths)) {
        reads.push(f.path);
        yield f;
      }
    };
    let chunked = 0;
    const counting: Pipeline = { ...pipeline, chunker: { ...pipeline.chunker, chunk: (input) => (chunked++, pipeline.chunker.chunk(input)) } };
    const p = await planSource(store, source, snap, counting, { force: false, fingerprint: e.info.fingerprint, commitBefore: null });
    // Edits after the plan are not seen by this run (the next one plans them).
    snap.read = async function* (paths) {
      for (const path of paths) yield { path, bytes: Buffer.from(doc('A', 'edited meanwhile')) };
    };
    const written = await apply(p, e);
    expect(reads.sort()).toEqual(['a.md', 'b.md']);
    expect(chunked).toBe(2);
    expect(await stored()).toEqual(['a.md', 'b.md']);
    expect(written.documents).toMatchObject({ added: 2, skipped: 0 });
    expect(e.sent.join('\n')).not.toContain('edited meanwhile');
    expect(new Set(e.sent.map(sha256))).toEqual(p.embed);
    // The plan's kept documents are freed once applied.
    expect(() => [...p.documents(['a.md'])]).toThrow(/already applied or released/);
  });

  it("a plan makes each document's fingerprint once per media type, not again per file or per step", async () => {
    // The markdown chunker, its fingerprint counted each time it is read (every fingerprint made reads it once).
    let reads = 0;
    let version = 'a';
    const inner = pipeline.chunker;
    const counted: Pipeline = {
      ...pipeline,
      chunker: {
        ...inner,
        chunk: (input) => inner.chunk(input),
        get fingerprint() {
          reads++;
          return `${inner.fingerprint}+${version}`;
        },
      },
    };
    const files = { 'a.md': doc('A', 'alpha'), 'b.md': doc('B', 'beta'), 'c.md': doc('C', 'gamma'), 'd.txt': 'plain delta\n' };
    const e = recording();
    await store.registerEmbedder(e.info);
    const planWith = (opts: { outlineOnly?: boolean } = {}) =>
      planSource(store, source, snapshot(files), counted, { force: false, fingerprint: e.info.fingerprint, commitBefore: null, ...opts });
    const first = await planWith();
    expect(first.counts.documents.added).toBe(4);
    expect(reads).toBe(2); // text/markdown and text/plain
    await apply(first, e);
    // The pipeline changed: every file (same stamps) is listed as made by another, read again, compared, rewritten.
    version = 'b';
    reads = 0;
    const second = await planWith();
    expect(second.counts.documents).toMatchObject({ changed: 4, unchanged: 0 });
    expect(reads).toBe(2);
    second.release();
    reads = 0;
    version = 'c';
    await planWith({ outlineOnly: true });
    expect(reads).toBe(2);
  });

  it('a dry-run plan keeps nothing for apply', async () => {
    const e = recording();
    await store.registerEmbedder(e.info);
    const p = await planSource(store, source, snapshot(v1), pipeline, { force: false, fingerprint: e.info.fingerprint, commitBefore: null, outlineOnly: true });
    expect(p.counts.documents.added).toBe(2);
    expect(() => [...p.documents(['a.md'])]).toThrow(/keeps no documents/);
  });

  it('delete: the document goes, counted once it is committed', async () => {
    const e = recording();
    await apply(await plan(v1, e), e);
    const p = await plan({ 'b.md': v1['b.md'] }, e);
    expect(p.delete).toEqual(['a.md']);
    const written = await apply(p, e);
    expect(written.documents.deleted).toBe(1);
    expect(await stored()).toEqual(['b.md']);
  });

  it('an embedder switch: unchanged documents refill under the new fingerprint, kept apart from new texts', async () => {
    const first = recording(64);
    await apply(await plan(v1, first), first);
    const second = recording(32);
    const p = await plan({ ...v1, 'c.md': doc('C', 'gamma') }, second);
    expect(p.fingerprint).toBe(second.info.fingerprint);
    expect(p.counts.documents).toMatchObject({ added: 1, unchanged: 2 });
    const cTexts = new Set(p.write.find((w) => w.doc.path === 'c.md')!.doc.chunks.map((c) => c.textHash));
    expect([...p.embed].sort()).toEqual([...cTexts].sort()); // only the new document's texts
    const distinctStored = new Set(first.sent).size;
    expect(p.refill.size).toBe(distinctStored);
    expect(p.counts.texts).toBe(p.embed.size + p.refill.size);
    const written = await apply(p, second);
    expect(written.texts).toBe(p.counts.texts);
    expect(new Set(second.sent.map(sha256))).toEqual(new Set([...p.embed, ...p.refill]));
    // Nothing left to do under the new fingerprint.
    const again = await plan({ ...v1, 'c.md': doc('C', 'gamma') }, second);
    expect(again.counts.texts).toBe(0);
  });

  it('apply refuses a plan made for another fingerprint', async () => {
    const p = await plan(v1, recording(64));
    await expect(apply(p, recording(32))).rejects.toThrow(/was made for hash:.*not hash:/);
    expect(await stored()).toEqual([]);
  });

  it('--max-docs writes the first N documents and defers the rest', async () => {
    const e = recording();
    const p = await plan({ ...v1, 'c.md': doc('C', 'gamma') }, e, { maxDocs: 2 });
    expect(p.deferred).toBe(1);
    expect(p.write.map((w) => w.doc.path)).toEqual(['a.md', 'b.md']);
    expect(p.counts.documents.added).toBe(2);
    await apply(p, e);
    expect(await stored()).toEqual(['a.md', 'b.md']);
    const rest = await plan({ ...v1, 'c.md': doc('C', 'gamma') }, e);
    expect(rest.counts.documents).toMatchObject({ added: 1, unchanged: 2 });
  });

  it('a stop: the stored vectors stay, no document of the stopped plan is visible, the next plan embeds only the rest', async () => {
    const files = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`d${i}.md`, doc(`D${i}`, `paragraph ${i} one`, `paragraph ${i} two`)]));
    const e = recording(64, 1);
    const p = await plan(files, e);
    const stop = new AbortController();
    const inner = e.embed.bind(e);
    let calls = 0;
    e.embed = async (texts) => {
      if (++calls === 5) stop.abort(); // the batch in flight still answers and is stored
      return inner(texts);
    };
    const written = noWork();
    await expect(apply(p, e, stop.signal, written)).rejects.toBeInstanceOf(AbortedError);
    expect(await stored()).toEqual([]);
    expect(written.documents).toMatchObject({ added: 0, changed: 0, deleted: 0 });
    expect(written.chunks).toBe(0);
    expect(written.texts).toBe(calls);
    // The next plan needs none of the texts the stopped run stored.
    const next = await plan(files, e);
    expect(next.counts.documents.added).toBe(8);
    expect(next.counts.texts).toBe(p.counts.texts - calls);
  });

  it('a split file: the old document and its replacements switch in one transaction, even when stopped mid-way', async () => {
    const e = recording(64, 1);
    const whole = doc('Whole', ...Array.from({ length: 6 }, (_, i) => `part ${i} of the whole`));
    await apply(await plan({ 'whole.md': whole }, e), e);
    expect(await stored()).toEqual(['whole.md']);
    const split = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`part-${i}.md`, doc(`Part ${i}`, `part ${i} split out`, `part ${i} more`)]));
    const p = await plan(split, e);
    expect(p.delete).toEqual(['whole.md']);
    // Stopped after the first batch: the index still shows the whole file only.
    const stop = new AbortController();
    const inner = e.embed.bind(e);
    e.embed = async (texts) => {
      stop.abort();
      return inner(texts);
    };
    await expect(apply(p, e, stop.signal)).rejects.toBeInstanceOf(AbortedError);
    expect(await stored()).toEqual(['whole.md']);
    // Finished: the parts only.
    e.embed = inner;
    await apply(await plan(split, e), e);
    expect(await stored()).toEqual(Object.keys(split).sort());
  });
});

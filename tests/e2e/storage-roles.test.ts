// The storage roles (writer, reader, run log, lock) against every backend: one body of tests, run
// per backend on a real database (a SQLite file; a schema on the test PostgreSQL).
import { describe, expect, it } from 'vitest';
import type { LockHolder, SearchStore } from '../../src/storage/roles.ts';
import { BACKENDS, doc, stores } from '../helpers/backends.ts';
import { defaultAnalyzer, queryTerms } from '../../src/core/text/analyzer.ts';
import { xorshift } from '../helpers/rng.ts';

const terms = (q: string) => queryTerms(defaultAnalyzer, q);

const FP = 'test:model@1:4';
const holder = (token: string): LockHolder => {
  const at = new Date().toISOString();
  return { token, pid: process.pid, host: 'roles-test', procStart: null, acquiredAt: at, heartbeatAt: at };
};
const unit = (...v: number[]) => {
  const n = Math.hypot(...v);
  return Float32Array.from(v.map((x) => x / n));
};
// Values a float32 holds exactly and some it rounds: both must come back bit for bit.
const VEC = { a: unit(1, 0, 0, 0), b: unit(0.1, 0.2, 0.3, 0.4), c: unit(1e-7, 3.3333333, -2.5, 0.7) };

describe.each(BACKENDS)('storage roles: $name', (backend) => {
  const { sync, search, later } = stores();
  const fresh = () => {
    const f = backend.fresh();
    later(f.cleanup);
    return f.db;
  };
  const keys = async (r: SearchStore, refs: { ref: number }[]) => (await r.getChunks(refs.map((x) => x.ref))).map((h) => h.id);

  describe.skipIf(!backend.ok)(backend.title('writer'), () => {
    it('writes documents with their chunks, lists them, removes paths, and keeps source state', async () => {
      const db = fresh();
      const w = sync(db);
      expect(await w.ensureSource({ name: 'notes', kind: 'dir', url: null, branch: null })).toMatchObject({ name: 'notes', documents: 0, chunks: 0 });
      await w.writeDocuments('notes', [doc('a.md', ['alpha one', 'alpha two']), doc('b.md', ['beta'])]);
      expect((await w.listDocuments('notes')).map((d) => d.path).sort()).toEqual(['a.md', 'b.md']);
      expect((await w.listDocuments('notes')).find((d) => d.path === 'a.md')).toEqual({
        path: 'a.md',
        contentHash: doc('a.md', ['alpha one', 'alpha two']).contentHash,
        stamp: 's:2',
        size: 'alpha one\nalpha two'.length,
        chunker: 'test@1',
      });
      // A rewrite replaces the document's chunks; removePaths goes in the same transaction.
      await w.writeDocuments('notes', [doc('a.md', ['alpha three'])], ['b.md']);
      expect(await w.ensureSource({ name: 'notes', kind: 'dir', url: null, branch: null })).toMatchObject({ documents: 1, chunks: 1 });
      await expect(w.writeDocuments('nope', [doc('x.md', ['x'])])).rejects.toThrow('unknown source nope');

      expect(await w.sourceListing('notes')).toEqual({ commit: null, listing: null });
      await w.setSourceCommit('notes', 'abc', '2026-01-01T00:00:00.000Z', 'key1');
      expect(await w.sourceListing('notes')).toEqual({ commit: 'abc', listing: 'key1' });
      await w.forgetSourceListing('notes');
      expect(await w.sourceListing('notes')).toEqual({ commit: 'abc', listing: null });
      expect(await w.sourceListing('unknown')).toBeNull();
      const r = search(db);
      expect((await r.getChunks(await r.findChunks({ source: 'notes' }))).map((h) => h.content)).toEqual(['alpha three']);
    });

    it('keeps each chunk\'s line range (absent where unknown) and sources of every kind, web included', async () => {
      const db = fresh();
      const w = sync(db);
      for (const kind of ['git', 'dir', 'web'] as const) await w.ensureSource({ name: kind, kind, url: kind === 'web' ? 'https://example.test/' : null, branch: null });
      const d = doc('https://example.test/a', ['first line', 'second\nthird', 'no range']);
      d.chunks[0]!.startLine = 1;
      d.chunks[0]!.endLine = 1;
      d.chunks[1]!.startLine = 2;
      d.chunks[1]!.endLine = 3;
      await w.writeDocuments('web', [d]);
      const r = search(db);
      const hits = await r.getChunks(await r.findChunks({ source: 'web' }));
      expect(hits.map((h) => [h.content, h.startLine, h.endLine])).toEqual([
        ['first line', 1, 1],
        ['second\nthird', 2, 3],
        ['no range', undefined, undefined],
      ]);
      expect(hits[2]).not.toHaveProperty('startLine');
      expect((await w.ensureSource({ name: 'web', kind: 'web', url: 'https://example.test/', branch: null })).kind).toBe('web');
    });

    it('stores vectors by (fingerprint, text hash) and gives them back bit for bit; missing ones are found', async () => {
      const db = fresh();
      const w = sync(db);
      await w.registerEmbedder({ fingerprint: FP, provider: 'test', model: 'm', dims: 4 });
      await w.registerEmbedder({ fingerprint: FP, provider: 'test', model: 'm', dims: 4 }); // again: no-op
      await w.ensureSource({ name: 'n', kind: 'dir', url: null, branch: null });
      const d = doc('a.md', ['one', 'two', 'three']);
      await w.writeDocuments('n', [d]);
      const [h1, h2, h3] = d.chunks.map((c) => c.textHash);
      expect(await w.missingVectors(FP, [h1!, h2!, h3!])).toEqual(new Set([h1, h2, h3]));
      expect((await w.storedTextsMissingVectors('n', FP)).map((t) => t.text).sort()).toEqual(['one', 'three', 'two']);
      const r = search(db);
      const g0 = await r.generation();
      await w.putVectors(FP, [
        { textHash: h1!, vector: VEC.a },
        { textHash: h2!, vector: VEC.b },
      ]);
      expect(await r.generation()).toBeGreaterThan(g0);
      expect(await w.missingVectors(FP, [h1!, h2!, h3!])).toEqual(new Set([h3]));
      expect((await w.storedTextsMissingVectors('n', FP)).map((t) => t.text)).toEqual(['three']);
      await w.putVectors(FP, [{ textHash: h3!, vector: VEC.c }]);
      expect(await w.storedTextsMissingVectors('n', FP)).toEqual([]);
      expect(await w.storedTextsMissingVectors('n', FP)).toEqual([]); // remembered as complete

      const refs = await r.findChunks({ path: 'a.md' });
      const got = await r.vectorsOf(FP, refs);
      expect([...got.values()].map((v) => Buffer.from(v.buffer).toString('hex'))).toEqual(
        [VEC.a, VEC.b, VEC.c].map((v) => Buffer.from(v.buffer).toString('hex')),
      );
      const near = await r.nearest({ fingerprint: FP, vector: VEC.a, k: 3, exact: true });
      expect(near.map((h) => h.ref)).toEqual([refs[0], refs[1], refs[2]]);
      expect(near[0]!.score).toBeCloseTo(1, 6);
      expect(near[1]!.score).toBeCloseTo(VEC.b[0]!, 6);
    });

    it('keeps the corpus lexicon: document frequencies follow writes and removals', async () => {
      const db = fresh();
      const w = sync(db);
      await w.ensureSource({ name: 'n', kind: 'dir', url: null, branch: null });
      const lex = (h: string, gloss: string) => ({ headword: h, glosses: [[gloss, 0]] as const });
      await w.writeDocuments('n', [
        doc('a.md', ['甲木'], { lexicon: [lex('甲木', 'wood'), lex('伤官', 'hurt offic')] }),
        doc('b.md', ['伤官'], { lexicon: [lex('伤官', 'hurt offic')] }),
      ]);
      const r = search(db);
      expect(await r.lexiconLookup!(['hurt offic', 'wood', 'none'])).toEqual(
        expect.arrayContaining([
          { gloss: 'hurt offic', headword: '伤官', sense: 0, df: 2 },
          { gloss: 'wood', headword: '甲木', sense: 0, df: 1 },
        ]),
      );
      await w.writeDocuments('n', [], ['a.md']);
      expect(await r.lexiconLookup!(['hurt offic', 'wood'])).toEqual([{ gloss: 'hurt offic', headword: '伤官', sense: 0, df: 1 }]);
    });

    it('a write of many documents in batches is seen at its commit, or not at all after a rollback', async () => {
      const db = fresh();
      const w = sync(db);
      await w.ensureSource({ name: 'n', kind: 'dir', url: null, branch: null });
      await w.writeDocuments('n', [doc('old.md', ['old'])]);
      const r = search(db);
      const contents = async () => (await r.getChunks(await r.findChunks({ source: 'n' }))).map((h) => h.content).sort();
      const write = await w.beginDocuments('n');
      await write.write([doc('a.md', ['first batch'])]);
      await write.remove(['old.md']);
      await write.write([doc('b.md', ['second batch'])]);
      expect(await contents()).toEqual(['old']); // readers see the last commit
      await write.commit();
      expect(await contents()).toEqual(['first batch', 'second batch']);
      const dropped = await w.beginDocuments('n');
      await dropped.write([doc('c.md', ['never'])]);
      await dropped.rollback();
      expect(await contents()).toEqual(['first batch', 'second batch']);
      const seen: string[] = [];
      await w.scanStoredTexts('n', (path, hash) => seen.push(`${path}:${hash.slice(0, 6)}`));
      expect(seen.sort()).toEqual([`a.md:${doc('a.md', ['first batch']).chunks[0]!.textHash.slice(0, 6)}`, `b.md:${doc('b.md', ['second batch']).chunks[0]!.textHash.slice(0, 6)}`]);
      expect((await r.chunkTerms(await r.findChunks({ path: 'a.md' }))).map((t) => t.terms)).toEqual([doc('a.md', ['first batch']).chunks[0]!.terms]);
    });

    it('a restamp sets the stamps of the named documents and writes nothing else; a rollback undoes it', async () => {
      const db = fresh();
      const w = sync(db);
      await w.ensureSource({ name: 'n', kind: 'dir', url: null, branch: null });
      await w.writeDocuments('n', [doc('a.md', ['alpha']), doc('b.md', ['beta'])]);
      const r = search(db);
      const chunks = async () => r.getChunks(await r.findChunks({ source: 'n' }));
      const before = { docs: await w.listDocuments('n'), chunks: await chunks() };
      const dropped = await w.beginDocuments('n');
      await dropped.restamp([{ path: 'a.md', stamp: 'never' }]);
      await dropped.rollback();
      expect(await w.listDocuments('n')).toEqual(before.docs);
      const write = await w.beginDocuments('n');
      await write.restamp([{ path: 'a.md', stamp: 'touched:1' }, { path: 'gone.md', stamp: 'x' }]);
      await write.commit();
      const after = await w.listDocuments('n');
      expect(after.find((d) => d.path === 'a.md')!.stamp).toBe('touched:1');
      expect(after.map(({ stamp: _, ...d }) => d)).toEqual(before.docs.map(({ stamp: _, ...d }) => d));
      expect(after.find((d) => d.path === 'b.md')).toEqual(before.docs.find((d) => d.path === 'b.md'));
      expect(await chunks()).toEqual(before.chunks);
    });

    it('a dry run writes nothing', async () => {
      const db = fresh();
      const w = sync(db);
      await w.ensureSource({ name: 'n', kind: 'dir', url: null, branch: null });
      await w.writeDocuments('n', [doc('a.md', ['kept'])]);
      await w.close();
      const dry = sync(db, { dryRun: true });
      await dry.ensureSource({ name: 'n', kind: 'dir', url: null, branch: null });
      await dry.writeDocuments('n', [doc('b.md', ['dry'])], ['a.md']);
      expect((await dry.listDocuments('n')).map((d) => d.path)).toEqual(['b.md']); // the run sees its own plan
      await dry.close();
      const r = search(db);
      expect((await r.getChunks(await r.findChunks({ source: 'n' }))).map((h) => h.content)).toEqual(['kept']);
    });
  });

  describe.skipIf(!backend.ok)(backend.title('reader'), () => {
    const seed = async (db: string) => {
      const w = sync(db);
      await w.ensureSource({ name: 'notes', kind: 'dir', url: null, branch: null });
      await w.ensureSource({ name: 'books', kind: 'git', url: 'https://example.org/b.git', branch: 'main' });
      await w.writeDocuments('notes', [
        doc('2024/a.md', ['queue workers retry failed jobs', 'queue in order'], { metadata: { tags: ['Infra', 'queues'], date: '2024-03-05' } }),
        doc('2025/b.md', ['retry with backoff', 'broken chunk about queue'], {
          metadata: { tags: ['infra'], date: '2025-01-20' },
          chunkMeta: [{}, { broken: true }],
        }),
      ]);
      await w.writeDocuments('books', [doc('qiongtong.md', ['甲木参天，脱胎要火', '伤官配印，贵不可言', '伤官见官，为祸百端'], { heading: '穷通宝鉴' })]);
      return w;
    };

    it('keyword search ranks by BM25 over the analyzer tokens, CJK included, and applies filters', async () => {
      const db = fresh();
      await seed(db);
      const r = search(db);
      const hits = await r.keyword({ tokens: terms('queue'), k: 10 });
      expect(await keys(r, hits)).toEqual(['2024/a.md#1', '2024/a.md#0']); // shorter chunk first; broken left out
      expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
      expect(await keys(r, await r.keyword({ tokens: terms('queue'), k: 10, filter: { includeBroken: true } }))).toContain('2025/b.md#1');
      expect(await keys(r, await r.keyword({ tokens: ['伤官'], k: 10 }))).toEqual(['qiongtong.md#1', 'qiongtong.md#2']);
      expect(await keys(r, await r.keyword({ tokens: ['伤官', '配印'], k: 1 }))).toEqual(['qiongtong.md#1']);
      // How many query tokens each hit holds (repeats again), alike on both backends: per-query
      // fusion reads it (search/trust.ts), so a backend without it would rank apart.
      const held = await r.keyword({ tokens: ['伤官', '配印', '伤官'], k: 10, reuse: true, countTerms: true });
      expect(await keys(r, held)).toEqual(['qiongtong.md#1', 'qiongtong.md#2']);
      expect(held.map((h) => h.terms)).toEqual([3, 2]);
      expect(await keys(r, await r.keyword({ tokens: terms('retry'), k: 10, filter: { path: '2025/**' } }))).toEqual(['2025/b.md#0']);
      expect(await keys(r, await r.keyword({ tokens: terms('retry'), k: 10, filter: { sources: ['books'] } }))).toEqual([]);
      const [best] = await r.keyword({ tokens: terms('backoff'), k: 5 });
      expect(best!.score).toBeGreaterThan(0);
      const [hit] = await r.getChunks([best!.ref]);
      expect(hit).toMatchObject({ id: '2025/b.md#0', source: 'notes', path: '2025/b.md', title: '2025/b', content: 'retry with backoff' });
      expect(hit!.metadata).toEqual({ tags: ['infra'], date: '2025-01-20' });
    });

    it('ranking in the store: nearest is the exact cosine top k with filters applied, alike one-shot and long-lived; keyword alike too', async () => {
      const db = fresh();
      const w = await seed(db);
      const dims = 64;
      const fp = 'test:rank@1:64';
      await w.registerEmbedder({ fingerprint: fp, provider: 'test', model: 'rank', dims });
      const rnd = xorshift(11);
      const vec = (nonZero = dims) => {
        const v = new Float32Array(dims);
        for (let i = 0; i < nonZero; i++) v[nonZero === dims ? i : Math.floor(rnd() * dims)] = rnd() * 2 - 1;
        return v;
      };
      const d = doc('2026/many.md', Array.from({ length: 240 }, (_, i) => `passage ${i}`), { metadata: { date: '2026-02-01' } });
      await w.writeDocuments('notes', [d]);
      const hashes: string[] = [];
      for (const s of ['notes', 'books']) await w.scanStoredTexts(s, (_p, h) => void hashes.push(h));
      await w.putVectors(fp, [...new Set(hashes)].map((textHash) => ({ textHash, vector: vec() })));
      await w.refreshCodePack?.(fp);
      const long = search(db);
      const once = search(db, { oneShot: true });
      const stored = await long.vectorsOf(fp, [...(await long.findChunks({ source: 'notes' })), ...(await long.findChunks({ source: 'books' }))]);
      const all = { refs: [...stored.keys()].sort((x, y) => x - y) };
      const unitRow = (ref: number) => {
        const v = stored.get(ref)!;
        const n = Math.hypot(...v);
        return v.map((x) => x / n);
      };
      const brute = async (q: Float32Array, pass: Set<number>) => {
        const qn = Math.hypot(...q);
        return all.refs
          .map((ref) => ({ ref, score: unitRow(ref).reduce((s, x, j) => s + (x * q[j]!) / qn, 0) }))
          .filter((h) => pass.has(h.ref))
          .sort((x, y) => y.score - x.score || x.ref - y.ref);
      };
      const passing = async (filter?: Parameters<SearchStore['filterRefs']>[1]) => new Set(await long.filterRefs([...all.refs], filter));
      // Dense and sparse queries (a sparse one reads only its dimensions' codes); filters the store
      // answers from memory (sources, broken chunks) and ones it answers in SQL (paths, metadata).
      for (const q of [vec(), vec(3)]) {
        for (const filter of [undefined, { sources: ['notes'] }, { includeBroken: true }, { path: '2024/**' }, { where: [{ op: 'eq' as const, fields: ['date'], value: '2026-02-01' }] }]) {
          const want = (await brute(q, await passing(filter))).slice(0, 7);
          const got = await long.nearest!({ fingerprint: fp, vector: q, k: 7, filter, exact: true });
          expect(got.map((h) => h.ref)).toEqual(want.map((h) => h.ref));
          got.forEach((h, i) => expect(h.score).toBeCloseTo(want[i]!.score, 5));
          expect(await once.nearest!({ fingerprint: fp, vector: q, k: 7, filter, exact: true })).toEqual(got);
        }
      }
      expect(await long.nearest!({ fingerprint: fp, vector: vec(), k: 0 })).toEqual([]);
      for (const r of [long, once]) {
        for (const q of [{ tokens: terms('queue'), k: 10 }, { tokens: ['伤官'], k: 10, filter: { sources: ['books'] } }, { tokens: terms('retry'), k: 10, filter: { path: '2025/**' } }]) {
          const got = await r.keyword(q);
          expect(got.length).toBeGreaterThan(0);
          expect(got).toEqual(await (r === long ? once : long).keyword(q));
        }
      }
    });

    it('match sets: the chunks holding every token of each list, as positions into all chunks; a write is seen', async () => {
      const db = fresh();
      const w = await seed(db);
      const r = search(db);
      const named = async (lists: string[][], filter?: Parameters<NonNullable<SearchStore['matchSets']>>[1]) => {
        const m = await r.matchSets!(lists, filter);
        const key = new Map((await r.getChunks([...m.refs])).map((h) => [h.ref, h.id]));
        return { sets: m.sets.map((set) => [...set].map((p) => key.get(m.refs[p]!))), total: m.total, filtered: m.filtered, refs: m.refs.length };
      };
      expect(await named([['伤官'], ['伤官', '配印'], terms('queue'), []])).toEqual({
        sets: [['qiongtong.md#1', 'qiongtong.md#2'], ['qiongtong.md#1'], ['2024/a.md#0', '2024/a.md#1'], []],
        total: 7,
        filtered: true,
        refs: 7,
      });
      // Heading terms count (the head column), and broken chunks only when asked for.
      expect((await named([['穷通'], terms('queue')], { includeBroken: true })).sets).toEqual([
        ['qiongtong.md#0', 'qiongtong.md#1', 'qiongtong.md#2'],
        ['2024/a.md#0', '2024/a.md#1', '2025/b.md#1'],
      ]);
      expect(await named([['伤官']], { sources: ['books'] })).toMatchObject({ total: 3, filtered: true });
      expect(await named([terms('queue')], { path: '2024/**' })).toMatchObject({ filtered: false, total: 7 });
      // Sets and counts asked for again after a write: what the write changed, not what was kept.
      await w.writeDocuments('books', [doc('more.md', ['伤官伤尽复生财'])]);
      expect(await named([['伤官'], ['伤官', '配印']], { sources: ['books'] })).toEqual({
        sets: [['qiongtong.md#1', 'qiongtong.md#2', 'more.md#0'], ['qiongtong.md#1']],
        total: 4,
        filtered: true,
        refs: 8,
      });
    });

    it('term counts: how many chunks hold each keyword term, heading included, alike on both backends; a write is seen', async () => {
      const db = fresh();
      const w = await seed(db);
      const r = search(db);
      expect(await r.termCounts!(['伤官', '配印', '官', '穷通', '无有', '伤官'])).toEqual([2, 1, 2, 3, 0, 2]);
      expect(await r.termCounts!([])).toEqual([]);
      await w.writeDocuments('books', [doc('more.md', ['伤官伤尽复生财'])]);
      expect(await r.termCounts!(['伤官', '生财'])).toEqual([3, 1]);
    });

    it('filters as data: metadata conditions, paths, sources, broken chunks', async () => {
      const db = fresh();
      await seed(db);
      const r = search(db);
      const all = await r.findChunks({ source: 'notes' });
      const pass = async (filter: Parameters<SearchStore['filterRefs']>[1]) =>
        (await r.getChunks(await r.filterRefs(all, filter))).map((h) => h.id);
      expect(await pass({ where: [{ op: 'has-all', fields: ['tags'], values: ['infra', 'QUEUES'] }] })).toEqual(['2024/a.md#0', '2024/a.md#1']);
      expect(await pass({ where: [{ op: 'month', fields: ['date'], value: '2025-01' }] })).toEqual(['2025/b.md#0']);
      expect(await pass({ where: [{ op: 'since', fields: ['date'], value: '2025-01-01' }], includeBroken: true })).toEqual(['2025/b.md#0', '2025/b.md#1']);
      expect(await pass({ where: [{ op: 'until', fields: ['date'], value: '2024-12-31' }] })).toEqual(['2024/a.md#0', '2024/a.md#1']);
      expect(await pass({ where: [{ op: 'eq', fields: ['date'], value: '2024-03-05' }] })).toEqual(['2024/a.md#0', '2024/a.md#1']);
      expect(await pass({ path: '2024/*.md' })).toEqual(['2024/a.md#0', '2024/a.md#1']);
      expect(await r.fieldValues(['tags'], 'element')).toEqual(['Infra', 'infra', 'queues']);
      expect(await r.fieldValues(['date'], 'value')).toEqual(['2024-03-05', '2025-01-20']);
      expect(await r.fieldValues(['date'], 'month')).toEqual(['2024-03', '2025-01']);
      expect(await r.anyChunk({ sources: ['books'] })).toBe(true);
      expect(await r.anyChunk({ sources: ['nope'] })).toBe(false);
      expect(await r.findChunks({ id: 'qiongtong.md#2' })).toHaveLength(1);
      const texts = await r.chunkTexts(await r.findChunks({ path: 'qiongtong.md' }));
      expect(texts.map((t) => [t.title, t.heading, t.content]).sort()).toEqual([
        ['qiongtong', '穷通宝鉴', '伤官见官，为祸百端'],
        ['qiongtong', '穷通宝鉴', '伤官配印，贵不可言'],
        ['qiongtong', '穷通宝鉴', '甲木参天，脱胎要火'],
      ]);
    });
  });

  describe.skipIf(!backend.ok)(backend.title('run log'), () => {
    it('records runs with their per-source counts, newest first; aborts runs left running', async () => {
      const db = fresh();
      const w = sync(db);
      const counts = { documents: { added: 2, changed: 1, deleted: 0, renamed: 0, unchanged: 5, skipped: 1 }, chunks: 7, chunksReused: 3, texts: 4 };
      const id = await w.startRun({ trigger: 'cron', fingerprint: FP, forced: true });
      await w.finishRun(id, {
        status: 'partial',
        textsEmbedded: 4,
        requests: 2,
        tokens: 99,
        retries: 1,
        error: null,
        sources: [{ source: 'notes', status: 'partial', commitBefore: null, commitAfter: 'c1', planned: counts, written: counts, skippedFiles: [{ path: 'x.bin', reason: 'binary' }], error: 'one file skipped' }],
      });
      const left = await w.startRun({ trigger: 'manual', fingerprint: FP, forced: false });
      const [newest, first] = await w.recentRuns(5);
      expect(newest).toMatchObject({ id: left, status: 'running', forced: false });
      expect(first).toMatchObject({ id, trigger: 'cron', status: 'partial', forced: true, textsEmbedded: 4, requests: 2, tokens: 99, retries: 1 });
      expect(first!.sources).toEqual([
        { source: 'notes', status: 'partial', commitBefore: null, commitAfter: 'c1', planned: counts, written: counts, skippedFiles: [{ path: 'x.bin', reason: 'binary' }], error: 'one file skipped' },
      ]);
      expect(await w.abortStaleRuns()).toBe(1);
      expect((await w.recentRuns(1))[0]).toMatchObject({ id: left, status: 'aborted', error: 'interrupted' });
      const st = await w.status({ runs: 1 });
      expect(st.runs).toHaveLength(1);
    });

    it('status counts coverage; gc drops vectors no chunk uses and other fingerprints; export pages in order with vectors', async () => {
      const db = fresh();
      const w = sync(db);
      await w.registerEmbedder({ fingerprint: FP, provider: 'test', model: 'm', dims: 4 });
      await w.registerEmbedder({ fingerprint: 'other:2', provider: 'test', model: 'o', dims: 2 });
      await w.ensureSource({ name: 'n', kind: 'dir', url: null, branch: null });
      const d = doc('a.md', ['one', 'two']);
      await w.writeDocuments('n', [d, doc('b.md', ['one'])]);
      await w.putVectors(FP, [
        { textHash: d.chunks[0]!.textHash, vector: VEC.a },
        { textHash: 'gone', vector: VEC.b },
      ]);
      await w.putVectors('other:2', [{ textHash: d.chunks[0]!.textHash, vector: Float32Array.of(0.6, 0.8) }]);
      const st = await w.status();
      expect(st.distinctTexts).toBe(2);
      expect(st.sources).toEqual([{ name: 'n', kind: 'dir', url: null, branch: null, commit: null, indexedAt: null, documents: 2, chunks: 3 }]);
      expect(st.coverage).toEqual([
        { fingerprint: FP, dims: 4, covered: 1, stored: 2 },
        { fingerprint: 'other:2', dims: 2, covered: 1, stored: 1 },
      ]);
      const rows = [];
      for await (const row of w.exportChunks(undefined, { vectorsOf: FP })) rows.push(row);
      expect(rows.map((r) => [r.id, r.vector ? Buffer.from(r.vector.buffer).toString('hex') : null])).toEqual([
        ['a.md#0', Buffer.from(VEC.a.buffer).toString('hex')],
        ['a.md#1', null],
        ['b.md#0', Buffer.from(VEC.a.buffer).toString('hex')],
      ]);
      expect(await w.gc({ spareSince: '2000-01-01T00:00:00.000Z' })).toEqual({ vectors: 0 });
      expect(await w.gc()).toEqual({ vectors: 1 });
      expect(await w.gc({ keepOnly: FP })).toEqual({ vectors: 1 });
      expect((await w.status()).coverage.map((c) => c.fingerprint)).toEqual([FP]);
    });
  });

  describe.skipIf(!backend.ok)(backend.title('lock'), () => {
    it('one holder at a time across connections; released, the next takes it; heartbeats while held', async () => {
      const db = fresh();
      const a = sync(db);
      const b = sync(db);
      await a.startRun({ trigger: 'manual', fingerprint: FP, forced: false }); // the schema exists before both race
      expect(await a.tryLock(holder('A'), () => false)).toEqual({ acquired: true, replaced: null });
      const refused = await b.tryLock(holder('B'), () => false);
      expect(refused).toMatchObject({ acquired: false, holder: { token: 'A', host: 'roles-test' } });
      expect(await a.heartbeatLock('A')).toBe(true);
      expect(await b.heartbeatLock('B')).toBe(false);
      await a.releaseLock('A');
      expect(await a.heartbeatLock('A')).toBe(false);
      expect(await b.tryLock(holder('B'), () => false)).toEqual({ acquired: true, replaced: null });
      await b.releaseLock('B');
    });
  });
});

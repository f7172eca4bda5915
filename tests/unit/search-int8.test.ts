import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HashEmbedder } from '../../src/embedding/hash.ts';
import { loadConfig } from '../../src/builtin.ts';
import { MODES, Searcher } from '../../src/search/search.ts';
import { createEmbedder } from '../../src/embedding/create.ts';
import { openIndex } from '../../src/storage/open.ts';
import { nearestRefs } from '../../src/storage/ranking/nearest.ts';
import type { NearestQuery, SearchStore } from '../../src/storage/roles.ts';
import { createInt8Kernel } from '../../src/storage/ranking/simd-dots.ts';
import { normalizeRows, quantizeRow, VectorIndex } from '../../src/storage/ranking/vector-index.ts';
import { SqliteIndex } from '../../src/storage/sqlite/index.ts';
import { vectorSourceOf } from '../helpers/vector-source.ts';
import { makeFixture, record, type Fixture, type FixtureDoc } from '../helpers/search-fixture.ts';
import { tempDir } from '../helpers/tmp.ts';
import { join } from 'node:path';
import { xorshift } from '../helpers/rng.ts';
import { openSearcher } from '../../src/engine/library.ts';


describe('int8 WASM kernel', () => {
  it('equals the JS integer dot product, extremes included', () => {
    for (const dims of [16, 64, 1024]) {
      const n = 301;
      const k = createInt8Kernel(n, dims)!;
      expect(k).not.toBeNull();
      const r = xorshift(dims);
      for (let i = 0; i < n * dims; i++) k.vectors[i] = i < dims ? 127 : i < 2 * dims ? -127 : Math.round(r() * 254 - 127);
      const q = new Int16Array(dims);
      for (let j = 0; j < dims; j++) q[j] = j % 2 ? k.queryMax : Math.round((r() * 2 - 1) * k.queryMax);
      const out = k.dots(q).slice();
      for (let row = 0; row < n; row++) {
        let s = 0;
        for (let j = 0; j < dims; j++) s += k.vectors[row * dims + j]! * q[j]!;
        expect(out[row]).toBe(s);
      }
      // Row ranges: the same sums there, other rows untouched.
      const q2 = q.map((x) => -x);
      const part = k.dots(q2, [[0, 3], [100, 101], [n - 5, n]]);
      for (let row = 0; row < n; row++) {
        const inRange = row < 3 || row === 100 || row >= n - 5;
        expect(part[row]).toBe(inRange ? (out[row] === 0 ? 0 : -out[row]!) : out[row]);
      }
    }
  });

  it('declines shapes it does not handle', () => {
    expect(createInt8Kernel(10, 24)).toBeNull();
    expect(createInt8Kernel(0, 64)).toBeNull();
  });

  it('quantises a row to within half a step per component', () => {
    const v = Float32Array.from({ length: 64 }, (_, j) => Math.sin(j * 1.7));
    normalizeRows(v, 64);
    const out = new Int8Array(64);
    const scale = quantizeRow(v, out);
    for (let j = 0; j < 64; j++) expect(Math.abs(v[j]! - out[j]! * scale)).toBeLessThanOrEqual(scale / 2 + 1e-7);
    expect(quantizeRow(new Float32Array(16), new Int8Array(16))).toBe(0);
  });
});

/**
 * A real index of synthetic dense vectors (harder for int8 than the hashed ones): clusters of
 * near-duplicates make near-ties, so the exact top k depends on the rescoring.
 */
describe('int8 index with exact rescoring', () => {
  const dims = 64;
  const n = 900;
  let t: { dir: string; cleanup: () => void };
  let store: SqliteIndex;
  let fp: string;
  const queries: Float32Array[] = [];

  beforeAll(async () => {
    t = tempDir('ragsync-int8-');
    store = new SqliteIndex(join(t.dir, 'index.db'));
    const embedder = new HashEmbedder(dims);
    fp = embedder.info.fingerprint;
    await store.ensureSource({ name: 'a', kind: 'dir', url: null, branch: null });
    await store.ensureSource({ name: 'b', kind: 'dir', url: null, branch: null });
    await store.registerEmbedder(embedder.info);
    const r = xorshift(7);
    const centres = Array.from({ length: 30 }, () => Float32Array.from({ length: dims }, () => r() * 2 - 1));
    for (const source of ['a', 'b']) {
      const docs: FixtureDoc[] = Array.from({ length: n / 2 / 5 }, (_, d) => ({
        path: `${source}/${d}.md`,
        chunks: Array.from({ length: 5 }, (_, c) => [`h${c}`, `${source} doc ${d} chunk ${c}`, c === 4 ? { broken: true } : {}] as [string, string, Record<string, unknown>]),
      }));
      const recs = docs.map((d) => record(d));
      const chunks = recs.flatMap((x) => x.chunks);
      await store.putVectors(
        fp,
        chunks.map((c) => {
          const centre = centres[Math.floor(r() * centres.length)]!;
          // Scaled rows: the index normalises them, the store keeps them as written.
          const v = Float32Array.from(centre, (x) => (x + (r() - 0.5) * 0.05) * (1 + r() * 3));
          return { textHash: c.textHash, vector: v };
        }),
      );
      await store.writeDocuments(source, recs);
    }
    for (let i = 0; i < 60; i++) {
      const c = i % 2 ? centres[i % centres.length]! : Float32Array.from({ length: dims }, () => r() * 2 - 1);
      queries.push(Float32Array.from(c, (x) => x + (r() - 0.5) * 0.02));
    }
  });
  afterAll(async () => {
    await store.close();
    t.cleanup();
  });

  it('returns the exact float32 top k (refs and scores), filtered or not, k growing', async () => {
    const int8 = new VectorIndex(store.reader.vectors, fp);
    const f32 = new VectorIndex(store.reader.vectors, fp, { quantize: false });
    const onlyA = (await store.reader.refFilter({ sources: ['a'] }))!;
    let same = 0;
    let total = 0;
    for (const q of queries) {
      const a = await int8.ranker(q);
      const b = await f32.ranker(q);
      for (const [k, accept] of [[10, undefined], [50, undefined], [10, onlyA], [40, onlyA], [200, undefined]] as const) {
        const got = await a(k, accept);
        const want = await b(k, accept);
        // The same rows in the same order, up to float rounding: the store's cosine and the float32
        // kernel round differently (≈1e-7), so rows that tie that closely may swap.
        const exact = new Map((await b(n)).map((m) => [m.ref, m.score]));
        expect(got.length).toBe(want.length);
        got.forEach((m, i) => {
          expect(Math.abs(m.score - want[i]!.score)).toBeLessThan(1e-6);
          expect(Math.abs(exact.get(m.ref)! - want[i]!.score)).toBeLessThan(1e-6);
        });
        if (accept) expect(got.every((m) => accept(m.ref))).toBe(true);
        same += got.filter((m, i) => m.ref === want[i]!.ref).length;
        total += got.length;
      }
    }
    expect(same / total).toBeGreaterThan(0.99);
    expect(int8.quantized).toBe(true);
    expect(f32.quantized).toBe(false);
    // The bound keeps rescoring near k per query, far below a full scan.
    expect(int8.rescored / (queries.length * 5)).toBeLessThan(200);
  });

  it('a scope known before the scan (rows it rejects left unscored) ranks exactly as without it', async () => {
    const scoped = new VectorIndex(store.reader.vectors, fp);
    const plain = new VectorIndex(store.reader.vectors, fp);
    // One run of rows (source b, broken ones too), and many short runs (a without its broken chunks: scanned whole).
    for (const filter of [{ sources: ['b'], includeBroken: true }, { sources: ['a'] }, { sources: ['a', 'b'], includeBroken: true }]) {
      const accept = (await store.reader.refFilter(filter))!;
      const scope = { key: JSON.stringify(filter), accept };
      for (const q of queries.slice(0, 20)) {
        const a = await scoped.ranker(q, scope);
        const b = await plain.ranker(q);
        for (const k of [1, 10, 60]) expect(await a(k, accept)).toEqual(await b(k, accept));
      }
    }
  });

  it('the stored vector of a chunk comes back unit length from either index', async () => {
    const ref = (await store.findChunks({ source: 'a', path: 'a/3.md' }))[0]!;
    const a = (await new VectorIndex(store.reader.vectors, fp).vectorOf(ref))!;
    const b = (await new VectorIndex(store.reader.vectors, fp, { quantize: false }).vectorOf(ref))!;
    expect(Array.from(a)).toEqual(Array.from(b));
    expect(await new VectorIndex(store.reader.vectors, fp).vectorOf(-5)).toBeNull();
  });

  it('the reader fetches candidates in batches, in the order asked, filtered alike in memory and in SQL', async () => {
    const refs = (await store.findChunks({ source: 'b', path: 'b/2.md' })).concat(await store.findChunks({ source: 'a', path: 'a/1.md' }));
    const shuffled = [refs[7]!, refs[0]!, refs[9]!, refs[3]!, refs[4]!];
    expect((await store.getChunks(shuffled)).map((h) => h.ref)).toEqual(shuffled);
    // In memory (sources, broken) and through SQL (a path glob) agree.
    const mem = await store.filterRefs(shuffled, { sources: ['a'] });
    const sql = await store.filterRefs(shuffled, { sources: ['a'], path: '**' });
    expect(mem).toEqual(sql);
    expect(mem.every((r) => refs.slice(5).includes(r))).toBe(true);
    expect(mem).not.toContain(refs[9]); // chunk 4 of a/1.md is broken
    expect(await store.filterRefs(shuffled, { includeBroken: true })).toEqual(shuffled);
    expect(await store.reader.refFilter({ path: 'a/*' })).toBeNull();
    // Exact cosine in the store equals the JS one over the stored rows.
    const q = queries[0]!;
    const scores = await store.reader.vectors.vectorScores(fp, refs, q);
    const rows = await store.vectorsOf(fp, refs);
    const qn = Float32Array.from(q);
    normalizeRows(qn, dims);
    for (const r of refs) {
      const v = rows.get(r)!;
      normalizeRows(v, dims);
      let s = 0;
      for (let j = 0; j < dims; j++) s += v[j]! * qn[j]!;
      expect(Math.abs(scores.get(r)! - s)).toBeLessThan(1e-5);
    }
    expect((await store.reader.vectors.vectorScores(fp, [-1], q)).size).toBe(0);
  });
});

describe('searches answer the same with int8 and float32 rows', () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await makeFixture(256);
  });
  afterAll(() => fx.cleanup());

  it('same results in every mode, with filters', async () => {
    const cfg = loadConfig(fx.configFile);
    const int8 = openSearcher(cfg);
    // The same store ranking with float32 rows in memory instead of int8 ones.
    const int8Store = openIndex(cfg, 'search');
    const embedder = createEmbedder(cfg.embedder);
    const { reader } = int8Store as unknown as SqliteIndex;
    const f32Rows = new VectorIndex(reader.vectors, embedder.info.fingerprint, { quantize: false });
    const f32Store: SearchStore = Object.assign(Object.create(int8Store) as SearchStore, {
      nearest: (q: NearestQuery) => nearestRefs(reader, f32Rows, q.vector, q.k, q.filter, q.exclude),
    });
    const f32 = new Searcher(f32Store, embedder, cfg);
    try {
      for (const query of ['甲木', '伤官配印', '天乙贵人', 'rust async', '印绶']) {
        for (const mode of MODES) {
          for (const opts of [{}, { sources: ['classics'] }, { k: 3, dedupe: false }, { explain: true }]) {
            const a = await int8.search(query, { mode, ...opts });
            const b = await f32.search(query, { mode, ...opts });
            expect(a.map((r) => [r.source, r.id])).toEqual(b.map((r) => [r.source, r.id]));
            a.forEach((r, i) => expect(Math.abs(r.score - b[i]!.score)).toBeLessThan(1e-5));
          }
        }
      }
      expect(vectorSourceOf<VectorIndex>(int8).quantized).toBe(true);
    } finally {
      await int8.close();
      await f32.close();
    }
  });
});

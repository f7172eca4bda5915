import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { HashEmbedder } from '../../src/embedding/hash.ts';
import { Searcher } from '../../src/search/search.ts';
import type { VectorIndex } from '../../src/storage/ranking/vector-index.ts';
import { queryTerms } from '../../src/core/text/analyzer.ts';
import { classicsProfile } from '../../src/profiles/classics/index.ts';
import * as sqliteVec from 'sqlite-vec';
import { encodeVector } from '../../src/storage/sqlite/blob.ts';
import { SqliteIndex } from '../../src/storage/sqlite/index.ts';
import { vectorSourceOf } from '../helpers/vector-source.ts';
import { loadConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import { makeFixture, record, writeFixture, type Fixture } from '../helpers/search-fixture.ts';
import { keywordHits } from '../helpers/keyword-hits.ts';
import { openSearcher } from '../../src/engine/library.ts';

let fx: Fixture;
beforeEach(async () => {
  fx = await makeFixture();
});
afterEach(() => fx.cleanup());

const kw = async (store: SqliteIndex, q: string) =>
  (await keywordHits(store, { tokens: queryTerms(classicsProfile.analyzer!, q), k: 10 })).map((h) => `${h.source}:${h.id}`);

describe('keyword index (FTS5)', () => {
  it('finds two-character CJK terms and ranks by BM25', async () => {
    const store = new SqliteIndex(fx.db);
    expect((await kw(store, '甲木'))[0]).toMatch(/^classics:(qiongtong|ditian)/);
    expect(await kw(store, '用神')).toEqual(['classics:qiongtong/jiamu.md#0']);
    expect((await kw(store, '伤官配印')).slice(0, 2).sort()).toEqual(['classics:sanming/juan1.md#0', 'classics:ziping/shishen.md#0']);
    expect(await kw(store, 'jitter')).toEqual(['bookmarks:202401/2024-01-18-retries.md#0']);
    await store.close();
  });

  it('normalises both sides: variants, traditional characters and month names meet', async () => {
    const store = new SqliteIndex(fx.db);
    expect(await kw(store, '羊刃')).toEqual(['classics:qiongtong/jiamu.md#1']); // indexed as 阳刃
    expect(await kw(store, '傷官配印')).toContain('classics:ziping/shishen.md#0'); // traditional query
    expect(await kw(store, '寅月甲木')).toContain('classics:qiongtong/jiamu.md#0'); // text says 正月甲木
    await store.close();
  });

  it('follows chunk writes, replacements and deletions in the same transaction', async () => {
    const store = new SqliteIndex(fx.db);
    const doc = { path: 'x.md', chunks: [['h', '天乙贵人在此'] as [string, string]] };
    await store.writeDocuments('classics', [record(doc, classicsProfile.analyzer)]);
    expect(await kw(store, '天乙')).toContain('classics:x.md#0');
    await store.writeDocuments('classics', [record({ path: 'x.md', chunks: [['h', '驿马逢冲']] }, classicsProfile.analyzer)]);
    expect(await kw(store, '天乙')).not.toContain('classics:x.md#0');
    expect(await kw(store, '驿马')).toEqual(['classics:x.md#0']);
    await store.writeDocuments('classics', [], ['x.md']);
    expect(await kw(store, '驿马')).toEqual([]);
    const fts = store.db.prepare('SELECT count(*) FROM chunks_fts').pluck().get();
    const chunks = store.db.prepare('SELECT count(*) FROM chunks').pluck().get();
    expect(fts).toBe(chunks);
    await store.close();
  });

  it('backfills an index made before migration 002 when a writer opens it; a reader refuses it untouched', async () => {
    const raw = new BetterSqlite3(fx.db);
    raw.exec(`DROP TRIGGER chunks_fts_delete; DROP TABLE chunks_fts; DROP TABLE meta;
              DELETE FROM schema_migrations WHERE version IN (2, 8);`);
    raw.close();
    // Readers never change a schema: they say what to do instead.
    expect(() => new SqliteIndex(fx.db, 'read')).toThrow(/run "ragsync index" once to upgrade it/);
    await new SqliteIndex(fx.db).close();
    const reader = new SqliteIndex(fx.db, 'read');
    expect(await kw(reader, '用神')).toEqual(['classics:qiongtong/jiamu.md#0']);
    await reader.close();
  });
});

describe('generation counter and the in-memory vector index', () => {
  it('reloads only after a commit that changes chunks or vectors', async () => {
    const cfg = loadConfig(fx.configFile);
    const searcher = openSearcher(cfg);
    await searcher.search('甲木', { mode: 'vector' });
    await searcher.search('伤官', { mode: 'vector' });
    expect(vectorSourceOf<VectorIndex>(searcher).loads).toBe(1);
    expect(vectorSourceOf<VectorIndex>(searcher).simd).toBe(true); // 256 dims: the WASM kernel serves it
    const writer = new SqliteIndex(fx.db);
    const g0 = await writer.generation();
    await writeFixture(writer, 'classics', [{ path: 'new.md', chunks: [['新', '魁罡日主，性刚果断']] }]);
    expect(await writer.generation()).toBeGreaterThan(g0);
    await writer.close();
    const hits = await searcher.search('魁罡', { mode: 'vector', k: 1 });
    expect(hits[0]!.path).toBe('new.md');
    expect(vectorSourceOf<VectorIndex>(searcher).loads).toBe(2);
    await searcher.close();
  });

  it('falls back to the JS loop when dims is not a multiple of 16', async () => {
    const odd = await makeFixture(24);
    try {
      const searcher = openSearcher(loadConfig(odd.configFile));
      const hits = await searcher.search('甲木参天', { mode: 'vector', k: 3, dedupe: false, sources: ['classics'] });
      expect(vectorSourceOf<VectorIndex>(searcher).simd).toBe(false);
      // Same top 3 as SQLite's exact cosine scan.
      const [q] = await searcher.embedder.embed(['甲木参天']);
      const db = new BetterSqlite3(odd.db, { readonly: true });
      sqliteVec.load(db);
      const scan = db
        .prepare(
          `SELECT c.key FROM vectors v JOIN chunks c ON c.text_hash = v.text_hash JOIN documents d ON d.id = c.document_id
           JOIN sources s ON s.id = d.source_id WHERE v.fingerprint = ? AND s.name = 'classics'
           ORDER BY vec_distance_cosine(v.embedding, ?), c.id LIMIT 3`,
        )
        .pluck()
        .all(searcher.embedder.info.fingerprint, encodeVector(q!));
      db.close();
      expect(hits.map((h) => h.id)).toEqual(scan);
      await searcher.close();
    } finally {
      odd.cleanup();
    }
  });

  it('never returns vectors, and loads one Float32Array of rows × dims', async () => {
    const store = new SqliteIndex(fx.db);
    const set = await store.reader.vectors.loadVectors(new HashEmbedder(256).info.fingerprint);
    expect(set.vectors.length).toBe(set.refs.length * 256);
    expect(set.refs.length).toBe(11);
    const [hit] = await store.getChunks([set.refs[0]!]);
    expect(Object.values(hit!).some((v) => v instanceof Float32Array || Buffer.isBuffer(v))).toBe(false);
    await store.close();
  });
});

describe('Searcher', () => {
  let s: Searcher;
  beforeEach(() => {
    s = openSearcher(loadConfig(fx.configFile));
  });
  afterEach(async () => s.close());

  it('hybrid finds agent terms; book/chapter come from chunk metadata', async () => {
    const [top] = await s.search('甲木寅月用神', { k: 3 });
    expect(top).toMatchObject({ source: 'classics', path: 'qiongtong/jiamu.md', fields: { book: '穷通宝鉴', chapter: '论甲木·正月' } });
  });

  it('collapses reprinted passages and explains component ranks', async () => {
    const r = await s.search('伤官配印', { k: 5, explain: true });
    expect(r.filter((x) => x.content.startsWith('伤官虽非吉神')).length).toBe(1);
    expect(r[0]!.explain).toMatchObject({ mode: 'hybrid', duplicates: 1 });
    expect(r[0]!.explain!.vector!.rank).toBeGreaterThan(0);
    expect(r[0]!.explain!.keyword!.rank).toBeGreaterThan(0);
    const all = await s.search('伤官配印', { k: 5, dedupe: false });
    expect(all.filter((x) => x.content.startsWith('伤官虽非吉神')).map((x) => x.path).sort()).toEqual([
      'sanming/juan1.md',
      'ziping/shishen.md',
    ]);
  });

  it('filters by book, tag, month, date range, path glob; drops broken chunks unless asked', async () => {
    const book = await s.search('甲木', { filters: { book: 'ditian' } });
    expect(new Set(book.map((x) => x.path))).toEqual(new Set(['ditian/tongshen.md']));
    const tagged = await s.search('SQLite', { filters: { tag: ['Database'] } });
    expect(tagged.map((x) => x.path).sort()).toEqual(['202401/2024-01-05-sqlite.md', '202403/2024-03-02-postgres.md']);
    expect(tagged[0]).toMatchObject({ fields: { url: expect.stringMatching(/^https:/), date: expect.any(String) } });
    const broken = await s.search('SQLite', { filters: { tag: ['database'] }, includeBroken: true });
    expect(broken.map((x) => x.path)).toContain('202403/2024-03-09-broken.md');
    const month = await s.search('SQLite', { filters: { month: '2024-03' }, mode: 'keyword' });
    expect(month.map((x) => x.path)).toEqual(['202403/2024-03-02-postgres.md']);
    const range = await s.search('SQLite jitter', { filters: { since: '2024-01-10', until: '2024-02-01' } });
    expect(range.map((x) => x.path)).toEqual(['202401/2024-01-18-retries.md']);
    const glob = await s.search('甲木', { path: 'qiongtong/**' });
    expect(new Set(glob.map((x) => x.path))).toEqual(new Set(['qiongtong/jiamu.md']));
    const src = await s.search('SQLite', { sources: ['classics'], mode: 'keyword' });
    expect(src).toEqual([]);
  });

  it('rejects bad options with a usage error naming the value', async () => {
    await expect(s.search('x', { filters: { book: 'No pe!' } })).rejects.toThrow(/book must be one of .*qiongtong.*"No pe!"/);
    await expect(s.search('x', { filters: { book: 'shenfeng' } })).resolves.toEqual([]);
    await expect(s.search('x', { filters: { month: '2024-13' } })).rejects.toThrow(/month/);
    await expect(s.search('x', { filters: { colour: 'red' } })).rejects.toThrow(/unknown filter "colour" \(known: .*book.*tag/);
    await expect(s.search('x', { k: 0 })).rejects.toThrow(/^k: .*0/);
    await expect(s.search('x', { filters: { tag: Array.from({ length: 1000 }, (_, i) => `t${i}`) } })).rejects.toThrow(/at most 64/);
    await expect(s.search('x', { sources: ['nope'] })).rejects.toThrow(/unknown source "nope"/);
    await expect(s.search('  ')).rejects.toThrow(/empty query/);
  });

  it('temporal decay favours recent bookmarks and reports the factor', async () => {
    const plain = await s.search('SQLite small services', { sources: ['bookmarks'], k: 2 });
    expect(plain[0]!.path).toBe('202401/2024-01-05-sqlite.md');
    const decayed = await s.search('SQLite small services', { sources: ['bookmarks'], k: 2, halfLifeDays: 7, explain: true });
    expect(decayed[0]!.path).toBe('202403/2024-03-02-postgres.md'); // 8 weeks newer
    expect(decayed[0]!.explain!.decay).toBeGreaterThan(0);
    expect(decayed[0]!.explain!.decay).toBeLessThan(1);
  });

  it("RRF weights: a zero keyword weight gives the vector order (expansion off: it may embed the query with its expansions)", async () => {
    const v = (await s.search('甲木用神', { mode: 'vector', k: 5 })).map((x) => x.id);
    const h = (await s.search('甲木用神', { k: 5, weights: { vector: 1, keyword: 0 }, expand: false })).map((x) => x.id);
    expect(h).toEqual(v);
  });

  it('minScore drops weak results; modes use their own scores', async () => {
    const v = await s.search('甲木参天', { mode: 'vector', k: 20 });
    expect(v[0]!.score).toBeLessThanOrEqual(1);
    const strong = await s.search('甲木参天', { mode: 'vector', k: 20, minScore: 0.5 });
    expect(strong.length).toBeLessThan(v.length);
    expect(strong.every((x) => x.score >= 0.5)).toBe(true);
  });

  it('related: similar documents, itself excluded, one result per document', async () => {
    const r = await s.related({ source: 'bookmarks', path: '202401/2024-01-05-sqlite.md' }, { k: 3 });
    expect(r.map((x) => x.path)).not.toContain('202401/2024-01-05-sqlite.md');
    expect(new Set(r.map((x) => `${x.source}:${x.path}`)).size).toBe(r.length);
    expect(r[0]!.path).toBe('202403/2024-03-02-postgres.md');
    const byId = await s.related({ id: '202401/2024-01-05-sqlite.md#0' }, { k: 3, sources: ['bookmarks'] });
    expect(byId[0]!.path).toBe('202403/2024-03-02-postgres.md');
    await expect(s.related({ source: 'bookmarks', path: 'nope.md' })).rejects.toThrow(/not in the index/);
    const byString = await s.related('202401/2024-01-05-sqlite.md', { k: 1 });
    expect(byString[0]!.path).toBe('202403/2024-03-02-postgres.md');
    expect((await s.related('qiongtong/jiamu.md#1', { k: 1 }))[0]!.path).not.toBe('qiongtong/jiamu.md');
  });
});

describe('chunk facts: a one-shot reader looks up what a long-lived one caches', () => {
  it('the same filter answers, keyword hits and rescoring scores for every chunk', async () => {
    const warm = new SqliteIndex(fx.db, 'read');
    const cold = new SqliteIndex(fx.db, 'read', true);
    const ids = warm.db.prepare('SELECT id FROM chunks ORDER BY id').pluck().all() as number[];
    expect(ids.length).toBeGreaterThan(10);
    const probe = [...ids, Math.max(...ids) + 1, 0, -1];
    const filters = [undefined, { sources: ['classics'] }, { sources: ['bookmarks'] }, { sources: ['bookmarks'], includeBroken: true }, { sources: ['nope'] }];
    let brokenSeen = false;
    for (const f of filters) {
      const [w, c] = [(await warm.reader.refFilter(f))!, (await cold.reader.refFilter(f))!];
      const passW = probe.map(w);
      expect(probe.map(c)).toEqual(passW);
      expect(await cold.filterRefs(probe, f)).toEqual(await warm.filterRefs(probe, f));
      if (f?.includeBroken) brokenSeen = passW.filter(Boolean).length > (await warm.filterRefs(probe, { sources: ['bookmarks'] })).length;
      for (const q of ['SQLite', '甲木', '伤官配印']) {
        const query = { tokens: queryTerms(classicsProfile.analyzer!, q), k: 5, filter: f };
        expect(await cold.keyword(query)).toEqual(await warm.keyword(query));
      }
    }
    expect(brokenSeen).toBe(true); // the fixture's broken bookmark is dropped unless asked for
    const fp = new HashEmbedder(256).info.fingerprint;
    const [q] = await new HashEmbedder(256).embed(['甲木 SQLite']);
    expect(await cold.reader.vectors.vectorScores(fp, ids, q!)).toEqual(await warm.reader.vectors.vectorScores(fp, ids, q!));
    await warm.close();
    await cold.close();
  });
});

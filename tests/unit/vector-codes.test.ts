import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { encodeInt8, normalizeRows } from '../../src/core/quantize.ts';
import { HashEmbedder } from '../../src/embedding/hash.ts';
import { Searcher, type SearchMode } from '../../src/search/search.ts';
import { VectorIndex } from '../../src/storage/ranking/vector-index.ts';
import type { VectorScan } from '../../src/storage/ranking/vector-scan.ts';
import { decodeVector } from '../../src/storage/sqlite/blob.ts';
import { SqliteIndex } from '../../src/storage/sqlite/index.ts';
import { vectorSourceOf } from '../helpers/vector-source.ts';
import { refreshCodePack } from '../../src/storage/sqlite/code-packs.ts';
import { loadConfig } from '../../src/builtin.ts';
import { makeFixture, record, writeFixture, type Fixture } from '../helpers/search-fixture.ts';
import { openSearcher } from '../../src/engine/library.ts';

let fx: Fixture;
beforeEach(async () => {
  fx = await makeFixture();
});
afterEach(() => fx.cleanup());

const FP = new HashEmbedder(256).info.fingerprint;

/** Every stored code checked against the float32 row it was made from. */
function expectCodesMatchVectors(db: BetterSqlite3.Database): number {
  const rows = db
    .prepare('SELECT v.embedding, q.scale, q.residual, q.code FROM vectors v LEFT JOIN vector_codes q USING (fingerprint, text_hash)')
    .raw()
    .all() as [Buffer, number | null, number | null, Buffer | null][];
  for (const [blob, scale, residual, code] of rows) {
    const v = decodeVector(blob);
    normalizeRows(v, v.length);
    const out = new Int8Array(v.length);
    const want = encodeInt8(v, out);
    expect({ scale, residual }).toEqual(want);
    expect(new Int8Array(code!.buffer, code!.byteOffset, code!.byteLength)).toEqual(out);
  }
  return rows.length;
}

const queries = ['甲木寅月用神', '伤官配印', 'SQLite small services', 'jitter backoff'];

/** The index loaded from the stored codes holds the same state and answers as one quantising the float32 rows. */
async function expectCodesLoadAsQuantising(store: SqliteIndex): Promise<void> {
  const fromCodes = new VectorIndex(store.reader.vectors, FP);
  // The same store without its codes: the index quantises the float32 rows itself.
  const noCodes = new VectorIndex(
    {
      loadVectors: (f) => store.reader.vectors.loadVectors(f),
      scanVectors: (f, sink) => store.reader.vectors.scanVectors(f, sink),
      vectorsOf: (f, refs) => store.vectorsOf(f, refs),
      vectorScores: (f, refs, q) => store.reader.vectors.vectorScores(f, refs, q),
      generation: () => store.generation(),
    },
    FP,
  );
  const embedder = new HashEmbedder(256);
  for (const q of queries) {
    const [v] = await embedder.embed([q]);
    expect(await fromCodes.search(v!, 5)).toEqual(await noCodes.search(v!, 5));
  }
  type State = { refs: Int32Array; scales: Float32Array; residuals: Float32Array; dims: number; kernel: { vectors: Int8Array } };
  const [a, b] = [fromCodes, noCodes].map((i) => (i as unknown as { state: State }).state);
  expect(a!.refs).toEqual(b!.refs);
  expect(a!.scales).toEqual(b!.scales);
  expect(a!.residuals).toEqual(b!.residuals);
  const n = a!.refs.length * a!.dims;
  expect(a!.kernel.vectors.subarray(0, n)).toEqual(b!.kernel.vectors.subarray(0, n));
}

describe('int8 codes stored beside the vectors (migration 010)', () => {
  it('are written with every vector, as the in-memory index quantises it, and leave with it', async () => {
    const store = new SqliteIndex(fx.db);
    expect(expectCodesMatchVectors(store.db)).toBe(11);
    await writeFixture(store, 'classics', [{ path: 'gone.md', chunks: [['h', '魁罡日主，性刚果断']] }]);
    expect(expectCodesMatchVectors(store.db)).toBe(12);
    await store.writeDocuments('classics', [], ['gone.md']);
    expect((await store.gc()).vectors).toBe(1);
    expect(store.db.prepare('SELECT count(*) FROM vector_codes').pluck().get()).toBe(11);
    await store.close();
  });

  it('load the in-memory index to the same state and answers as quantising the float32 rows', async () => {
    const store = new SqliteIndex(fx.db, 'read');
    await expectCodesLoadAsQuantising(store);
    await store.close();
  });

  it('load in chunk order whatever order the codes table holds its rows in', async () => {
    const raw = new BetterSqlite3(fx.db);
    // Rewritten in reverse: the load streams the table in storage order and must sort it.
    raw.exec('CREATE TEMP TABLE r AS SELECT * FROM vector_codes ORDER BY rowid DESC; DELETE FROM vector_codes; INSERT INTO vector_codes SELECT * FROM r;');
    const first = raw.prepare('SELECT text_hash FROM vector_codes ORDER BY rowid LIMIT 1').pluck().get();
    expect(first).toBe(raw.prepare('SELECT text_hash FROM vectors ORDER BY rowid DESC LIMIT 1').pluck().get());
    raw.close();
    const store = new SqliteIndex(fx.db, 'read');
    await expectCodesLoadAsQuantising(store);
    await store.close();
  });

  it('are backfilled when a writer opens an index made before them; readers refuse it until then', async () => {
    const raw = new BetterSqlite3(fx.db);
    raw.exec('DROP TRIGGER vector_codes_delete; DROP TRIGGER vector_codes_update; DROP TABLE vector_codes; DROP TABLE vectors_complete; DELETE FROM schema_migrations WHERE version IN (10, 15);');
    raw.close();
    expect(() => new SqliteIndex(fx.db, 'read')).toThrow(/run "ragsync index" once to upgrade it/);
    const writer = new SqliteIndex(fx.db);
    expect(expectCodesMatchVectors(writer.db)).toBe(11);
    await writer.close();
    // Codes deleted by hand, or a vector changed in place (its code goes with the update), mark the
    // loss (migration 015): the next writer fills them in and clears the mark.
    const lost = (db: BetterSqlite3.Database) => db.prepare("SELECT value FROM meta WHERE key = 'codes_missing'").pluck().get();
    const raw2 = new BetterSqlite3(fx.db);
    expect(lost(raw2)).toBeUndefined();
    raw2.exec('DELETE FROM vector_codes WHERE rowid IN (SELECT rowid FROM vector_codes LIMIT 4)');
    expect(lost(raw2)).toBe(1);
    raw2.close();
    const again = new SqliteIndex(fx.db);
    expect(expectCodesMatchVectors(again.db)).toBe(11);
    expect(lost(again.db)).toBeUndefined();
    await again.close();
    const raw3 = new BetterSqlite3(fx.db);
    raw3.prepare("UPDATE vectors SET created_at = 'edited' WHERE text_hash = (SELECT min(text_hash) FROM vectors)").run();
    expect(raw3.prepare('SELECT count(*) FROM vector_codes').pluck().get()).toBe(10);
    expect(lost(raw3)).toBe(1);
    raw3.close();
    const third = new SqliteIndex(fx.db);
    expect(expectCodesMatchVectors(third.db)).toBe(11);
    expect(lost(third.db)).toBeUndefined();
    // A vector deleted takes its code along and marks nothing.
    third.db.prepare('DELETE FROM vectors WHERE text_hash = (SELECT min(text_hash) FROM vectors)').run();
    expect(lost(third.db)).toBeUndefined();
    await third.close();
  });

  it('one-shot searches rank from the codes as the in-memory index does, and from the float32 rows when a code is missing', async () => {
    const config = loadConfig(fx.configFile);
    const warm = openSearcher(config);
    const modes: SearchMode[] = ['vector', 'hybrid'];
    const compare = async (exact: boolean) => {
      const cold = openSearcher(config, undefined, null, { oneShot: true });
      for (const q of queries) {
        for (const mode of modes) {
          const opts = { mode, k: 4, dedupe: false };
          const [c, w] = [await cold.search(q, opts), await warm.search(q, opts)];
          if (exact) expect(c).toEqual(w);
          // The float32 kernel's cosine may differ from the store's in the last float32 digit.
          else expect(c.map(({ score, ...r }) => ({ ...r, score: Math.round(score * 1e6) }))).toEqual(w.map(({ score, ...r }) => ({ ...r, score: Math.round(score * 1e6) })));
        }
      }
      const rescored = vectorSourceOf<VectorScan>(cold).rescored;
      await cold.close();
      return rescored;
    };
    expect(await compare(true)).toBeGreaterThan(0); // ranked from the codes, the best rescored
    // A vector changed in place by hand loses its code (trigger): the float32 rows are read instead.
    const raw = new BetterSqlite3(fx.db);
    raw.prepare("UPDATE vectors SET created_at = 'edited' WHERE text_hash = (SELECT min(text_hash) FROM vectors)").run();
    raw.close();
    expect(await compare(false)).toBe(0); // the float32 rows, scored exactly
    await warm.close();
  });

  it('are read from their packs (migrations 011, 014) while they are current, from the rows once the index moved past them', async () => {
    const config = loadConfig(fx.configFile);
    const store = new SqliteIndex(fx.db);
    const packed = () =>
      store.db.prepare('SELECT s.name AS source, p.generation, p.vectors, p.count FROM vector_code_packs p JOIN sources s ON s.id = p.source_id ORDER BY s.name').all();
    const perSource = () =>
      store.db
        .prepare('SELECT s.name AS source, count(*) AS count FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id GROUP BY s.name ORDER BY s.name')
        .all() as { source: string; count: number }[];
    expect(packed()).toEqual([]);
    expect(await store.writer.refreshCodePack(FP)).toBe(true);
    expect(await store.writer.refreshCodePack(FP)).toBe(false); // current: not written again
    // One pack per source, all of the index's generation, holding every chunk of it.
    const generation = await store.generation();
    expect(perSource().length).toBeGreaterThan(1);
    expect(packed()).toEqual(perSource().map(({ source, count }) => ({ source, generation, vectors: 11, count })));

    /** What a one-shot scan hands the ranker: (ref, scale, residual, code) per row, in ref order. */
    const scanned = async (sources?: string[]) => {
      const reader = new SqliteIndex(fx.db, 'read');
      const rows: [number, number, number, number[]][] = [];
      const row = (ref: number, scale: number, residual: number, code: Int8Array) => rows.push([ref, scale, residual, [...code]]);
      let packs = false; // whether the rows came in segments (packs) or one by one (code rows)
      const done = await reader.reader.vectors.streamCodes(FP, {
        start: () => {},
        row: (_i, ref, scale, residual, code) => row(ref, scale, residual, code),
        rows: (_first, refs, scales, residuals, codes) => {
          packs = true;
          const dims = codes.length / refs.length;
          refs.forEach((ref, j) => row(ref, scales[j]!, residuals[j]!, codes.subarray(j * dims, (j + 1) * dims)));
        },
      }, sources);
      await reader.close();
      return { done, packs, rows: rows.sort((x, y) => x[0] - y[0]) };
    };
    const fromPack = await scanned();
    expect(fromPack.packs).toBe(true);
    // The same rows as the per-chunk code rows give.
    store.db.prepare('DELETE FROM vector_code_packs').run();
    const fromRows = await scanned();
    expect(fromPack.rows).toEqual(fromRows.rows);
    expect(fromPack.done).toEqual({ ...fromRows.done, count: 11 });
    // In segments of two rows: the same rows, read a segment at a time.
    expect(await refreshCodePack(store.connection, FP, 2 * 256)).toBe(true);
    const segments = store.db.prepare('SELECT source_id, segment, count FROM vector_code_packs ORDER BY source_id, segment').raw().all() as number[][];
    expect(segments.length).toBe(perSource().reduce((n, s) => n + Math.ceil(s.count / 2), 0));
    expect(segments.every(([, segment, count], i) => count! <= 2 && (segment === 0 || segments[i - 1]![1] === segment! - 1))).toBe(true);
    const fromSegments = await scanned();
    expect(fromSegments.rows).toEqual(fromRows.rows);
    expect(fromSegments.done).toEqual(fromPack.done);
    // A segment whose BLOBs do not match its count is not trusted: the rows are read.
    store.db.prepare('UPDATE vector_code_packs SET codes = substr(codes, 2) WHERE segment = 1').run();
    expect((await scanned()).rows).toEqual(fromRows.rows);
    store.db.prepare('DELETE FROM vector_code_packs').run();

    // Scoped to a source: that source's pack only (the rows, unscoped, stream every source's).
    expect(await store.writer.refreshCodePack(FP)).toBe(true);
    const [first] = perSource();
    const ofFirst = new Set(
      store.db
        .prepare('SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id WHERE s.name = ?')
        .pluck()
        .all(first!.source) as number[],
    );
    const scoped = await scanned([first!.source]);
    expect(scoped.rows).toEqual(fromRows.rows.filter((r) => ofFirst.has(r[0])));
    expect(scoped.done!.count).toBe(first!.count);
    store.db.prepare('DELETE FROM vector_code_packs').run();
    expect((await scanned([first!.source])).rows).toEqual(fromRows.rows);

    // A stale pack (the index moved: a new chunk and vector) is not read; the rows are.
    expect(await store.writer.refreshCodePack(FP)).toBe(true);
    await writeFixture(store, 'classics', [{ path: 'new.md', chunks: [['h', '魁罡日主，性刚果断']] }]);
    const afterWrite = await scanned();
    expect(afterWrite.packs).toBe(false);
    expect(afterWrite.rows).toHaveLength(12);
    // gc deletes a vector no chunk uses without moving the generation: the packs, which hold the
    // chunks' codes only, stay current (a search does not count the vectors to find out) and are
    // read; the next index run rewrites them for the new vector count.
    expect(await store.writer.refreshCodePack(FP)).toBe(true);
    await store.writeDocuments('classics', [], ['new.md']);
    expect(await store.writer.refreshCodePack(FP)).toBe(true);
    expect((await store.gc()).vectors).toBe(1);
    const afterGc = await scanned();
    expect(afterGc.packs).toBe(true);
    expect(afterGc.rows).toEqual(fromRows.rows);

    // Searches answer the same from the pack as the long-lived in-memory index.
    expect(await store.writer.refreshCodePack(FP)).toBe(true);
    const warm = openSearcher(config);
    const cold = openSearcher(config, undefined, null, { oneShot: true });
    for (const q of queries) {
      for (const mode of ['vector', 'hybrid'] as SearchMode[]) {
        expect(await cold.search(q, { mode, k: 4 })).toEqual(await warm.search(q, { mode, k: 4 }));
        for (const { source } of perSource()) {
          expect(await cold.search(q, { mode, k: 4, sources: [source] })).toEqual(await warm.search(q, { mode, k: 4, sources: [source] }));
        }
      }
    }
    await Promise.all([warm.close(), cold.close(), store.close()]);
  });
});

describe('packed codes by dimension (migration 021)', () => {
  /** What a one-shot scan hands over asking for `only`: (ref, scale, residual, codes at `only`) per row, and how. */
  const scanned = async (only: number[], sources?: string[], ask = true) => {
    const reader = new SqliteIndex(fx.db, 'read');
    const rows: [number, number, number, number[]][] = [];
    let by = '';
    await reader.reader.vectors.streamCodes(
      FP,
      {
        only: ask ? only : undefined,
        start: () => {},
        row: (_i, ref, scale, residual, code) => ((by = 'row'), rows.push([ref, scale, residual, only.map((d) => code[d]!)])),
        rows: (_first, refs, scales, residuals, codes) => {
          by = 'rows';
          const dims = codes.length / refs.length;
          refs.forEach((ref, j) => rows.push([ref, scales[j]!, residuals[j]!, only.map((d) => codes[j * dims + d]!)]));
        },
        columns: (_first, refs, scales, residuals, columns) => {
          by = 'columns';
          refs.forEach((ref, j) => rows.push([ref, scales[j]!, residuals[j]!, columns.map((c) => c[j]!)]));
        },
      },
      sources,
    );
    await reader.close();
    return { by, rows: rows.sort((x, y) => x[0] - y[0]) };
  };
  const only = [0, 7, 100, 255];

  it('are written for a sparse embedder and hand over only the dimensions asked for, the same codes as the rows', async () => {
    const store = new SqliteIndex(fx.db);
    const fromRows = await scanned(only);
    expect(fromRows.by).toBe('row');
    // Segments of three rows: every segment has a column per dimension, as long as its count.
    expect(await refreshCodePack(store.connection, FP, 3 * 256)).toBe(true);
    const segments = store.db.prepare('SELECT count(*), sum(columns) FROM vector_code_packs').raw().get() as number[];
    expect(segments[0]).toBeGreaterThan(2);
    expect(segments[1]).toBe(segments[0]);
    const columns = store.db
      .prepare('SELECT count(*), sum(length(q.codes) = p.count) FROM vector_code_columns q JOIN vector_code_packs p USING (fingerprint, source_id, segment)')
      .raw()
      .get() as number[];
    expect(columns).toEqual([segments[0]! * 256, segments[0]! * 256]);
    const fromColumns = await scanned(only);
    expect(fromColumns).toEqual({ by: 'columns', rows: fromRows.rows });
    // Scoped to a source: its segments only.
    const [source] = store.db.prepare('SELECT name FROM sources ORDER BY name').pluck().all() as string[];
    const ofSource = new Set(
      store.db.prepare('SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id WHERE s.name = ?').pluck().all(source) as number[],
    );
    expect(await scanned(only, [source!])).toEqual({ by: 'columns', rows: fromRows.rows.filter((r) => ofSource.has(r[0])) });
    // Whole rows when no dimensions are named.
    expect(await scanned(only, undefined, false)).toEqual({ by: 'rows', rows: fromRows.rows });
    // A column lost: the scan fails rather than score from a wrong code.
    store.db.prepare('DELETE FROM vector_code_columns WHERE dim = 7 AND segment = 1').run();
    await expect(scanned(only)).rejects.toThrow(/vector_code_columns/);
    // gc keeping another fingerprint drops them with the packs.
    await store.gc({ keepOnly: 'other' });
    expect(store.db.prepare('SELECT count(*) FROM vector_code_columns').pluck().get()).toBe(0);
    await store.close();
  });

  it('are not written for a dense embedder (its queries need every dimension)', async () => {
    const store = new SqliteIndex(fx.db);
    // Codes with no zero byte, as a dense embedder's are.
    store.db.prepare("UPDATE vector_codes SET code = CAST(printf('%.256c', 'a') AS BLOB)").run();
    expect(await store.writer.refreshCodePack(FP)).toBe(true);
    expect(store.db.prepare('SELECT count(*), sum(columns) FROM vector_code_packs').raw().get()).toEqual([expect.any(Number), 0]);
    expect(store.db.prepare('SELECT count(*) FROM vector_code_columns').pluck().get()).toBe(0);
    const r = await scanned(only);
    expect(r.by).toBe('rows');
    expect(r.rows.every((row) => row[3].every((c) => c === 97))).toBe(true);
    await store.close();
  });
});

describe('the check for chunk texts without a vector', () => {
  it('is skipped while the generation and the vector count stay as it last found them complete, and runs again when either moves', async () => {
    const store = new SqliteIndex(fx.db);
    const checks = () => store.db.prepare('SELECT count(*) FROM vectors_complete').pluck().get();
    expect(await store.storedTextsMissingVectors('classics', FP)).toEqual([]);
    expect(checks()).toBe(1);
    // A vector removed by hand (no generation bump): the count moved, so the check runs and finds it.
    const [hash] = store.db.prepare("SELECT c.text_hash FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.path = 'ditian/tongshen.md'").pluck().all() as string[];
    store.db.prepare('DELETE FROM vectors WHERE text_hash = ?').run(hash);
    expect((await store.storedTextsMissingVectors('classics', FP)).map((r) => r.textHash)).toEqual([hash]);
    const [v] = await new HashEmbedder(256).embed(['x']);
    await store.putVectors(FP, [{ textHash: hash!, vector: v! }]);
    expect(await store.storedTextsMissingVectors('classics', FP)).toEqual([]);
    // A new chunk without a vector (the generation moves).
    await store.writeDocuments('classics', [record({ path: 'new.md', chunks: [['h', '魁罡日主']] })]);
    expect((await store.storedTextsMissingVectors('classics', FP)).map((r) => r.path)).toEqual(['new.md']);
    await store.close();
  });
});

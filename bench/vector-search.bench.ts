/**
 * Exact top-10 over N × 1024 synthetic unit vectors, three ways, same queries, same run:
 *   mem   — the in-memory Float32Array index, scalar JS loop (src/storage/ranking/vector-index.ts topK)
 *   wasm  — the same rows in wasm memory, WASM SIMD dot products (src/storage/ranking/simd-dots.ts), what
 *           VectorIndex uses when it can
 *   vec0  — sqlite-vec's vec0 virtual table KNN (distance_metric=cosine)
 *   scan  — vec_distance_cosine over a plain BLOB table (what searchVectors did before)
 *   int8  — VectorIndex as served: int8 rows in wasm memory (src/storage/ranking/simd-dots.ts int8 kernel),
 *           candidates rescored exactly in SQLite against the float32 BLOBs (the same code path,
 *           over a minimal store on the bench table)
 * Prints per-query medians and p90, ratios, top-10 overlap with mem (int8 before and after
 * rescoring), and the index's own memory. Not part of CI.
 *
 *   npx tsx bench/vector-search.bench.ts [N ...]      (default: 10000 100000 300000)
 */
import BetterSqlite3 from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quantizeRow, topK, topKOfScores, VectorIndex, type VectorStore } from '../src/storage/ranking/vector-index.ts';
import { createDotKernel, createInt8Kernel } from '../src/storage/ranking/simd-dots.ts';
import { encodeVector, decodeVector } from '../src/storage/sqlite/blob.ts';
import { xorshift } from '../tests/helpers/rng.ts';

const DIMS = 1024;
const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
const SIZES = sizes.length ? sizes : [10_000, 100_000, 300_000];

function fillUnit(out: Float32Array, rnd: () => number): void {
  for (let base = 0; base < out.length; base += DIMS) {
    let norm = 0;
    for (let j = 0; j < DIMS; j++) {
      const v = rnd() + rnd() + rnd() - 1.5;
      out[base + j] = v;
      norm += v * v;
    }
    const inv = 1 / Math.sqrt(norm);
    for (let j = 0; j < DIMS; j++) out[base + j]! *= inv;
  }
}

const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))]!;
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const int8Rows: string[] = [];

/** int8 top-10 before rescoring, from the same quantised rows (recall of the approximate scan). */
function approxTop10(k: { refs: Int32Array; scales: Float32Array; kernel: ReturnType<typeof createInt8Kernel> }, q: Float32Array): number[] {
  let qmax = 0;
  for (const x of q) qmax = Math.max(qmax, Math.abs(x));
  const qs = qmax / k.kernel!.queryMax;
  const dots = k.kernel!.dots(Int16Array.from(q, (x) => Math.round(x / qs)));
  const approx = Float32Array.from(dots, (d, row) => d * k.scales[row]!);
  return topKOfScores(approx, k.refs, 10).map((m) => m.ref);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const overlap = (a: number[], b: number[]) => a.filter((x) => b.includes(x)).length;

function time<T>(fn: () => T): [T, number] {
  const t = process.hrtime.bigint();
  const r = fn();
  return [r, Number(process.hrtime.bigint() - t) / 1e6];
}

const dir = mkdtempSync(join(tmpdir(), 'ragsync-vbench-'));
const rows: string[] = [];
try {
  for (const n of SIZES) {
    const rnd = xorshift(n);
    const vectors = new Float32Array(n * DIMS);
    fillUnit(vectors, rnd);
    const refs = Int32Array.from({ length: n }, (_, i) => i + 1);
    const queries = Array.from({ length: n >= 300_000 ? 20 : 40 }, () => {
      const q = new Float32Array(DIMS);
      fillUnit(q, rnd);
      return q;
    });

    const db = new BetterSqlite3(join(dir, `${n}.db`));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    sqliteVec.load(db);
    db.exec(`CREATE TABLE plain (id INTEGER PRIMARY KEY, embedding BLOB NOT NULL);
             CREATE VIRTUAL TABLE knn USING vec0(embedding float[${DIMS}] distance_metric=cosine);`);
    const insPlain = db.prepare('INSERT INTO plain (id, embedding) VALUES (?, ?)');
    const insVec = db.prepare('INSERT INTO knn (rowid, embedding) VALUES (?, ?)');
    const [, buildMs] = time(() =>
      db.transaction(() => {
        for (let i = 0; i < n; i++) {
          const blob = encodeVector(vectors.subarray(i * DIMS, (i + 1) * DIMS));
          insPlain.run(BigInt(i + 1), blob);
          insVec.run(BigInt(i + 1), blob);
        }
      })(),
    );

    // What VectorIndex pays once per generation: BLOB rows → one Float32Array.
    const [, loadMs] = time(() => {
      const all = new Float32Array(n * DIMS);
      let i = 0;
      for (const [, blob] of db.prepare('SELECT id, embedding FROM plain ORDER BY id').raw().iterate() as IterableIterator<
        [number, Buffer]
      >) {
        all.set(decodeVector(blob), i++ * DIMS);
      }
      return all;
    });

    const knn = db.prepare('SELECT rowid FROM knn WHERE embedding MATCH ? AND k = 10 ORDER BY distance').pluck();
    const scan = db
      .prepare('SELECT id FROM plain ORDER BY vec_distance_cosine(embedding, ?), id LIMIT 10')
      .pluck();
    const kernel = createDotKernel(n, DIMS)!;
    kernel.vectors.set(vectors);
    const kernel8 = { refs, scales: new Float32Array(n), kernel: createInt8Kernel(n, DIMS) };
    for (let i = 0; i < n; i++) {
      kernel8.scales[i] = quantizeRow(vectors.subarray(i * DIMS, (i + 1) * DIMS), kernel8.kernel!.vectors.subarray(i * DIMS, (i + 1) * DIMS));
    }
    // The served index over the same rows: a store reading the bench table the way the reader does.
    db.pragma('mmap_size = 4294967296');
    const scores = db.prepare(
      `SELECT p.id, 1 - vec_distance_cosine(p.embedding, ?) FROM json_each(?) j CROSS JOIN plain p ON p.id = j.value`,
    ).raw();
    const store: VectorStore = {
      generation: async () => 1,
      loadVectors: async () => ({ generation: 1, dims: DIMS, refs, vectors: Float32Array.from(vectors) }),
      scanVectors: async (_fp, sink) => {
        sink.start(n, DIMS);
        const row = new Float32Array(DIMS);
        let i = 0;
        for (const [id, blob] of db.prepare('SELECT id, embedding FROM plain ORDER BY id').raw().iterate() as IterableIterator<[number, Buffer]>) {
          new Uint8Array(row.buffer).set(blob);
          sink.row(i++, id, row);
        }
        return { generation: 1, dims: DIMS, count: i };
      },
      vectorScores: async (_fp, ids, q) => new Map(scores.all(encodeVector(q), JSON.stringify(ids)) as [number, number][]),
      vectorsOf: async () => new Map(),
    };
    const index = new VectorIndex(store, 'bench');
    const t0 = process.hrtime.bigint();
    await index.dims();
    const int8Load = Number(process.hrtime.bigint() - t0) / 1e6;
    const t = { mem: [] as number[], wasm: [] as number[], vec0: [] as number[], scan: [] as number[], int8: [] as number[] };
    let ovInt8 = 0;
    let ovApprox = 0;
    let exactTop = 0;
    let ovWasm = 0;
    let ovVec0 = 0;
    let ovScan = 0;
    // Warm-up: let V8 optimise topK and SQLite fill its page cache before timing.
    topK({ dims: DIMS, vectors, refs }, queries[0]!, 10);
    topKOfScores(kernel.dots(queries[0]!), refs, 10);
    knn.all(encodeVector(queries[0]!));
    for (const q of queries) {
      const [m, mMs] = time(() => topK({ dims: DIMS, vectors, refs }, q, 10).map((x) => x.ref));
      const [w, wMs] = time(() => topKOfScores(kernel.dots(q), refs, 10).map((x) => x.ref));
      const blob = encodeVector(q);
      const [v, vMs] = time(() => (knn.all(blob) as (number | bigint)[]).map(Number));
      const [s, sMs] = time(() => (scan.all(blob) as (number | bigint)[]).map(Number));
      const t1 = process.hrtime.bigint();
      const i8 = (await (await index.ranker(q))(10)).map((x) => x.ref);
      t.int8.push(Number(process.hrtime.bigint() - t1) / 1e6);
      ovInt8 += overlap(m, i8);
      if (i8.every((r, j) => r === m[j])) exactTop++;
      ovApprox += overlap(m, approxTop10(kernel8, q));
      t.mem.push(mMs);
      t.wasm.push(wMs);
      ovWasm += overlap(m, w);
      t.vec0.push(vMs);
      t.scan.push(sMs);
      ovVec0 += overlap(m, v);
      ovScan += overlap(m, s);
    }
    db.close();
    const mem = median(t.mem);
    const wasm = median(t.wasm);
    const vec0 = median(t.vec0);
    const i8 = median(t.int8);
    const q = queries.length;
    int8Rows.push(
      `| ${n.toLocaleString('en')} | ${q} | ${wasm.toFixed(2)} / ${p90(t.wasm).toFixed(2)} | ${i8.toFixed(2)} / ${p90(t.int8).toFixed(2)} | ` +
        `${(i8 / wasm).toFixed(2)}× | ${vec0.toFixed(1)} / ${p90(t.vec0).toFixed(1)} | ${mem.toFixed(1)} / ${p90(t.mem).toFixed(1)} | ` +
        `${((ovApprox / (10 * q)) * 100).toFixed(1)}% | ${((ovInt8 / (10 * q)) * 100).toFixed(1)}% | ${((exactTop / q) * 100).toFixed(1)}% | ` +
        `${(index.rescored / q).toFixed(0)} | ${mb(n * DIMS * 4)} | ${mb(n * DIMS + n * 12)} | ${(int8Load / 1000).toFixed(2)} s |`,
    );
    console.error(int8Rows[int8Rows.length - 1]);
    const sc = median(t.scan);
    const line =
      `| ${n.toLocaleString('en')} | ${queries.length} | ${mem.toFixed(1)} | ${wasm.toFixed(1)} | ${vec0.toFixed(1)} | ${sc.toFixed(1)} | ` +
      `${(mem / wasm).toFixed(1)}× | ${(vec0 / wasm).toFixed(1)}× | ${(sc / wasm).toFixed(1)}× | ` +
      `${((ovWasm / (10 * queries.length)) * 100).toFixed(0)}% | ${((ovVec0 / (10 * queries.length)) * 100).toFixed(0)}% | ` +
      `${((ovScan / (10 * queries.length)) * 100).toFixed(0)}% | ${(loadMs / 1000).toFixed(2)} s | ${(buildMs / 1000).toFixed(1)} s |`;
    rows.push(line);
    console.error(line);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`Node ${process.version}, ${DIMS} dims, exact top-10, median ms per query`);
console.log(
  '| vectors | queries | mem (JS) ms | wasm SIMD ms | vec0 ms | scan ms | JS/wasm | vec0/wasm | scan/wasm | wasm top-10 = JS | vec0 top-10 = JS | scan top-10 = JS | load to memory | build db |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
console.log('\nint8 + exact rescoring (VectorIndex as served) against float32 WASM, median / p90 ms per query, top-10');
console.log(
  '| vectors | queries | float32 wasm | int8 + rescore | int8/float32 | vec0 | JS loop | recall@10 before rescoring | recall@10 after | exact top-10 | rows rescored/query | float32 rows | int8 rows + scales | int8 load |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of int8Rows) console.log(r);

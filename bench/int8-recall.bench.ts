/**
 * int8 + exact rescoring against the exact float32 top-10 on a real index: per source, over the
 * eval queries plus queries cut from random chunks (their first 12 characters). Reports recall@10
 * of the int8 scan before rescoring, recall@10 and the share of queries whose top-10 (ids, in
 * order) equals float32's after rescoring, and the rows rescored per query.
 *
 *   npx tsx bench/int8-recall.bench.ts -c CONFIG [--extra 400]
 */
import { loadConfig } from '../src/builtin.ts';
import { readEvalFile } from '../src/search/eval.ts';
import { Searcher } from '../src/search/search.ts';
import { createInt8Kernel } from '../src/storage/ranking/simd-dots.ts';
import { normalizeRows, quantizeRow, topKOfScores, VectorIndex } from '../src/storage/ranking/vector-index.ts';
import type { SqliteIndex } from '../src/storage/sqlite/index.ts';
import { openSearcher } from '../src/engine/library.ts';

const args = process.argv.slice(2);
const config = loadConfig(args[args.indexOf('-c') + 1]!);
const extra = args.includes('--extra') ? Number(args[args.indexOf('--extra') + 1]) : 400;
const searcher = openSearcher(config);
const store = searcher.store as unknown as SqliteIndex;
const fp = searcher.embedder.info.fingerprint;

// The approximate scan alone, from the same quantisation the index uses.
const set = await store.reader.vectors.loadVectors(fp);
const { dims, refs } = set;
normalizeRows(set.vectors, dims);
const kernel = createInt8Kernel(refs.length, dims)!;
const scales = new Float32Array(refs.length);
for (let i = 0; i < refs.length; i++) {
  scales[i] = quantizeRow(set.vectors.subarray(i * dims, (i + 1) * dims), kernel.vectors.subarray(i * dims, (i + 1) * dims));
}
set.vectors = new Float32Array(0);
function approxTop(q: Float32Array, k: number, accept?: (ref: number) => boolean): number[] {
  const qn = Float32Array.from(q);
  normalizeRows(qn, dims);
  let qmax = 0;
  for (const x of qn) qmax = Math.max(qmax, Math.abs(x));
  const qs = qmax / kernel.queryMax || 1;
  const dots = kernel.dots(Int16Array.from(qn, (x) => Math.round(x / qs)));
  const approx = Float32Array.from(dots, (d, row) => d * scales[row]!);
  return topKOfScores(approx, refs, k, accept ? (row) => accept(refs[row]!) : undefined).map((m) => m.ref);
}

const evalQueries = ['eval/classics.jsonl', 'eval/bookmarks.jsonl', 'bench/eval/classics-search.jsonl', 'bench/eval/bookmarks-search.jsonl']
  .flatMap((f) => readEvalFile(f))
  .map((c) => c.query);
// Deterministic sample of chunk texts as further queries.
const sample: number[] = [];
for (let i = 0; sample.length < extra && i < refs.length; i += Math.max(1, Math.floor(refs.length / extra))) sample.push(refs[i]!);
const chunkQueries = (await store.getChunks(sample)).map((h) => Array.from(h.content.replace(/\s+/g, '')).slice(0, 12).join('')).filter(Boolean);
const queries = [...evalQueries, ...chunkQueries];
const vectors = await searcher.embedder.embed(queries, { purpose: 'query' });

const int8 = new VectorIndex(store.reader.vectors, fp);
const f32 = new VectorIndex(store.reader.vectors, fp, { quantize: false });
console.log(`${refs.length} vectors × ${dims}; ${queries.length} queries (${evalQueries.length} eval + ${chunkQueries.length} cut from chunks), k = 10`);
console.log('| source | recall@10 before rescoring | recall@10 after | top-10 identical (ids, order) | top-10 same set | rows rescored/query |');
console.log('|---|---|---|---|---|---|');
for (const source of ['classics', 'bookmarks', null]) {
  const accept = source ? (await store.reader.refFilter({ sources: [source], includeBroken: true }))! : undefined;
  let before = 0;
  let after = 0;
  let identical = 0;
  let sameSet = 0;
  int8.rescored = 0;
  for (const q of vectors) {
    const want = (await (await f32.ranker(q))(10, accept)).map((m) => m.ref);
    const got = (await (await int8.ranker(q))(10, accept)).map((m) => m.ref);
    const approx = approxTop(q, 10, accept);
    before += approx.filter((r) => want.includes(r)).length / want.length;
    after += got.filter((r) => want.includes(r)).length / want.length;
    if (got.every((r, i) => r === want[i]) && got.length === want.length) identical++;
    if (got.length === want.length && got.every((r) => want.includes(r))) sameSet++;
  }
  const n = vectors.length;
  const pct = (x: number) => `${((x / n) * 100).toFixed(2)}%`;
  console.log(
    `| ${source ?? 'both'} | ${pct(before)} | ${pct(after)} | ${pct(identical)} | ${pct(sameSet)} | ${(int8.rescored / n).toFixed(1)} |`,
  );
}
await searcher.close();

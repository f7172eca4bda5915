/**
 * `ragsync serve` memory at 10k / 100k / 300k chunks × 1024 dims (issue 14: "report RSS at 10k /
 * 100k / 300k vectors"), against the floor — the same server over an empty index — in the same run.
 *
 * For each size the bench writes a real index through the storage writer (the sync path's own
 * writes: sources, documents, chunks with their FTS rows, one float32 vector per chunk text,
 * generation bumps), from seeded synthetic text (Zipf-distributed pseudo-words over a 30k
 * vocabulary, 10 chunks a document, two sources) and seeded unit vectors. It then starts the
 * compiled `ragsync serve` on loopback, runs 200 searches one after another (vector / keyword /
 * hybrid in turn, every other one restricted to a source), and reads /proc/PID/status: VmRSS
 * (anonymous / file-backed) before the first search, after it (the index loaded) and after the
 * 200, and VmHWM (the peak). "index bytes" is what the in-memory vector index and the chunk facts
 * hold for that many rows (int8 wasm memory, per-row refs / scales / residuals, the per-query score
 * array, facts: ids, source, broken flag and text hash; the keyword merge's per-chunk accumulator). "BLOB stream residue" is what reading every
 * vector BLOB once (one Buffer a row, as the load does) leaves resident after a full GC in a bare
 * node process: memory the allocator keeps, not held by anything.
 *
 *   npm run build && npx tsx bench/serve-rss.bench.ts [--dir /tmp/ragsync-rss] [--keep] [--searches 200] [N ...]
 *
 * Default sizes 10000 100000 300000. With --keep the index files stay in --dir and a later run reuses
 * any that exist (300k takes minutes to write and 1.6 GB of disk). The floor's index is always rebuilt.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { parseConfig } from '../src/builtin.ts';
import { indexTerms, defaultAnalyzer } from '../src/core/text/analyzer.ts';
import { sha256 } from '../src/core/hash.ts';
import { estimateTokens } from '../src/core/text/tokens.ts';
import type { ChunkRecord, DocumentRecord } from '../src/core/types.ts';
import { HashEmbedder } from '../src/embedding/hash.ts';
import { openIndex } from '../src/storage/open.ts';
import { headText, pipelineFingerprint } from '../src/sync/plan.ts';
import { xorshift } from '../tests/helpers/rng.ts';
import { procMemory, startServeOn, takeFlag, takeOption } from './serve-process.ts';

const DIMS = 1024;
const CHUNKS_PER_DOC = 10;
const WORDS_PER_CHUNK = 90;
const SOURCES = ['alpha', 'beta'];

const args = process.argv.slice(2);
const opt = (name: string, def: string) => takeOption(args, name, def);
const dir = resolve(opt('--dir', '/tmp/ragsync-rss'));
const searches = Number(opt('--searches', '200'));
const keep = takeFlag(args, '--keep');
const sizes = args.map(Number).filter((n) => n > 0);
const SIZES = sizes.length ? sizes : [10_000, 100_000, 300_000];
const here = resolve(new URL('..', import.meta.url).pathname);
const bin = join(here, 'bin/ragsync.js');
if (!existsSync(join(here, 'dist'))) throw new Error('run `npm run build` first: the bench serves the compiled build');
mkdirSync(dir, { recursive: true });

// ---- synthetic text: pseudo-words from syllables, Zipf-distributed -------------------------------

const SYL = ['ka', 'lo', 'mi', 'ren', 'su', 'ta', 'vo', 'el', 'dri', 'an', 'por', 'ux', 'ne', 'shi', 'gal', 'teo', 'bri', 'mun', 'zo', 'qua'];
function vocabulary(size: number, rnd: () => number): string[] {
  const seen = new Set<string>();
  while (seen.size < size) {
    const n = 2 + Math.floor(rnd() * 3);
    let w = '';
    for (let i = 0; i < n; i++) w += SYL[Math.floor(rnd() * SYL.length)]!;
    seen.add(w);
  }
  return [...seen];
}
const VOCAB = vocabulary(30_000, xorshift(7));
const CUM = (() => {
  const c = new Float64Array(VOCAB.length);
  let s = 0;
  for (let r = 0; r < VOCAB.length; r++) c[r] = s += 1 / (r + 1) ** 1.05;
  for (let r = 0; r < c.length; r++) c[r]! /= s;
  return c;
})();
function word(rnd: () => number): string {
  const u = rnd();
  let lo = 0;
  let hi = CUM.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (CUM[mid]! < u) lo = mid + 1;
    else hi = mid;
  }
  return VOCAB[lo]!;
}
const words = (n: number, rnd: () => number) => Array.from({ length: n }, () => word(rnd)).join(' ');

function unitVector(rnd: () => number): Float32Array {
  const v = new Float32Array(DIMS);
  let norm = 0;
  for (let j = 0; j < DIMS; j++) {
    const x = rnd() + rnd() + rnd() - 1.5;
    v[j] = x;
    norm += x * x;
  }
  const inv = 1 / Math.sqrt(norm);
  for (let j = 0; j < DIMS; j++) v[j]! *= inv;
  return v;
}

// ---- the index ------------------------------------------------------------------------------

function configFor(db: string) {
  const src = join(dir, 'src');
  mkdirSync(src, { recursive: true });
  const raw = {
    db,
    embedder: { provider: 'hash', dims: DIMS },
    sources: SOURCES.map((name) => ({ name, kind: 'dir', path: src, include: ['**/*.md'] })),
  };
  const file = db.replace(/\.db$/, '.json');
  writeFileSync(file, JSON.stringify(raw, null, 2));
  return { file, config: parseConfig(raw, file) };
}

/** Writes `n` chunks (and as many vectors) the way a sync run does; returns seconds taken. */
async function build(db: string, n: number): Promise<number> {
  const t0 = performance.now();
  for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
  const { config } = configFor(db);
  const store = openIndex(config, 'sync');
  const embedder = new HashEmbedder(DIMS);
  const chunker = config.profiles.createChunker(config.sources[0]!.chunker, config.sources[0]!.chunking);
  // The source's profile's analyzer, as sync/run.ts pipelineOf picks it: search analyses queries with it.
  const analyzer = config.profiles.get(config.sources[0]!.profile).analyzer ?? defaultAnalyzer;
  const made = pipelineFingerprint({ chunker, analyzer });
  try {
    await store.registerEmbedder(embedder.info);
    for (const s of config.sources) await store.ensureSource({ name: s.name, kind: s.kind, url: null, branch: null });
    const rnd = xorshift(n + 1);
    const vrnd = xorshift(n + 2);
    const docsPerSource = Math.ceil(n / CHUNKS_PER_DOC / SOURCES.length);
    let written = 0;
    for (const source of SOURCES) {
      let batch: DocumentRecord[] = [];
      let vectors: { textHash: string; vector: Float32Array }[] = [];
      const flush = async () => {
        await store.writeDocuments(source, batch);
        await store.putVectors(embedder.info.fingerprint, vectors);
        batch = [];
        vectors = [];
      };
      for (let d = 0; d < docsPerSource && written < n; d++) {
        const title = `${source} ${d} ${words(4, rnd)}`;
        const chunks: ChunkRecord[] = [];
        for (let o = 0; o < CHUNKS_PER_DOC && written < n; o++, written++) {
          const heading = `${title} › ${words(3, rnd)}`;
          const content = words(WORDS_PER_CHUNK, rnd);
          const text = `${heading}\n\n${content}`;
          const textHash = sha256(text);
          const c = { heading, metadata: {} };
          chunks.push({
            ordinal: o,
            key: `${source}/${d}.md#${o}`,
            heading,
            content,
            text,
            textHash,
            tokens: estimateTokens(text),
            terms: indexTerms(analyzer, text),
            headTerms: indexTerms(analyzer, headText(c)),
            metadata: {},
          });
          vectors.push({ textHash, vector: unitVector(vrnd) });
        }
        const body = chunks.map((c) => c.content).join('\n\n');
        batch.push({ path: `${d}.md`, contentHash: sha256(body), stamp: `synthetic:${n}:${d}`, size: body.length, chunker: made, title, metadata: {}, chunks });
        if (batch.length >= 200) await flush();
      }
      if (batch.length) await flush();
      await store.setSourceCommit(source, null, new Date().toISOString());
    }
  } finally {
    await store.close();
  }
  return (performance.now() - t0) / 1000;
}

// ---- serving --------------------------------------------------------------------------------

const status = procMemory;
const fmt = (s: ReturnType<typeof status>) => `${s.rss.toFixed(0)} (${s.anon.toFixed(0)} / ${s.file.toFixed(0)})`;

const start = (config: string, port: number) => startServeOn([bin], config, port);

/** The bench's queries: 2–3 words of ranks 20–3,000 (they match hundreds to thousands of chunks at 100k). */
function queries(count: number): string[] {
  const rnd = xorshift(99);
  return Array.from({ length: count }, (_, i) => {
    const mode = ['vector', 'keyword', 'hybrid'][i % 3]!;
    const q = Array.from({ length: 2 + (i % 2) }, () => VOCAB[20 + Math.floor(rnd() * 2980)]!).join(' ');
    const source = i % 2 ? `&source=${SOURCES[(i >> 1) % 2]}` : '';
    return `/search?q=${encodeURIComponent(q)}&k=10&mode=${mode}${source}`;
  });
}

async function measure(config: string, port: number) {
  const child = await start(config, port);
  const pid = child.pid!;
  const base = `http://127.0.0.1:${port}`;
  try {
    await new Promise((r) => setTimeout(r, 500));
    const idle = status(pid);
    const paths = queries(searches);
    let t = performance.now();
    let res = await fetch(base + paths[0]!);
    if (res.status !== 200) throw new Error(`search: ${res.status} ${await res.text()}`);
    await res.text();
    const firstMs = performance.now() - t;
    const first = status(pid);
    const ms: number[] = [];
    let hits = 0;
    for (const p of paths.slice(1)) {
      t = performance.now();
      res = await fetch(base + p);
      const body = (await res.json()) as { results?: unknown[] };
      if (res.status !== 200) throw new Error(`search ${p}: ${res.status} ${JSON.stringify(body)}`);
      hits += body.results?.length ?? 0;
      ms.push(performance.now() - t);
    }
    ms.sort((a, b) => a - b);
    return { idle, first, after: status(pid), firstMs, median: ms[Math.floor(ms.length / 2)] ?? NaN, hits: hits / Math.max(1, ms.length) };
  } finally {
    child.kill();
    await new Promise((r) => child.once('exit', r));
  }
}

/** What the in-memory vector index and the chunk facts hold for n rows (see the header). */
function indexBytes(n: number): number {
  const PAGE = 65_536;
  const wasm = Math.ceil((Math.ceil((n * DIMS) / 16) * 16 + DIMS * 2 + n * 4) / PAGE) * PAGE;
  // + refs, scales, residuals; the per-query approximate scores; facts; the keyword merge's accumulator.
  return wasm + n * 12 + n * 4 + n * (4 + 2 + 1 + 32) + n * 8;
}

/**
 * What streaming every vector BLOB through better-sqlite3 (one Buffer a row, as the index load
 * does) leaves resident after a full GC, in a bare node process: anonymous MB before → after.
 */
async function blobResidue(db: string): Promise<string> {
  const code = `
    const Database = require(${JSON.stringify(join(here, 'node_modules/better-sqlite3'))});
    const anon = () => Number(/RssAnon:\\s+(\\d+)/.exec(require('fs').readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
    const db = new Database(${JSON.stringify(db)}, { readonly: true });
    db.pragma('cache_size = -1024');
    gc(); const before = anon();
    const row = new Uint8Array(${DIMS * 4});
    for (const [, blob] of db.prepare('SELECT rowid, embedding FROM vectors').raw().iterate()) row.set(blob);
    gc(); gc();
    console.log(before.toFixed(0) + ' → ' + anon().toFixed(0));`;
  const child = spawn(process.execPath, ['--expose-gc', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  await new Promise((r) => child.once('exit', r));
  return out.trim();
}

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
const dbBytes = (db: string) => [db, `${db}-wal`].reduce((s, f) => s + (existsSync(f) ? statSync(f).size : 0), 0);

const rows: string[] = [];
const nodeIdle = await (async () => {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 1e9)'], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 500));
  const s = status(child.pid!);
  child.kill();
  return s;
})();
for (const n of [0, ...SIZES]) {
  const db = join(dir, `rss-${n}.db`);
  let built = 'reused';
  if (n === 0 || !keep || !existsSync(db)) built = `${(await build(db, n)).toFixed(0)} s`;
  else configFor(db);
  const r = await measure(db.replace(/\.db$/, '.json'), 18_800);
  const residue = n ? await blobResidue(db) : '–';
  const line =
    `| ${n ? n.toLocaleString('en') : '0 (floor)'} | ${mb(dbBytes(db))} MB | ${n ? mb(indexBytes(n)) : 0} MB | ${fmt(r.idle)} | ${fmt(r.first)} | ` +
    `${fmt(r.after)} | ${r.after.hwm.toFixed(0)} | ${r.firstMs.toFixed(0)} | ${r.median.toFixed(1)} | ${r.hits.toFixed(1)} | ${residue} | ${built} |`;
  rows.push(line);
  console.error(line);
  if (!keep && n) for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
}
console.log(
  `serve (dist) over synthetic indexes, ${DIMS} dims, ${searches} searches one at a time (vector/keyword/hybrid in turn, half restricted to one of 2 sources); ` +
    `${availableParallelism()} cores (shared), load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}; node -e 0 idle: ${fmt(nodeIdle)} MB`,
);
console.log('RSS in MB as total (anonymous / file-backed); HWM = VmHWM, the peak RSS over the server\'s life');
console.log('| chunks = vectors | db file | index bytes | RSS idle | RSS after 1st search | RSS after all | HWM | 1st search ms | median ms | results / search | BLOB stream residue, anon MB | db written |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) console.log(r);

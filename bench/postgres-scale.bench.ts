/**
 * HNSW against exact search on Postgres at scale: ~200k vectors made from the bookmarks corpus,
 * varied copies of its paragraphs (bench/scale-corpus.ts varyText, so no text repeats), embedded
 * by the hash embedder and written straight through the writer role (documents of plain chunks
 * with no keyword terms, then the vectors: a full `index` of 200k chunks would spend most of its
 * time on keyword structures this bench does not read). Then the fingerprint's HNSW index is
 * built once (as the end of a first run builds it), and the bookmarks eval queries are ranked by
 * nearest(): exact (the baseline, same run) and HNSW at several ef_search values — recall@10
 * against exact and p50/p90 per query.
 *
 *   npx tsx bench/postgres-scale.bench.ts --pg postgres://… [--vectors 200000] [--dims 256]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { sha256 } from '../src/core/hash.ts';
import type { DocumentRecord } from '../src/core/types.ts';
import { HashEmbedder } from '../src/embedding/hash.ts';
import { readEvalFile } from '../src/search/eval.ts';
import { openIndex } from '../src/storage/open.ts';
import { acquireIndexLock } from '../src/sync/lock.ts';
import { varyText } from './scale-corpus.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
const opt = (name: string, def: string) => (args.includes(name) ? args[args.indexOf(name) + 1]! : def);
const pgBase = opt('--pg', process.env.RAGSYNC_BENCH_PG_URL ?? '');
if (!pgBase) throw new Error('pass --pg postgres://… (a server with pgvector)');
const target = Number(opt('--vectors', '200000'));
const dims = Number(opt('--dims', '256'));
const bundle = [join(root, '..', 'shared', 'corpora'), join(root, '..', '..', 'shared', 'corpora')]
  .map((d) => join(d, 'bookmarks.bundle'))
  .find((f) => {
    try {
      return statSync(f).isFile();
    } catch {
      return false;
    }
  })!;
const schema = `scale_${process.pid}`;
const url = `${pgBase}${pgBase.includes('?') ? '&' : '?'}schema=${schema}`;
const secs = (t: number) => ((performance.now() - t) / 1000).toFixed(1);

const tip = mkdtempSync(join(tmpdir(), 'ragsync-pgscale-'));
try {
  execFileSync('git', ['clone', '--quiet', '--no-checkout', bundle, join(tip, '.clone')]);
  execFileSync('sh', ['-c', 'git -C "$0/.clone" archive HEAD | tar -x -C "$0" && rm -rf "$0/.clone"', tip]);
  const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]));
  const files = walk(tip)
    .map((p) => relative(tip, p))
    .filter((p) => /^\d{6}\//.test(p) && p.endsWith('.md') && !p.endsWith('monthly-index.md'))
    .sort();
  // Paragraphs of at least 80 characters: the passages, as a chunker of short notes would give them.
  const paragraphs = files.map((f) => ({ f, parts: readFileSync(join(tip, f), 'utf8').split(/\n\s*\n/).filter((p) => p.trim().length >= 80) }));
  const perCopy = paragraphs.reduce((n, p) => n + p.parts.length, 0);
  const copies = Math.ceil(target / perCopy);
  console.log(`bookmarks tip: ${files.length} files, ${perCopy} paragraphs; ${copies} varied copies → up to ${copies * perCopy} texts, ${dims}-dim hash vectors`);

  const store = openIndex({ db: url }, 'sync');
  const embedder = new HashEmbedder(dims, 512);
  const fp = embedder.info.fingerprint;
  const lock = await acquireIndexLock(store, url);
  let written = 0;
  let t = performance.now();
  let cpu = process.cpuUsage();
  try {
    await store.registerEmbedder(embedder.info);
    await store.ensureSource({ name: 'scaled', kind: 'dir', url: null, branch: null });
    const seen = new Set<string>();
    for (let k = 0; k < copies && written < target; k++) {
      const docs: DocumentRecord[] = [];
      for (const { f, parts } of paragraphs) {
        const texts = parts.map((p, i) => varyText(p, k, `${f}#${i}`)).filter((x) => !seen.has(x) && seen.add(x));
        if (!texts.length) continue;
        docs.push({
          path: `c${k}/${f}`,
          contentHash: sha256(texts.join('\n')),
          stamp: 'scale',
          size: texts.join('\n').length,
          chunker: 'scale@1',
          title: null,
          metadata: {},
          chunks: texts.map((text, ordinal) => ({ ordinal, key: `c${k}/${f}#${ordinal}`, heading: '', content: text, text, textHash: sha256(text), tokens: text.length >> 2, terms: '', headTerms: '', metadata: {} })),
        });
      }
      const texts = docs.flatMap((d) => d.chunks.map((c) => c.text)).slice(0, target - written);
      for (let i = 0; i < docs.length; i += 200) await store.writeDocuments('scaled', docs.slice(i, i + 200));
      for (let i = 0; i < texts.length; i += 2000) {
        const batch = texts.slice(i, i + 2000);
        const vs = await embedder.embed(batch);
        await store.putVectors(fp, batch.map((text, j) => ({ textHash: sha256(text), vector: vs[j]! })));
      }
      written += texts.length;
    }
    const used = process.cpuUsage(cpu);
    console.log(`wrote ${written} vectors (with their chunks) in ${secs(t)} s wall, ${((used.user + used.system) / 1e6).toFixed(1)} s CPU in this process`);
    t = performance.now();
    await store.refreshCodePack!(fp);
    console.log(`HNSW build (m 16, ef_construction 64, maintenance_work_mem 256MB): ${secs(t)} s wall`);
  } finally {
    await lock.release();
    await store.close();
  }

  const c = new pg.Client({ connectionString: pgBase });
  await c.connect();
  const sizes = (
    await c.query<{ name: string; bytes: string }>(
      `SELECT x.relname AS name, pg_relation_size(x.oid) AS bytes FROM pg_class x JOIN pg_namespace n ON n.oid = x.relnamespace
       WHERE n.nspname = $1 AND (x.relname LIKE 'vectors_hnsw_%' OR x.relname = 'vectors')`,
      [schema],
    )
  ).rows;
  await c.end();
  for (const s of sizes) console.log(`${s.name.startsWith('vectors_hnsw') ? 'HNSW index' : 'vectors table'}: ${(Number(s.bytes) / 2 ** 20).toFixed(1)} MiB`);

  const reader = openIndex({ db: url }, 'search');
  const queries = readEvalFile(join(root, 'eval', 'bookmarks.jsonl')).map((q) => q.query);
  const qv = await embedder.embed(queries);
  const pct = (xs: number[], p: number) => [...xs].sort((x, y) => x - y)[Math.floor((xs.length - 1) * p)]!.toFixed(1);
  await reader.nearest!({ fingerprint: fp, vector: qv[0]!, k: 10 }); // connect, warm the index pages
  const exact: number[][] = [];
  const tenth: number[] = [];
  const exactMs: number[] = [];
  for (const v of qv) {
    const s = performance.now();
    const hits = await reader.nearest!({ fingerprint: fp, vector: v, k: 10, exact: true });
    exactMs.push(performance.now() - s);
    exact.push(hits.map((h) => h.ref));
    tenth.push(hits.at(-1)!.score);
  }
  console.log(`exact (search.exact): p50 ${pct(exactMs, 0.5)} ms, p90 ${pct(exactMs, 0.9)} ms over ${qv.length} queries`);
  for (const ef of [10, 20, 40, 100, 200, 400]) {
    const ms: number[] = [];
    let found = 0;
    let near = 0;
    for (const [i, v] of qv.entries()) {
      const s = performance.now();
      const got = await reader.nearest!({ fingerprint: fp, vector: v, k: 10, efSearch: ef });
      ms.push(performance.now() - s);
      found += got.filter((h) => exact[i]!.includes(h.ref)).length;
      // Varied copies of one passage score alike: a hit as near as the exact 10th is as good an answer.
      near += got.filter((h) => h.score >= tenth[i]! - 1e-6).length;
    }
    console.log(
      `HNSW ef_search ${String(ef).padEnd(4)} recall@10 ${(found / (10 * qv.length)).toFixed(3)} (by distance ${(near / (10 * qv.length)).toFixed(3)})  p50 ${pct(ms, 0.5)} ms  p90 ${pct(ms, 0.9)} ms`,
    );
  }
  await reader.close();
} finally {
  rmSync(tip, { recursive: true, force: true });
  const c = new pg.Client({ connectionString: pgBase });
  await c.connect().then(() => c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)).finally(() => c.end()).catch(() => {});
}

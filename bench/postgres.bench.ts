/**
 * Both real corpora (classics + bookmarks bundles) on both storage backends in one run: SQLite
 * (the baseline, measured here) and Postgres + pgvector.
 *
 *   npx tsx bench/postgres.bench.ts [--pg postgres://…]   (default $RAGSYNC_BENCH_PG_URL, else a private
 *                                                          cluster like the tests': tests/helpers/pg-cluster.ts)
 *
 * Prints per backend: full index and no-op re-run (in process, hash embedder), search latency
 * p50/p90 per mode over the eval queries (a long-lived Searcher, queries interleaved between the
 * backends so both see the same machine load), the same as one-shot `ragsync search` processes, serve
 * under 20 clients (requests/s, p50/p90), eval hit@10/MRR@10 per backend; then, on Postgres,
 * the nearest() ranking in the server: HNSW at a few ef_search values against exact search over
 * the real vectors (recall@10 and p50), with the HNSW build time and size.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { loadConfig } from '../src/builtin.ts';
import { HashEmbedder } from '../src/embedding/hash.ts';
import { readEvalFile, runEval } from '../src/search/eval.ts';
import { MODES, Searcher } from '../src/search/search.ts';
import { openIndex } from '../src/storage/open.ts';

import { benchServer } from './pg-server.ts';
import { percentile, runLoad } from './http-load.ts';
import { startServeOn } from './serve-process.ts';
import { openSearcher, runIndex } from '../src/engine/library.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const corpora = [join(root, '..', 'shared', 'corpora'), join(root, '..', '..', 'shared', 'corpora')].find((d) => {
  try {
    execFileSync('test', ['-e', join(d, 'classics.bundle')]);
    return true;
  } catch {
    return false;
  }
})!;
const args = process.argv.slice(2);
const pgArg = args.indexOf('--pg') >= 0 ? args[args.indexOf('--pg') + 1] : process.env.RAGSYNC_BENCH_PG_URL;

const work = mkdtempSync(join(tmpdir(), 'ragsync-pgbench-'));
const cluster = await benchServer(pgArg);
const pgBase = cluster.url;
const schema = `bench_${process.pid}`;
const pgUrl = `${pgBase}${pgBase.includes('?') ? '&' : '?'}schema=${schema}`;

try {
  for (const name of ['classics', 'bookmarks']) execFileSync('git', ['clone', '--quiet', '--bare', join(corpora, `${name}.bundle`), join(work, `${name}.git`)]);
  const base = JSON.parse(execFileSync('cat', [join(root, 'config', 'ragsync.json')], { encoding: 'utf8' })) as { sources: { name: string }[] };
  const configs = Object.fromEntries(
    (
      [
        ['sqlite', 'bench.db'],
        ['postgres', pgUrl],
      ] as const
    ).map(([backend, db]) => {
      const file = join(work, `${backend}.json`);
      writeFileSync(file, JSON.stringify({ ...base, db, checkouts: `checkouts-${backend}`, sources: base.sources.map((s) => ({ ...s, url: `${s.name}.git` })) }));
      return [backend, loadConfig(file)];
    }),
  );
  const backends = ['sqlite', 'postgres'] as const;
  const line = (label: string, v: Record<string, number>, unit: string, digits = 0) =>
    console.log(
      `${label.padEnd(34)} ${backends.map((b) => `${b} ${v[b]!.toFixed(digits)} ${unit}`.padEnd(22)).join('')}ratio ${(v.postgres! / v.sqlite!).toFixed(2)}`,
    );

  const full: Record<string, number> = {};
  const noop: Record<string, number> = {};
  const chunks: Record<string, number> = {};
  for (const b of backends) {
    let t = performance.now();
    const r = await runIndex(configs[b]!);
    full[b] = (performance.now() - t) / 1000;
    chunks[b] = r.sources.reduce((n, s) => n + s.written.chunks, 0);
    if (r.status !== 'ok') throw new Error(`${b}: full index ${r.status}`);
    t = performance.now();
    const again = await runIndex(configs[b]!);
    noop[b] = performance.now() - t;
    if (again.textsEmbedded !== 0) throw new Error(`${b}: no-op re-run embedded ${again.textsEmbedded}`);
  }
  console.log(`both corpora: ${chunks.sqlite} chunks (sqlite), ${chunks.postgres} (postgres); hash embedder`);
  line('full index', full, 's', 1);
  line('no-op re-run', noop, 'ms');

  // Search latency: one long-lived Searcher per backend, interleaved query by query.
  const cases = ['classics', 'bookmarks'].flatMap((f) => readEvalFile(join(root, 'eval', `${f}.jsonl`)));
  const searchers = Object.fromEntries(backends.map((b) => [b, openSearcher(configs[b]!)]));
  for (const b of backends) await searchers[b]!.search(cases[0]!.query, { mode: 'hybrid' }); // cold load
  for (const mode of MODES) {
    const times: Record<string, number[]> = { sqlite: [], postgres: [] };
    for (const [i, c] of cases.entries()) {
      for (const b of i % 2 ? [...backends].reverse() : backends) {
        const t = performance.now();
        await searchers[b]!.search(c.query, { mode, k: 10 });
        times[b]!.push(performance.now() - t);
      }
    }
    const pct = (xs: number[], p: number) => [...xs].sort((x, y) => x - y)[Math.floor((xs.length - 1) * p)]!;
    line(`${mode} p50 (${cases.length} queries)`, { sqlite: pct(times.sqlite!, 0.5), postgres: pct(times.postgres!, 0.5) }, 'ms', 1);
    line(`${mode} p90`, { sqlite: pct(times.sqlite!, 0.9), postgres: pct(times.postgres!, 0.9) }, 'ms', 1);
  }
  const evals: Record<string, { hit10: number; mrr10: number }> = {};
  for (const b of backends) evals[b] = (await runEval(searchers[b]!, cases)).overall;
  line('eval hit@10 (hybrid)', { sqlite: evals.sqlite!.hit10, postgres: evals.postgres!.hit10 }, '', 3);
  line('eval MRR@10 (hybrid)', { sqlite: evals.sqlite!.mrr10, postgres: evals.postgres!.mrr10 }, '', 3);
  for (const b of backends) await searchers[b]!.close();

  // One-shot: a `ragsync search` process per query (what an agent's shell call pays), 12 queries per mode.
  const cli = [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(root, 'src', 'cli', 'run.ts')];
  for (const mode of MODES) {
    const times: Record<string, number[]> = { sqlite: [], postgres: [] };
    for (const [i, c] of cases.slice(0, 12).entries()) {
      for (const b of i % 2 ? [...backends].reverse() : backends) {
        const t = performance.now();
        execFileSync(process.execPath, [...cli, 'search', '-c', join(work, `${b}.json`), '--mode', mode, '-k', '10', '--json', c.query], { cwd: work, stdio: 'ignore' });
        times[b]!.push(performance.now() - t);
      }
    }
    const pct = (xs: number[], p: number) => [...xs].sort((x, y) => x - y)[Math.floor((xs.length - 1) * p)]!;
    line(`one-shot ${mode} p50 (12 processes)`, { sqlite: pct(times.sqlite!, 0.5), postgres: pct(times.postgres!, 0.5) }, 'ms', 0);
    line(`one-shot ${mode} p90`, { sqlite: pct(times.sqlite!, 0.9), postgres: pct(times.postgres!, 0.9) }, 'ms', 0);
  }

  // serve: 20 keep-alive clients for 20 s (5 s warm-up) over the eval queries, hybrid, one backend at a time.
  const paths = cases.map((c) => `/search?q=${encodeURIComponent(c.query)}&k=10`);
  const served: Record<string, { rps: number; p50: number; p90: number; errors: number }> = {};
  for (const [i, b] of backends.entries()) {
    const port = 18_400 + i + (process.pid % 500) * 2;
    const child = await startServeOn(['--import', pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href, join(root, 'src', 'cli', 'run.ts')], join(work, `${b}.json`), port, work);
    try {
      const r = await runLoad({ port, paths, clients: 20, seconds: 20, warmup: 5 });
      const sorted = [...r.latencies].sort((x, y) => x - y);
      served[b] = { rps: r.latencies.length / r.seconds, p50: percentile(sorted, 0.5), p90: percentile(sorted, 0.9), errors: r.errors };
    } finally {
      child.kill();
    }
  }
  line('serve, 20 clients: requests/s', { sqlite: served.sqlite!.rps, postgres: served.postgres!.rps }, '/s', 1);
  line('serve, 20 clients: p50', { sqlite: served.sqlite!.p50, postgres: served.postgres!.p50 }, 'ms', 1);
  line('serve, 20 clients: p90', { sqlite: served.sqlite!.p90, postgres: served.postgres!.p90 }, 'ms', 1);
  console.log(`serve errors: sqlite ${served.sqlite!.errors}, postgres ${served.postgres!.errors}`);

  // nearest() in the server over the real vectors: HNSW against exact.
  const store = openIndex({ db: pgUrl }, 'search');
  const fp = (await store.status()).coverage[0]!.fingerprint;
  const e = configs.postgres!.embedder;
  if (e.provider !== 'hash') throw new Error('the bench uses the hash embedder (config/ragsync.json)');
  const embedder = new HashEmbedder(e.dims, 256);
  const vectors = await embedder.embed(cases.map((c) => c.query));
  const c = new pg.Client({ connectionString: pgBase });
  await c.connect();
  const [size] = (await c.query(`SELECT pg_relation_size(i.indexrelid) AS bytes FROM pg_index i JOIN pg_class x ON x.oid = i.indexrelid
    JOIN pg_namespace n ON n.oid = x.relnamespace WHERE n.nspname = $1 AND x.relname LIKE 'vectors_hnsw_%'`, [schema])).rows as { bytes: string }[];
  await c.end();
  const exact: number[][] = [];
  const exactMs: number[] = [];
  for (const v of vectors) {
    const t = performance.now();
    exact.push((await store.nearest!({ fingerprint: fp, vector: v, k: 10, exact: true })).map((h) => h.ref));
    exactMs.push(performance.now() - t);
  }
  const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  console.log(`nearest exact: p50 ${med(exactMs).toFixed(1)} ms over ${vectors.length} queries; HNSW index ${(Number(size?.bytes ?? 0) / 2 ** 20).toFixed(1)} MiB`);
  for (const ef of [20, 40, 100, 200]) {
    const ms: number[] = [];
    let found = 0;
    for (const [i, v] of vectors.entries()) {
      const t = performance.now();
      const got = (await store.nearest!({ fingerprint: fp, vector: v, k: 10, efSearch: ef })).map((h) => h.ref);
      ms.push(performance.now() - t);
      found += got.filter((r) => exact[i]!.includes(r)).length;
    }
    console.log(`nearest HNSW ef_search ${String(ef).padEnd(4)} recall@10 ${(found / (10 * vectors.length)).toFixed(3)}  p50 ${med(ms).toFixed(1)} ms (exact ${med(exactMs).toFixed(1)} ms, ratio ${(med(ms) / med(exactMs)).toFixed(2)})`);
  }
  await store.close();
} finally {
  const c = new pg.Client({ connectionString: pgBase });
  await c.connect().then(() => c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)).finally(() => c.end()).catch(() => {});
  cluster.stop();
  rmSync(work, { recursive: true, force: true });
}

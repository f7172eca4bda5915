/**
 * HNSW against exact search on Postgres at scale: ≥ 200k vectors made from the bookmarks corpus,
 * varied copies of its paragraphs (bench/scale-corpus.ts varyText, so no text repeats; copies are
 * added until the target count of distinct texts is reached), embedded by the hash embedder at the
 * dims ragsync ships (1024) and written straight through the writer role (documents of plain
 * chunks with no keyword terms, then the vectors: a full `index` of 200k chunks would spend most of
 * its time on keyword structures this bench does not read). Then the fingerprint's HNSW index is
 * built by the writer's end-of-run refresh with the given build settings (config `hnsw`), and two
 * query sets are ranked by nearest(): the bookmarks eval queries (short) and passages (paragraphs
 * of the corpus varied as no copy in the set is) — exact (the baseline, same run) and HNSW at
 * several ef_search values: recall@10 against exact (a hit counts when it is one of the exact top 10
 * or as near as the exact 10th), p50/p90 wall per query, and the CPU per query of the server process
 * answering it (from /proc, so the cluster must run on this machine for that column; an exact
 * scan's parallel workers are not counted): what latency comes down to on a quiet machine.
 *
 *   npx tsx bench/postgres-scale.bench.ts --pg postgres://… [--vectors 200000] [--dims 1024]
 *       [--m M] [--ef-construction N] [--build-memory-mb MB] [--ef 40,100,200,400,800]
 *       [--schema NAME (kept)] [--phase all|write|build|query]
 *
 * With --schema the set is kept: `--phase build` rebuilds its HNSW index with other settings and
 * `--phase query` re-measures search alone on it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { sha256 } from '../src/core/hash.ts';
import type { DocumentRecord } from '../src/core/types.ts';
import { HashEmbedder } from '../src/embedding/hash.ts';
import { readEvalFile } from '../src/search/eval.ts';
import { openIndex } from '../src/storage/open.ts';
import type { PgDb } from '../src/storage/postgres/db.ts';
import { annIndexName } from '../src/storage/postgres/writer.ts';
import { acquireIndexLock } from '../src/sync/lock.ts';
import { varyText } from './scale-corpus.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
const opt = (name: string, def: string) => (args.includes(name) ? args[args.indexOf(name) + 1]! : def);
const pgBase = opt('--pg', process.env.RAGSYNC_BENCH_PG_URL ?? '');
if (!pgBase) throw new Error('pass --pg postgres://… (a server with pgvector)');
const target = Number(opt('--vectors', '200000'));
const dims = Number(opt('--dims', '1024'));
// Absent: the product's defaults (config `hnsw` left out).
const build = {
  ...(args.includes('--m') ? { m: Number(opt('--m', '')) } : {}),
  ...(args.includes('--ef-construction') ? { efConstruction: Number(opt('--ef-construction', '')) } : {}),
  ...(args.includes('--build-memory-mb') ? { buildMemoryMb: Number(opt('--build-memory-mb', '')) } : {}),
};
const efs = opt('--ef', '40,100,200,400,800').split(',').map(Number);
const phase = opt('--phase', 'all');
const passageQueries = Number(opt('--passages', '100'));
const bundle = [join(root, '..', 'shared', 'corpora'), join(root, '..', '..', 'shared', 'corpora')]
  .map((d) => join(d, 'bookmarks.bundle'))
  .find((f) => {
    try {
      return statSync(f).isFile();
    } catch {
      return false;
    }
  })!;
const kept = args.includes('--schema');
const schema = opt('--schema', `scale_${process.pid}`);
const url = `${pgBase}${pgBase.includes('?') ? '&' : '?'}schema=${schema}`;
const secs = (t: number) => ((performance.now() - t) / 1000).toFixed(1);
const cpuSecs = (u: NodeJS.CpuUsage) => ((u.user + u.system) / 1e6).toFixed(1);

/** CPU seconds (user + system) so far of server processes: those given, or the cluster's all (postmaster and children), from /proc. */
async function serverCpu(c: pg.Client, pids?: number[]): Promise<number | null> {
  const [{ dir }] = (await c.query<{ dir: string }>(`SELECT current_setting('data_directory') AS dir`)).rows as [{ dir: string }];
  const pidFile = join(dir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const master = readFileSync(pidFile, 'utf8').split('\n')[0]!.trim();
  const tick = 100; // USER_HZ on Linux
  let ticks = 0;
  for (const pid of pids?.map(String) ?? readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // fields after the name: state ppid … utime(12) stime(13) cutime(14) cstime(15)
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (pids || pid === master || f[1] === master) ticks += Number(f[11]) + Number(f[12]);
    } catch {
      // a process that ended meanwhile
    }
  }
  return ticks / tick;
}

const tip = mkdtempSync(join(tmpdir(), 'ragsync-pgscale-'));
const admin = new pg.Client({ connectionString: pgBase });
await admin.connect();
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
  const embedder = new HashEmbedder(dims, 512);
  const fp = embedder.info.fingerprint;
  console.log(`bookmarks tip: ${files.length} files, ${perCopy} paragraphs; ${dims}-dim hash vectors; schema ${schema}`);

  if (phase === 'all' || phase === 'write' || phase === 'build') {
    const store = openIndex({ db: url, hnsw: build }, 'sync');
    const lock = await acquireIndexLock(store, url);
    try {
      if (phase !== 'build') {
        let written = 0;
        let copies = 0;
        const t = performance.now();
        const cpu = process.cpuUsage();
        await store.registerEmbedder(embedder.info);
        await store.ensureSource({ name: 'scaled', kind: 'dir', url: null, branch: null });
        const seen = new Set<string>();
        // Copies until the target: repeated paragraphs (and copies that vary them alike) add no text.
        for (let k = 0; written < target && k < 1000; k++, copies++) {
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
          const texts = docs.flatMap((d) => d.chunks.map((c) => c.text));
          for (let i = 0; i < docs.length; i += 200) await store.writeDocuments('scaled', docs.slice(i, i + 200));
          for (let i = 0; i < texts.length; i += 1000) {
            const batch = texts.slice(i, i + 1000);
            const vs = await embedder.embed(batch);
            await store.putVectors(fp, batch.map((text, j) => ({ textHash: sha256(text), vector: vs[j]! })));
          }
          written += texts.length;
        }
        console.log(`wrote ${written} vectors (${copies} copies, with their chunks) in ${secs(t)} s wall, ${cpuSecs(process.cpuUsage(cpu))} s CPU in this process`);
      }
      if (phase !== 'write') {
        await admin.query(`DROP INDEX IF EXISTS ${schema}.${annIndexName(fp)}`);
        const t = performance.now();
        const cpu0 = await serverCpu(admin);
        await store.refreshCodePack!(fp);
        const cpu1 = await serverCpu(admin);
        console.log(
          `HNSW build (config hnsw ${JSON.stringify(build)}, max_parallel_maintenance_workers ${(await admin.query('SHOW max_parallel_maintenance_workers')).rows[0].max_parallel_maintenance_workers}): ${secs(t)} s wall${cpu0 === null || cpu1 === null ? '' : `, ${(cpu1 - cpu0).toFixed(1)} s server CPU`}`,
        );
      }
    } finally {
      await lock.release();
      await store.close();
    }
  }

  if (phase === 'all' || phase === 'query' || phase === 'build') {
    const sizes = (
      await admin.query<{ name: string; bytes: string; opts: string[] | null; rows: string }>(
        `SELECT x.relname AS name, pg_total_relation_size(x.oid) AS bytes, x.reloptions AS opts, x.reltuples AS rows FROM pg_class x JOIN pg_namespace n ON n.oid = x.relnamespace
         WHERE n.nspname = $1 AND (x.relname LIKE 'vectors_hnsw_%' OR x.relname = 'vectors')`,
        [schema],
      )
    ).rows;
    for (const s of sizes) console.log(`${s.name.startsWith('vectors_hnsw') ? `HNSW index (${(s.opts ?? []).join(', ')})` : 'vectors table (with its TOAST and key index)'}: ${(Number(s.bytes) / 2 ** 20).toFixed(1)} MiB`);
    const [{ n }] = (await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.vectors`)).rows as [{ n: number }];
    console.log(`vectors in the set: ${n}`);

    // One connection, so its server process is the one whose CPU a query costs.
    const reader = openIndex({ db: `${url}&pool=1` }, 'search');
    // Passages: paragraphs spread over the corpus, varied as copy 9999 (no copy in the set) varies them.
    const all = paragraphs.flatMap(({ f, parts }) => parts.map((p, i) => ({ p, key: `${f}#${i}` })));
    const step = Math.max(1, Math.floor(all.length / passageQueries));
    const sets = {
      'eval queries': readEvalFile(join(root, 'eval', 'bookmarks.jsonl')).map((q) => q.query),
      passages: all.filter((_, i) => i % step === 0).slice(0, passageQueries).map(({ p, key }) => varyText(p, 9999, key)),
    };
    const pct = (xs: number[], p: number) => [...xs].sort((x, y) => x - y)[Math.floor((xs.length - 1) * p)]!.toFixed(1);
    for (const [name, queries] of Object.entries(sets)) {
      const qv = await embedder.embed(queries);
      // Untimed, one pass at the widest ef_search: the index pages these queries visit are read into
      // shared buffers first (a freshly started cluster has none), so the timings compare warm walks.
      for (const v of qv) await reader.nearest!({ fingerprint: fp, vector: v, k: 10, efSearch: Math.max(...efs) });
      const backend = (await (reader as unknown as { db: PgDb }).db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).map((r) => r.pid);
      const exact: number[][] = [];
      const tenth: number[] = [];
      const timed = async (run: (i: number) => Promise<void>) => {
        const ms: number[] = [];
        const c0 = await serverCpu(admin, backend);
        const u0 = process.cpuUsage();
        for (const [i] of qv.entries()) {
          const s = performance.now();
          await run(i);
          ms.push(performance.now() - s);
        }
        const c1 = await serverCpu(admin, backend);
        const u = process.cpuUsage(u0);
        return { ms, serverMs: c0 === null || c1 === null ? null : ((c1 - c0) * 1000) / qv.length, clientMs: (u.user + u.system) / 1000 / qv.length };
      };
      const base = await timed(async (cur) => {
        const hits = await reader.nearest!({ fingerprint: fp, vector: qv[cur]!, k: 10, exact: true });
        exact[cur] = hits.map((h) => h.ref);
        tenth[cur] = hits.at(-1)!.score;
      });
      const cpuCol = (t: { serverMs: number | null; clientMs: number }) => `backend CPU ${t.serverMs === null ? '?' : t.serverMs.toFixed(1)} ms/query`;
      console.log(`${name} (${qv.length}): exact  p50 ${pct(base.ms, 0.5)} ms  p90 ${pct(base.ms, 0.9)} ms  ${cpuCol(base)}`);
      for (const ef of efs) {
        let found = 0;
        let near = 0;
        const t = await timed(async (cur) => {
          const got = await reader.nearest!({ fingerprint: fp, vector: qv[cur]!, k: 10, efSearch: ef });
          found += got.filter((h) => exact[cur]!.includes(h.ref)).length;
          // A hit as near as the exact 10th (a tie, or a varied copy scoring alike) is as good an answer.
          near += got.filter((h) => exact[cur]!.includes(h.ref) || h.score >= tenth[cur]! - 1e-6).length;
        });
        console.log(
          `${name}: HNSW ef_search ${String(ef).padEnd(4)} recall@10 ${(found / (10 * qv.length)).toFixed(3)} (by distance ${(near / (10 * qv.length)).toFixed(3)})  p50 ${pct(t.ms, 0.5)} ms  p90 ${pct(t.ms, 0.9)} ms  ${cpuCol(t)}`,
        );
      }
    }
    await reader.close();
  }
} finally {
  rmSync(tip, { recursive: true, force: true });
  if (!kept) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
  await admin.end();
}

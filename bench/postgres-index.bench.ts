/**
 * A full index of both real corpora (classics + bookmarks bundles, shipped config, hash embedder)
 * into SQLite and into Postgres + pgvector, each a fresh `ragsync index` process, interleaved round
 * by round so both see the same machine load; with `--base DIR` (another built tree, e.g. a git
 * worktree of the previous commit) its two runs are interleaved with this tree's.
 *
 *   npx tsx bench/postgres-index.bench.ts [--pg postgres://…] [--base DIR] [--rounds N]
 *
 * Default server: a private cluster like the tests' (tests/helpers/pg-cluster.ts, fsync off).
 * Prints each run's wall time and, per tree, the median Postgres ÷ SQLite ratio.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { benchServer } from './pg-server.ts';
import { CORPORA } from '../tests/helpers/tmp.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
const opt = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const rounds = Number(opt('--rounds') ?? 3);
const trees: [string, string][] = [['this', root], ...(opt('--base') ? [['base', resolve(opt('--base')!)] as [string, string]] : [])];

const cluster = await benchServer(opt('--pg') ?? process.env.RAGSYNC_BENCH_PG_URL);
const pgBase = cluster.url;
const admin = new pg.Client({ connectionString: pgBase });
await admin.connect();
const work = mkdtempSync(join(tmpdir(), 'ragsync-pgindex-'));
try {
  for (const name of ['classics', 'bookmarks']) execFileSync('git', ['clone', '--quiet', '--bare', join(CORPORA, `${name}.bundle`), join(work, `${name}.git`)]);
  const base = JSON.parse(readFileSync(join(root, 'config', 'ragsync.json'), 'utf8')) as { sources: { name: string }[] };
  const schema = `pgindex_${process.pid}`;
  const pgUrl = `${pgBase}${pgBase.includes('?') ? '&' : '?'}schema=${schema}`;
  const backends = { sqlite: 'index.db', postgres: pgUrl } as const;
  const config = (backend: keyof typeof backends) => {
    const file = join(work, `${backend}.json`);
    const sources = base.sources.map((s) => ({ ...s, url: `${s.name}.git` }));
    writeFileSync(file, JSON.stringify({ ...base, db: backends[backend], checkouts: `checkouts-${backend}`, sources }));
    return file;
  };
  const files = { sqlite: config('sqlite'), postgres: config('postgres') };
  const fresh = async () => {
    rmSync(join(work, 'index.db'), { force: true });
    for (const f of ['-wal', '-shm']) rmSync(join(work, `index.db${f}`), { force: true });
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  };
  const times: Record<string, number[]> = {};
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [...trees].reverse() : trees;
    for (const [label, tree] of order) {
      for (const b of (r % 2 ? ['postgres', 'sqlite'] : ['sqlite', 'postgres']) as (keyof typeof backends)[]) {
        await fresh();
        const t = performance.now();
        const out = spawnSync(process.execPath, [join(tree, 'bin', 'ragsync.js'), 'index', '-c', files[b]], { cwd: work, encoding: 'utf8' });
        const s = (performance.now() - t) / 1000;
        if (out.status !== 0) throw new Error(`${label} ${b}: exit ${out.status}: ${out.stderr}`);
        (times[`${label} ${b}`] ??= []).push(s);
        console.log(`round ${r + 1} ${label.padEnd(5)} ${b.padEnd(8)} ${s.toFixed(1)} s`);
      }
    }
  }
  const median = (xs: number[]) => {
    const s = [...xs].sort((x, y) => x - y);
    return (s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2;
  };
  for (const [label] of trees) {
    const ratios = times[`${label} postgres`]!.map((p, i) => p / times[`${label} sqlite`]![i]!);
    console.log(
      `${label.padEnd(5)} full index: sqlite ${median(times[`${label} sqlite`]!).toFixed(1)} s, postgres ${median(times[`${label} postgres`]!).toFixed(1)} s; ` +
        `postgres ÷ sqlite per round ${ratios.map((x) => x.toFixed(2)).join(', ')} (median ${median(ratios).toFixed(2)})`,
    );
  }
} finally {
  await admin.end().catch(() => {});
  cluster.stop();
  rmSync(work, { recursive: true, force: true });
}

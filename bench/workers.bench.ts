// Postgres workers: wall time to index 30 small git sources with 1, 2 and 3 `ragsync index`
// processes sharing one tick (each claims free sources until none is left), on a private cluster.
// Rounds interleave the worker counts, each on a fresh schema; the hash embedder (CPU, offline).
// Usage: npm run build && npx tsx bench/workers.bench.ts [--rounds 3] [--sources 30]
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePgvector, serverBinDir, startCluster } from '../tests/helpers/pg-cluster.ts';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : d;
};
const ROUNDS = arg('rounds', 3);
const SOURCES = arg('sources', 30);

const env = { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' };
function makeSources(dir: string): { name: string; url: string }[] {
  return Array.from({ length: SOURCES }, (_, i) => {
    const name = `s${String(i).padStart(2, '0')}`;
    const work = join(dir, 'work', name);
    mkdirSync(work, { recursive: true });
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: work, env });
    for (let f = 0; f < 10; f++) {
      const body = Array.from({ length: 6 }, (_, k) => `## ${name} file ${f} part ${k}\n\n${`text ${name} ${f} ${k} `.repeat(40)}\n`).join('\n');
      writeFileSync(join(work, `f${f}.md`), `# ${name} ${f}\n\n${body}`);
    }
    execFileSync('git', ['add', '-A'], { cwd: work, env });
    execFileSync('git', ['commit', '-q', '-m', 'init'], { cwd: work, env });
    const url = join(dir, `${name}.git`);
    execFileSync('git', ['clone', '-q', '--bare', work, url]);
    return { name, url };
  });
}

const run = (file: string, tick: string) =>
  new Promise<number>((res, rej) => {
    const c = spawn(process.execPath, [join(root, 'bin/ragsync.js'), 'index', '-c', file, '--tick', tick, '--json'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    c.stderr.on('data', (d: Buffer) => (err += d.toString()));
    c.on('close', (code) => (code === 0 ? res(0) : rej(new Error(`index exited ${code}: ${err.slice(-400)}`))));
  });

async function main(): Promise<void> {
  const bin = serverBinDir();
  if (!bin) throw new Error('no PostgreSQL server binaries');
  const why = ensurePgvector(bin);
  if (why) throw new Error(why);
  const cluster = await startCluster(bin);
  const dir = mkdtempSync(join(tmpdir(), 'ragsync-workers-bench-'));
  try {
    const sources = makeSources(dir);
    const times: Record<number, number[]> = { 1: [], 2: [], 3: [] };
    for (let r = 0; r < ROUNDS; r++) {
      for (const n of [1, 2, 3]) {
        const u = new URL(cluster.url);
        u.searchParams.set('schema', `bench_${r}_${n}`);
        const file = join(dir, `c_${r}_${n}.json`);
        writeFileSync(file, JSON.stringify({
          db: u.toString(),
          embedder: { provider: 'hash', dims: 256 },
          sources: sources.map((s) => ({ name: s.name, url: s.url, branch: 'main' })),
        }));
        const t0 = performance.now();
        await Promise.all(Array.from({ length: n }, () => run(file, `bench-${r}-${n}`)));
        times[n]!.push(performance.now() - t0);
      }
    }
    const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
    console.log(`${SOURCES} sources (10 files, ~60 chunks each), ${ROUNDS} rounds interleaved; ${cpus().length} cores, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    for (const n of [1, 2, 3]) {
      console.log(`${n} worker(s): median ${(median(times[n]!) / 1000).toFixed(2)} s  (${times[n]!.map((t) => (t / 1000).toFixed(2)).join(', ')})  speed-up ${(median(times[1]!) / median(times[n]!)).toFixed(2)}x`);
    }
  } finally {
    cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();

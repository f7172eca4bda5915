/**
 * CPU time (user+sys, the process and the git processes it waits for) and peak RSS of a full
 * index, for this build and a baseline build, interleaved round by round so a loaded machine
 * weighs on both alike. Corpora: the bookmarks corpus ×1 and ×N (bench/scale-corpus.ts, a `dir`
 * source) and the code corpus (code.bundle as a local git upstream, `"chunker": "code"`). Each
 * measured run starts from an empty index (the code source's checkout is kept: fetches are cheap).
 *
 *   npm run build && npx tsx bench/full-index-cpu.bench.ts --base /path/to/baseline/bin/ragsync.js [--rounds 3] [--copies 10]
 *
 * --base: the `ragsync.js` of another build (a copy of bin/, dist/, migrations/ and package.json
 * made before the change, with node_modules linked); --this: the build measured against it
 * (default: this worktree's bin/ragsync.js). Prints the median of each figure per build and
 * this build / baseline.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeScaledCorpus, SCALED_EXCLUDE, SCALED_INCLUDE } from './scale-corpus.ts';
import { takeOption } from './serve-process.ts';

const args = process.argv.slice(2);
const rounds = Number(takeOption(args, '--rounds', '3'));
const copies = Number(takeOption(args, '--copies', '10'));
const dir = resolve(takeOption(args, '--dir', '/tmp/ragsync-cpu-bench'));
const baseBin = resolve(takeOption(args, '--base', ''));
const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const corpora = [process.env.RAGSYNC_CORPORA, join(root, '..', 'shared', 'corpora'), join(root, '..', '..', 'shared', 'corpora')].find(
  (d): d is string => !!d && existsSync(join(d, 'bookmarks.bundle')),
);
if (!corpora) throw new Error('corpora not found (set RAGSYNC_CORPORA)');
if (!existsSync(baseBin)) throw new Error('--base <baseline ragsync.js> is required');
if (!existsSync('/usr/bin/time')) throw new Error('/usr/bin/time (GNU time) is needed');
const builds = { base: baseBin, this: resolve(takeOption(args, '--this', join(root, 'bin', 'ragsync.js'))) } as const;

interface Cost {
  cpu: number;
  rss: number;
}

function measure(bin: string, cwd: string, cfg: string): Cost {
  const r = spawnSync('/usr/bin/time', ['-v', process.execPath, bin, 'index', '-c', cfg, '--json'], { cwd, encoding: 'utf8', maxBuffer: 64 << 20 });
  const num = (re: RegExp) => Number(re.exec(r.stderr)?.[1] ?? NaN);
  const out = JSON.parse(r.stdout || '{}') as { status?: string; embedded?: number };
  if (r.status !== 0 || out.status !== 'ok') throw new Error(`${bin}: index exited ${r.status}: ${r.stderr.slice(-1500)}`);
  return { cpu: num(/User time \(seconds\): ([\d.]+)/) + num(/System time \(seconds\): ([\d.]+)/), rss: num(/Maximum resident set size \(kbytes\): (\d+)/) / 1024 };
}

rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const cases: { name: string; cwd: string; cfg: string }[] = [];
for (const n of [1, copies]) {
  const cwd = join(dir, `bookmarks-x${n}`);
  mkdirSync(cwd, { recursive: true });
  makeScaledCorpus({ bundle: join(corpora, 'bookmarks.bundle'), dir: join(cwd, 'corpus'), copies: n });
  const source = { name: 'bookmarks', kind: 'dir', path: 'corpus', include: SCALED_INCLUDE, exclude: SCALED_EXCLUDE, chunker: 'bookmarks', chunking: { targetTokens: 700 }, maxFileBytes: 2_000_000 };
  writeFileSync(join(cwd, 'ragsync.json'), JSON.stringify({ db: 'index.db', embedder: { provider: 'hash', dims: 1024 }, sources: [source] }));
  cases.push({ name: `bookmarks ×${n}`, cwd, cfg: join(cwd, 'ragsync.json') });
}
{
  const cwd = join(dir, 'code');
  mkdirSync(cwd, { recursive: true });
  execFileSync('git', ['clone', '--quiet', '--bare', join(corpora, 'code.bundle'), join(cwd, 'code.git')]);
  const source = { name: 'code', kind: 'git', url: join(cwd, 'code.git'), branch: 'main', path: join(cwd, 'checkout'), chunker: 'code' };
  writeFileSync(join(cwd, 'ragsync.json'), JSON.stringify({ db: 'index.db', embedder: { provider: 'hash', dims: 1024 }, sources: [source] }));
  cases.push({ name: 'code (chunker code)', cwd, cfg: join(cwd, 'ragsync.json') });
}

const costs = new Map<string, Cost[]>();
for (let r = 0; r < rounds; r++) {
  for (const c of cases) {
    // Alternate which build goes first.
    const order = r % 2 ? (['this', 'base'] as const) : (['base', 'this'] as const);
    for (const b of order) {
      for (const f of ['index.db', 'index.db-wal', 'index.db-shm']) rmSync(join(c.cwd, f), { force: true });
      const cost = measure(builds[b], c.cwd, c.cfg);
      const key = `${c.name}|${b}`;
      costs.set(key, [...(costs.get(key) ?? []), cost]);
      console.error(`round ${r + 1} ${c.name} ${b}: cpu ${cost.cpu.toFixed(2)} s, peak RSS ${cost.rss.toFixed(0)} MB`);
    }
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`| full index (median of ${rounds}) | base CPU s | this CPU s | ratio | base peak RSS MB | this peak RSS MB | ratio |`);
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const c of cases) {
  const b = costs.get(`${c.name}|base`)!;
  const t = costs.get(`${c.name}|this`)!;
  const [bc, tc, br, tr] = [median(b.map((x) => x.cpu)), median(t.map((x) => x.cpu)), median(b.map((x) => x.rss)), median(t.map((x) => x.rss))];
  console.log(`| ${c.name} | ${bc.toFixed(2)} | ${tc.toFixed(2)} | ${(tc / bc).toFixed(2)} | ${br.toFixed(0)} | ${tr.toFixed(0)} | ${(tr / br).toFixed(2)} |`);
}
rmSync(dir, { recursive: true, force: true });

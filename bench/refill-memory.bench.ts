/**
 * Peak RSS and CPU time (user+sys) of the refill after an embedder switch: the bookmarks corpus
 * ×1 and ×N (bench/scale-corpus.ts) indexed once under the hash embedder at 1024 dims, then
 * indexed again at 512 dims (another fingerprint: every stored text is embedded again, no file
 * changed), by this build and a baseline build, each on its own copy of the same index.
 *
 *   npm run build && npx tsx bench/refill-memory.bench.ts --base /path/to/baseline/bin/ragsync.js [--this bin/ragsync.js] [--copies 10]
 */
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeScaledCorpus, SCALED_EXCLUDE, SCALED_INCLUDE } from './scale-corpus.ts';
import { takeOption } from './serve-process.ts';

const args = process.argv.slice(2);
const copies = Number(takeOption(args, '--copies', '10'));
const dir = resolve(takeOption(args, '--dir', '/tmp/ragsync-refill-bench'));
const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const builds = { base: resolve(takeOption(args, '--base', '')), this: resolve(takeOption(args, '--this', join(root, 'bin', 'ragsync.js'))) };
const corpora = [process.env.RAGSYNC_CORPORA, join(root, '..', 'shared', 'corpora'), join(root, '..', '..', 'shared', 'corpora')].find(
  (d): d is string => !!d && existsSync(join(d, 'bookmarks.bundle')),
);
if (!corpora) throw new Error('corpora not found (set RAGSYNC_CORPORA)');
if (!existsSync(builds.base)) throw new Error('--base <baseline ragsync.js> is required');

function run(bin: string, cwd: string, cfg: string): { cpu: number; rss: number; embedded: number } {
  const r = spawnSync('/usr/bin/time', ['-v', process.execPath, bin, 'index', '-c', cfg, '--json'], { cwd, encoding: 'utf8', maxBuffer: 64 << 20 });
  const num = (re: RegExp) => Number(re.exec(r.stderr)?.[1] ?? NaN);
  const out = JSON.parse(r.stdout || '{}') as { status?: string; embedded?: number };
  if (r.status !== 0 || out.status !== 'ok') throw new Error(`${bin}: index exited ${r.status}: ${r.stderr.slice(-1500)}`);
  return { cpu: num(/User time \(seconds\): ([\d.]+)/) + num(/System time \(seconds\): ([\d.]+)/), rss: num(/Maximum resident set size \(kbytes\): (\d+)/) / 1024, embedded: out.embedded ?? NaN };
}

const config = (dims: number, db: string) =>
  JSON.stringify({
    db,
    embedder: { provider: 'hash', dims },
    sources: [{ name: 'bookmarks', kind: 'dir', path: 'corpus', include: SCALED_INCLUDE, exclude: SCALED_EXCLUDE, chunker: 'bookmarks', chunking: { targetTokens: 700 }, maxFileBytes: 2_000_000 }],
  });

rmSync(dir, { recursive: true, force: true });
console.log('| refill after an embedder switch | texts | base CPU s | this CPU s | base peak RSS MB | this peak RSS MB |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const n of [1, copies]) {
  const cwd = join(dir, `x${n}`);
  mkdirSync(cwd, { recursive: true });
  makeScaledCorpus({ bundle: join(corpora, 'bookmarks.bundle'), dir: join(cwd, 'corpus'), copies: n });
  writeFileSync(join(cwd, 'first.json'), config(1024, 'first.db'));
  run(builds.this, cwd, join(cwd, 'first.json'));
  const cost: Record<string, ReturnType<typeof run>> = {};
  for (const b of ['base', 'this'] as const) {
    copyFileSync(join(cwd, 'first.db'), join(cwd, `${b}.db`));
    if (existsSync(join(cwd, 'first.db-wal'))) copyFileSync(join(cwd, 'first.db-wal'), join(cwd, `${b}.db-wal`));
    writeFileSync(join(cwd, `${b}.json`), config(512, `${b}.db`));
    cost[b] = run(builds[b], cwd, join(cwd, `${b}.json`));
  }
  console.log(`| bookmarks ×${n} | ${cost.this!.embedded} | ${cost.base!.cpu.toFixed(2)} | ${cost.this!.cpu.toFixed(2)} | ${cost.base!.rss.toFixed(0)} | ${cost.this!.rss.toFixed(0)} |`);
  rmSync(cwd, { recursive: true, force: true });
}
rmSync(dir, { recursive: true, force: true });

/**
 * Full index and no-op re-run over both real corpora (classics + bookmarks bundles as local git
 * upstreams) with the offline hash embedder.
 *
 *   npm run build && npx tsx bench/sync.bench.ts
 *
 * Prints: full index time and chunks/s (against the embedder's own throughput on the same texts,
 * measured in this run), the longest event-loop stall during it, and the wall time of a no-op
 * `ragsync index` process (against a bare `node -e 0` start, measured in this run). Target: no-op
 * ≤ 0.5 s wall, 0 texts embedded.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadConfig } from '../src/builtin.ts';
import type { Config } from '../src/config/load.ts';

import { HashEmbedder } from '../src/embedding/hash.ts';
import { SqliteIndex } from '../src/storage/sqlite/index.ts';
import { runIndex } from '../src/engine/library.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const corpora = join(root, '..', 'shared', 'corpora');
const bin = join(root, 'bin', 'ragsync.js');
if (!existsSync(join(root, 'dist', 'cli', 'run.js'))) throw new Error('run `npm run build` first');

const work = mkdtempSync(join(tmpdir(), 'ragsync-bench-'));
for (const name of ['classics', 'bookmarks']) {
  execFileSync('git', ['clone', '--quiet', '--bare', join(corpora, `${name}.bundle`), join(work, `${name}.git`)]);
}
const base = JSON.parse(execFileSync('cat', [join(root, 'config', 'ragsync.json')], { encoding: 'utf8' }));
const cfgFile = join(work, 'bench.json');
writeFileSync(
  cfgFile,
  JSON.stringify({
    ...base,
    db: 'bench.db',
    sources: base.sources.map((s: { name: string }) => ({ ...s, url: `${s.name}.git` })),
  }),
);
const config = loadConfig(cfgFile);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const wall = (cmd: string, args: string[]) => {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return { ms: Number(process.hrtime.bigint() - t) / 1e6, stdout: r.stdout };
};

// 1. Full index, in process. The longest event-loop stall during it is what a daemon's /healthz
// and searches wait at worst while a run writes (the source's documents switch in one transaction).
const stalls = monitorEventLoopDelay({ resolution: 5 });
stalls.enable();
const t0 = performance.now();
const full = await runIndex(config);
const fullMs = performance.now() - t0;
stalls.disable();
const chunks = full.sources.reduce((n, s) => n + s.planned.chunks, 0);
const docs = full.sources.reduce((n, s) => n + s.planned.documents.added, 0);

// Baseline: the embedder alone over the same texts (what indexing cannot go below).
const store = new SqliteIndex(config.db, 'read');
const texts = store.db.prepare('SELECT DISTINCT text FROM chunks').pluck().all() as string[];
await store.close();
if (config.embedder.provider !== 'hash') throw new Error('this bench measures the hash embedder');
const e = new HashEmbedder(config.embedder.dims);
const t1 = performance.now();
for (let i = 0; i < texts.length; i += 256) await e.embed(texts.slice(i, i + 256));
const embedMs = performance.now() - t1;

// 2. No-op re-runs of the real command, against bare node start-up.
const noop: number[] = [];
let embeddedNoop = -1;
for (let i = 0; i < 5; i++) {
  const r = wall(process.execPath, [bin, 'index', '--json', '-c', cfgFile]);
  noop.push(r.ms);
  embeddedNoop = JSON.parse(r.stdout).embedded;
}
const nodeStart = median(Array.from({ length: 5 }, () => wall(process.execPath, ['-e', '0']).ms));

const rss = process.resourceUsage().maxRSS / 1024;
console.log(`corpora: ${docs} documents, ${chunks} chunks (${full.textsEmbedded} distinct texts embedded), status ${full.status}`);
console.log(`full index:      ${(fullMs / 1000).toFixed(2)} s  = ${(chunks / (fullMs / 1000)).toFixed(0)} chunks/s`);
console.log(`embedder alone:  ${(embedMs / 1000).toFixed(2)} s  (full index / embedder alone = ${(fullMs / embedMs).toFixed(2)}x)`);
console.log(`no-op re-run:    ${(median(noop) / 1000).toFixed(3)} s wall (median of 5), embedded ${embeddedNoop}; target <= 0.500 s`);
console.log(`node -e 0:       ${(nodeStart / 1000).toFixed(3)} s  (no-op / bare node start = ${(median(noop) / nodeStart).toFixed(2)}x)`);
console.log(`longest event-loop stall during the full index: ${(stalls.max / 1e6).toFixed(0)} ms (p99 ${(stalls.percentile(99) / 1e6).toFixed(0)} ms)`);
console.log(`peak RSS (bench process): ${rss.toFixed(0)} MB`);
rmSync(work, { recursive: true, force: true });

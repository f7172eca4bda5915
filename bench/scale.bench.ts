/**
 * How index and search costs grow with the corpus: the bookmarks corpus ×1 and ×N (default 10,
 * varied copies made by bench/scale-corpus.ts from ../shared/corpora/bookmarks.bundle), measured
 * in one run, each figure from its own child process of the compiled `ragsync`:
 *
 * - full index: peak RSS (wait4's maxrss, through /usr/bin/time -v) and wall time
 * - no-op index (the same folder again): the same
 * - one-shot hybrid search (`ragsync search …`, 5 queries, --rounds rounds interleaved over the
 *   scales): per query the median wall time, then the slowest query's; the largest peak RSS
 * - serve: RSS (VmRSS) and its peak (VmHWM) after some hybrid searches over HTTP
 *
 * and prints ×N / ×1 for each. Targets (issue 24): index peak RSS ×N ≤ 1.5 × ×1; one-shot search
 * ≤ 1.3 × the time and ≤ 1.5 × the memory.
 *
 *   npm run build && npx tsx bench/scale.bench.ts [--copies 10] [--rounds 9] [--dir /tmp/ragsync-scale] [--keep] [--src]
 *
 * The corpus's files are dated an hour back, as a folder that existed before the index: files
 * written within 2 s of a listing are read again by the next run (sources/dir.ts, racy stamps), so
 * a no-op right after writing them would re-read every file.
 *
 * --src runs the TypeScript sources (node --import tsx src/cli/run.ts) instead of the build.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeScaledCorpus, SCALED_EXCLUDE, SCALED_INCLUDE } from './scale-corpus.ts';
import { procMemory, startServeOn, takeFlag, takeOption } from './serve-process.ts';

const args = process.argv.slice(2);
const copies = Number(takeOption(args, '--copies', '10'));
const rounds = Number(takeOption(args, '--rounds', '9'));
const dir = resolve(takeOption(args, '--dir', '/tmp/ragsync-scale'));
const keep = takeFlag(args, '--keep');
const fromSrc = takeFlag(args, '--src');
const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const corpora = process.env.RAGSYNC_CORPORA ?? join(root, '..', '..', 'shared', 'corpora');
const bundle = [join(corpora, 'bookmarks.bundle'), join(root, '..', 'shared', 'corpora', 'bookmarks.bundle')].find(existsSync);
if (!bundle) throw new Error(`bookmarks.bundle not found (set RAGSYNC_CORPORA to the corpora folder)`);
const entry = fromSrc ? ['--import', 'tsx', join(root, 'src', 'cli', 'run.ts')] : [join(root, 'bin', 'ragsync.js')];
if (!fromSrc && !existsSync(join(root, 'dist', 'bundle', 'boot.cjs'))) throw new Error('run `npm run build` first (or pass --src)');
if (!existsSync('/usr/bin/time')) throw new Error('/usr/bin/time (GNU time) is needed for peak RSS');

const QUERIES = ['SQLite 全文检索', 'how to build a message queue on Postgres', 'Rust 异步运行时', '大语言模型 提示词 技巧', 'CSS grid layout'];

interface Cost {
  ms: number;
  peakMb: number;
}

/** Runs `node <entry> <args>` under /usr/bin/time -v: wall time and peak RSS of the child. */
function measure(cwd: string, cliArgs: string[]): Cost & { stdout: string } {
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-v', process.execPath, ...entry, ...cliArgs], { cwd, encoding: 'utf8', maxBuffer: 64 << 20 });
  const ms = performance.now() - t0;
  const peak = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
  if (r.status !== 0 || !peak) throw new Error(`ragsync ${cliArgs.join(' ')} exited ${r.status}: ${r.stderr.slice(-2000)}`);
  return { ms, peakMb: Number(peak[1]) / 1024, stdout: r.stdout };
}

interface Scale {
  copies: number;
  work: string;
  cfg: string;
  files: number;
  chunks: number;
  texts: number;
  full: Cost;
  noop: Cost;
}

/** Every file under `dir` dated `secondsAgo` back. */
function backdate(dir: string, secondsAgo: number): void {
  const t = Date.now() / 1000 - secondsAgo;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) utimesSync(join(e.parentPath, e.name), t, t);
  }
}

function indexScale(n: number): Scale {
  const work = join(dir, `x${n}`);
  mkdirSync(work, { recursive: true });
  const made = makeScaledCorpus({ bundle: bundle!, dir: join(work, 'corpus'), copies: n });
  backdate(join(work, 'corpus'), 3600);
  rmSync(join(work, 'index.db'), { force: true });
  for (const suffix of ['-wal', '-shm']) rmSync(join(work, `index.db${suffix}`), { force: true });
  const cfg = join(work, 'ragsync.json');
  writeFileSync(
    cfg,
    JSON.stringify({
      db: 'index.db',
      embedder: { provider: 'hash', dims: 1024 },
      sources: [
        {
          name: 'bookmarks',
          kind: 'dir',
          path: 'corpus',
          include: SCALED_INCLUDE,
          exclude: SCALED_EXCLUDE,
          chunker: 'bookmarks',
          chunking: { targetTokens: 700 },
          maxFileBytes: 2_000_000,
        },
      ],
    }),
  );
  const full = measure(work, ['index', '-c', cfg, '--json']);
  const run = JSON.parse(full.stdout) as { status: string; embedded: number; sources: { written: { chunks: number } }[] };
  if (run.status !== 'ok') throw new Error(`×${n}: full index ended ${run.status}`);
  const noop = measure(work, ['index', '-c', cfg, '--json']);
  if ((JSON.parse(noop.stdout) as { embedded: number }).embedded !== 0) throw new Error(`×${n}: the no-op run embedded texts`);
  return { copies: n, work, cfg, files: made.files, chunks: run.sources[0]!.written.chunks, texts: run.embedded, full, noop };
}

/**
 * One-shot searches, the scales interleaved round by round (so a busy moment hits both): per
 * scale, each query's median wall time, then the slowest query's; the largest peak RSS.
 */
function oneShotSearches(scales: Scale[]): Cost[] {
  const ms = scales.map(() => QUERIES.map(() => [] as number[]));
  const peak = scales.map(() => 0);
  for (let r = 0; r < rounds; r++) {
    QUERIES.forEach((q, qi) =>
      scales.forEach((s, si) => {
        const c = measure(s.work, ['search', q, '-c', s.cfg, '--json', '-k', '10']);
        ms[si]![qi]!.push(c.ms);
        peak[si] = Math.max(peak[si]!, c.peakMb);
      }),
    );
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  return scales.map((_, si) => ({ ms: Math.max(...ms[si]!.map(median)), peakMb: peak[si]! }));
}

async function serveMemory(s: Scale, port: number): Promise<{ rss: number; hwm: number }> {
  const serve = await startServeOn(entry, s.cfg, port, s.work);
  try {
    for (let i = 0; i < 50; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/search?q=${encodeURIComponent(QUERIES[i % QUERIES.length]!)}&k=10&mode=hybrid`);
      if (!res.ok) throw new Error(`serve answered ${res.status}`);
      await res.arrayBuffer();
    }
    return procMemory(serve.pid!);
  } finally {
    serve.kill();
  }
}

const smallScale = indexScale(1);
const largeScale = indexScale(copies);
const [smallSearch, largeSearch] = oneShotSearches([smallScale, largeScale]) as [Cost, Cost];
const small = { ...smallScale, search: smallSearch, serve: await serveMemory(smallScale, 18731) };
const large = { ...largeScale, search: largeSearch, serve: await serveMemory(largeScale, 18732) };
const f = (x: number) => x.toFixed(x >= 100 ? 0 : 1);
const ratio = (a: number, b: number) => `${(b / a).toFixed(2)}×`;
const rows: [string, number, number][] = [
  ['full index: peak RSS (MB)', small.full.peakMb, large.full.peakMb],
  ['full index: wall (ms)', small.full.ms, large.full.ms],
  ['no-op index: peak RSS (MB)', small.noop.peakMb, large.noop.peakMb],
  ['no-op index: wall (ms)', small.noop.ms, large.noop.ms],
  ['one-shot search: peak RSS (MB, largest)', small.search.peakMb, large.search.peakMb],
  [`one-shot search: wall (ms, slowest query's median of ${rounds})`, small.search.ms, large.search.ms],
  ['serve after 50 searches: RSS (MB)', small.serve.rss, large.serve.rss],
  ['serve after 50 searches: peak (MB)', small.serve.hwm, large.serve.hwm],
];
console.log(`bookmarks ×1: ${small.files} files, ${small.chunks} chunks, ${small.texts} texts embedded`);
console.log(`bookmarks ×${copies}: ${large.files} files, ${large.chunks} chunks, ${large.texts} texts embedded\n`);
console.log(`| measure | ×1 | ×${copies} | ratio |`);
console.log('|---|---:|---:|---:|');
for (const [name, a, b] of rows) console.log(`| ${name} | ${f(a)} | ${f(b)} | ${ratio(a, b)} |`);
const indexOk = large.full.peakMb <= 1.5 * small.full.peakMb;
const searchOk = large.search.ms <= 1.3 * small.search.ms && large.search.peakMb <= 1.5 * small.search.peakMb;
console.log(`\nindex peak RSS ×${copies} ≤ 1.5 × ×1: ${indexOk ? 'yes' : 'NO'}; one-shot search ≤ 1.3× time and ≤ 1.5× memory: ${searchOk ? 'yes' : 'NO'}`);
if (!keep) rmSync(dir, { recursive: true, force: true });

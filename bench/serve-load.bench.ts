/**
 * `ragsync serve` under concurrent clients on loopback: throughput, latency percentiles and the
 * server's RSS, for one or more checkouts side by side in the same run (the first is the baseline).
 * Each server gets a warm-up (every query once, then W seconds of the same load, not counted),
 * then C clients loop over the eval queries (hybrid, k = 10, each restricted to its source) for a
 * fixed time, on a thread of their own (bench/http-load.ts); RSS is read from /proc after the run
 * (well over 200 searches).
 *
 *   npx tsx bench/serve-load.bench.ts -c CONFIG [--clients 20] [--seconds 15] [--warmup 5] [--rounds 1] [--dist] CHECKOUT[=CONFIG] [CHECKOUT[=CONFIG] ...]
 *
 * `CHECKOUT=CONFIG` serves that checkout with a config of its own (an index made by it, when the
 * schemas differ). "cores" is the server's CPU time (its threads together) over the run's wall time.
 * CHECKOUT is a worktree whose src/cli/run.ts is started with tsx (node_modules must be there), or
 * with --dist its bin/ragsync.js (the compiled build, as installed: run `npm run build` there first).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { readEvalFile } from '../src/search/eval.ts';
import { percentile, runLoad } from './http-load.ts';
import { procMemory, startServeOn, takeFlag, takeOption } from './serve-process.ts';

const args = process.argv.slice(2);
const opt = (name: string, def: string) => takeOption(args, name, def);
const config = resolve(opt('-c', ''));
const clients = Number(opt('--clients', '20'));
const seconds = Number(opt('--seconds', '15'));
const warmup = Number(opt('--warmup', '5'));
const rounds = Number(opt('--rounds', '1'));
const dist = takeFlag(args, '--dist');
const checkouts = args.map((a) => {
  const [dir, cfg] = a.split('=');
  return { dir: resolve(dir!), config: cfg ? resolve(cfg) : config };
});
if (!config || !checkouts.length) throw new Error('usage: serve-load.bench.ts -c CONFIG [--clients N] [--seconds S] CHECKOUT ...');

const here = resolve(new URL('..', import.meta.url).pathname);
const cases = ['eval/classics.jsonl', 'eval/bookmarks.jsonl', 'bench/eval/classics-search.jsonl', 'bench/eval/bookmarks-search.jsonl'].flatMap((f) =>
  readEvalFile(join(here, f)),
);
const paths = cases.map((c) => `/search?q=${encodeURIComponent(c.query)}&k=10${c.source ? `&source=${c.source}` : ''}`);

function startServer(checkout: string, config: string, port: number): Promise<ChildProcess> {
  const entry = dist ? [join(checkout, 'bin/ragsync.js')] : ['--import', 'tsx', join(checkout, 'src/cli/run.ts')];
  return startServeOn(entry, config, port, checkout);
}

function rssMb(pid: number): string {
  const m = procMemory(pid);
  return `${m.rss.toFixed(0)} MB (anon ${m.anon.toFixed(0)}, file ${m.file.toFixed(0)})`;
}

/** CPU seconds (user + system) of a process so far. */
function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (100 a second)
}

async function run(checkout: string, config: string, port: number) {
  const child = await startServer(checkout, config, port);
  const base = `http://127.0.0.1:${port}`;
  try {
    for (const p of paths) await (await fetch(base + p)).text(); // every query once: vectors loaded, caches filled
    // Then the load, its first `warmup` seconds not counted: under load the server still compiles (JIT) and grows its heap.
    let cpu0 = 0;
    const { latencies, errors, seconds: took } = await runLoad({ port, paths, clients, seconds, warmup }, () => (cpu0 = cpuSeconds(child.pid!)));
    const cores = (cpuSeconds(child.pid!) - cpu0) / took;
    latencies.sort((a, b) => a - b);
    const at = (q: number) => percentile(latencies, q);
    return { n: latencies.length, rps: latencies.length / took, p50: at(0.5), p90: at(0.9), p99: at(0.99), p999: at(0.999), max: at(1), errors, cores, rss: rssMb(child.pid!) };
  } finally {
    child.kill();
  }
}

// Each round serves every checkout once; odd rounds in the reverse order, so neither side always
// runs first (a shared machine drifts within a few minutes).
const runs: (Awaited<ReturnType<typeof run>> & { c: string; round: number })[] = [];
for (let round = 0; round < rounds; round++) {
  const order = round % 2 ? [...checkouts.keys()].reverse() : [...checkouts.keys()];
  for (const i of order) runs.push({ c: checkouts[i]!.dir, round, ...(await run(checkouts[i]!.dir, checkouts[i]!.config, 18_700 + i)) });
}
console.log(`${clients} clients × ${seconds} s, hybrid k=10 over ${paths.length} eval queries; ${availableParallelism()} cores (shared), load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`);
console.log('| checkout | round | searches | searches/s | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | errors | cores | server RSS after |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
const FIGURES = ['rps', 'p50', 'p90', 'p99', 'p999', 'max'] as const;
const cells = (value: (k: (typeof FIGURES)[number]) => number) => FIGURES.map((k) => value(k).toFixed(k === 'rps' ? 0 : 1)).join(' | ');
for (const r of runs) console.log(`| ${r.c} | ${r.round + 1} | ${r.n} | ${cells((k) => r[k])} | ${r.errors} | ${r.cores.toFixed(2)} | ${r.rss} |`);
if (rounds > 1) {
  const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 0.5);
  console.log('\nmedians over the rounds:\n| checkout | searches/s | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms |\n|---|---|---|---|---|---|---|');
  for (const c of checkouts) {
    const mine = runs.filter((r) => r.c === c.dir);
    console.log(`| ${c.dir} | ${cells((k) => median(mine.map((r) => r[k])))} |`);
  }
}

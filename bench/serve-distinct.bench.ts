/**
 * `ragsync serve` answering queries it has not seen: the server's CPU per search over every
 * distinct eval query once, one at a time, for one or more built checkouts taken in turn (the
 * first is the baseline). What a long-lived searcher keeps between queries (docs/architecture.md,
 * "Query path") does not help here beyond the chunks shared between queries; serve-load.bench.ts
 * loops over the same queries, where it does.
 *
 *   npx tsx bench/serve-distinct.bench.ts [--rounds 2] CHECKOUT=CONFIG [CHECKOUT=CONFIG ...]
 *
 * Each server is warmed on eval/tune/classics.jsonl first (loads, JIT), none of the measured queries.
 * CHECKOUT is a built worktree (its bin/ragsync.js), CONFIG an index that checkout made.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readEvalFile } from '../src/search/eval.ts';
import { percentile } from './http-load.ts';
import { startServeOn, takeOption } from './serve-process.ts';

const args = process.argv.slice(2);
const rounds = Number(takeOption(args, '--rounds', '2'));
const checkouts = args.map((a) => {
  const [dir, cfg] = a.split('=');
  if (!dir || !cfg) throw new Error('usage: serve-distinct.bench.ts [--rounds N] CHECKOUT=CONFIG ...');
  return { dir: resolve(dir), config: resolve(cfg) };
});
if (!checkouts.length) throw new Error('usage: serve-distinct.bench.ts [--rounds N] CHECKOUT=CONFIG ...');

const here = resolve(new URL('..', import.meta.url).pathname);
const inDir = (d: string) => readdirSync(join(here, d)).filter((f) => f.endsWith('.jsonl') && !f.includes('code')).map((f) => `${d}/${f}`);
const pathOf = (c: { query: string; source?: string }) => `/search?q=${encodeURIComponent(c.query)}&k=10${c.source ? `&source=${c.source}` : ''}`;
const files = ['eval/classics.jsonl', 'eval/bookmarks.jsonl', 'bench/eval/classics-search.jsonl', 'bench/eval/bookmarks-search.jsonl', ...inDir('eval/untouched'), ...inDir('eval/dev'), ...inDir('eval/heldout')];
const paths = [...new Set(files.flatMap((f) => readEvalFile(join(here, f))).map(pathOf))];
const warm = readEvalFile(join(here, 'eval/tune/classics.jsonl')).map(pathOf);

/** CPU seconds (user + system) of a process so far. */
function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

async function run(dir: string, config: string, port: number): Promise<number> {
  const child = await startServeOn([join(dir, 'bin', 'ragsync.js')], config, port, dir);
  const get = async (p: string) => {
    const r = await fetch(`http://127.0.0.1:${port}${p}`);
    if (r.status !== 200) throw new Error(`${p}: ${r.status}`);
    await r.text();
  };
  try {
    for (const p of warm) await get(p);
    const cpu0 = cpuSeconds(child.pid!);
    for (const p of paths) await get(p);
    return ((cpuSeconds(child.pid!) - cpu0) * 1000) / paths.length;
  } finally {
    child.kill();
    await new Promise((r) => child.once('exit', r));
  }
}

const ms = checkouts.map(() => [] as number[]);
for (let round = 0; round < rounds; round++) {
  const order = round % 2 ? [...checkouts.keys()].reverse() : [...checkouts.keys()];
  for (const i of order) ms[i]!.push(await run(checkouts[i]!.dir, checkouts[i]!.config, 18_800 + i));
}
console.log(`${paths.length} distinct queries (hybrid, k = 10), each once; ${rounds} rounds; load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`);
console.log('| checkout | server CPU ms per search, each round | median | × the first |\n|---|---|---|---|');
const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 0.5);
checkouts.forEach((c, i) => console.log(`| ${c.dir} | ${ms[i]!.map((x) => x.toFixed(2)).join(', ')} | ${median(ms[i]!).toFixed(2)} | ${(median(ms[i]!) / median(ms[0]!)).toFixed(2)}× |`));

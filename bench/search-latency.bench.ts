/**
 * Query latency of the library search on a real index, per mode, over the queries of eval files.
 * The first query pays the in-memory vector load (reported separately as "cold"), then one untimed
 * pass warms up; the same file runs on an older checkout to give the baseline of the same run.
 *
 *   npx tsx bench/search-latency.bench.ts -c CONFIG FILE.jsonl [FILE.jsonl ...]
 *
 * "hybrid, no expansion" is hybrid with `expand: false`: the difference is what query expansion
 * costs a search (only hybrid expands).
 */
import { readFileSync } from 'node:fs';
import { loadConfig } from '../src/builtin.ts';
import type { Config } from '../src/config/load.ts';
import { Searcher, MODES } from '../src/search/search.ts';
import { readEvalFile } from '../src/search/eval.ts';

const args = process.argv.slice(2);
const ci = args.indexOf('-c');
if (ci < 0 || !args[ci + 1]) throw new Error('usage: search-latency.bench.ts -c CONFIG FILE.jsonl ...');
const config = loadConfig(args[ci + 1]);
const files = args.filter((_, i) => i !== ci && i !== ci + 1);
const cases = files.flatMap((f) => readEvalFile(f));

const searcher = Searcher.open(config);
const ms = (t: bigint) => Number(process.hrtime.bigint() - t) / 1e6;
// The first query pays the load of the vectors (and of the store's per-generation caches); one
// untimed pass over every mode then warms the JIT, so the table measures the steady state.
let t = process.hrtime.bigint();
await searcher.search(cases[0]!.query, { mode: 'hybrid', k: 10 });
const loadMs = ms(t);
for (const mode of MODES) for (const c of cases) await searcher.search(c.query, { mode, k: 10, sources: c.source ? [c.source] : undefined });
const status = readFileSync('/proc/self/status', 'utf8');
const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) / 1024;
console.log(
  `${cases.length} queries; first query (cold load) ${loadMs.toFixed(0)} ms; after warm-up RSS ${kb('VmRSS').toFixed(0)} MB ` +
    `(anonymous ${kb('RssAnon').toFixed(0)}, file-backed ${kb('RssFile').toFixed(0)})`,
);
console.log('| mode | median ms | p90 ms | max ms |');
console.log('|---|---|---|---|');
// Modes interleaved per query, so a burst of load on the shared machine hits them alike.
const VARIANTS = [...MODES.map((mode) => ({ name: mode as string, mode, expand: true })), { name: 'hybrid, no expansion', mode: 'hybrid' as const, expand: false }];
const times = new Map(VARIANTS.map((v) => [v.name, [] as number[]]));
for (const c of cases) {
  for (const v of VARIANTS) {
    t = process.hrtime.bigint();
    await searcher.search(c.query, { mode: v.mode, expand: v.expand, k: 10, sources: c.source ? [c.source] : undefined });
    times.get(v.name)!.push(ms(t));
  }
}
for (const { name: mode } of VARIANTS) {
  const ts = times.get(mode)!.sort((a, b) => a - b);
  const at = (q: number) => ts[Math.min(ts.length - 1, Math.floor(q * ts.length))]!;
  console.log(`| ${mode} | ${at(0.5).toFixed(1)} | ${at(0.9).toFixed(1)} | ${ts[ts.length - 1]!.toFixed(1)} |`);
}
await searcher.close();

/**
 * Query latency of the library search on a real index, per mode, over the queries of eval files.
 * The first query pays the in-memory vector load (reported separately as "cold").
 *
 *   npx tsx bench/search-latency.bench.ts -c CONFIG FILE.jsonl [FILE.jsonl ...]
 */
import { loadConfig } from '../src/builtin.ts';
import type { Config } from '../src/config/load.ts';
import { Searcher, MODES } from '../src/search/search.ts';
import { readEvalFile } from '../src/search/eval.ts';
import type { VectorIndex } from '../src/search/vector-index.ts';

const args = process.argv.slice(2);
const ci = args.indexOf('-c');
if (ci < 0 || !args[ci + 1]) throw new Error('usage: search-latency.bench.ts -c CONFIG FILE.jsonl ...');
const config = loadConfig(args[ci + 1]);
const files = args.filter((_, i) => i !== ci && i !== ci + 1);
const cases = files.flatMap((f) => readEvalFile(f));

const searcher = Searcher.open(config);
const ms = (t: bigint) => Number(process.hrtime.bigint() - t) / 1e6;
let t = process.hrtime.bigint();
const set = await (searcher.vectors as VectorIndex).current();
const loadMs = ms(t);
console.log(`${cases.length} queries; ${set.refs.length} vectors × ${set.dims} loaded in ${loadMs.toFixed(0)} ms (cold)`);
console.log('| mode | median ms | p90 ms | max ms |');
console.log('|---|---|---|---|');
for (const mode of MODES) {
  const times: number[] = [];
  for (const c of cases) {
    t = process.hrtime.bigint();
    await searcher.search(c.query, { mode, k: 10, sources: c.source ? [c.source] : undefined });
    times.push(ms(t));
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  console.log(`| ${mode} | ${at(0.5).toFixed(1)} | ${at(0.9).toFixed(1)} | ${times[times.length - 1]!.toFixed(1)} |`);
}
await searcher.close();

/**
 * Query latency of the library search on a real index, per mode, over the queries of eval files.
 * The first query pays the in-memory vector load (reported separately as "cold"), then one untimed
 * pass warms up.
 *
 *   npx tsx bench/search-latency.bench.ts -c CONFIG [--base CHECKOUT [--base-config CONFIG]] FILE.jsonl [FILE.jsonl ...]
 *
 * With --base, the Searcher of another checkout (a worktree or an extracted commit with
 * node_modules) runs in the same process on the same index, interleaved with this one query by
 * query (which goes first alternates), so both see the same load; the table then gives both
 * medians and their ratio, and every result list (refs and scores) is compared.
 *
 * "hybrid, no expansion" is hybrid with `expand: false`: the difference is what query expansion
 * costs a search (only hybrid expands). The first pass is also timed ("first pass"): it is what a
 * searcher pays before anything it keeps between queries (the vectors aside) is warm.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig } from '../src/builtin.ts';
import { Searcher, MODES } from '../src/search/search.ts';
import { openSearcher } from '../src/engine/library.ts';
import { readEvalFile } from '../src/search/eval.ts';

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = args[i + 1];
  if (!v) throw new Error(`${name} needs a value`);
  args.splice(i, 2);
  return v;
};
const configFile = opt('-c');
if (!configFile) throw new Error('usage: search-latency.bench.ts -c CONFIG [--base CHECKOUT] FILE.jsonl ...');
const baseDir = opt('--base');
// The base may need an index of its own schema (same sources, indexed by it): --base-config.
const baseConfig = opt('--base-config') ?? configFile;
const cases = args.flatMap((f) => readEvalFile(f));

type Run = (query: string, o: { mode: string; expand: boolean; k: number; sources?: string[] }) => Promise<{ ref?: number; id: string; score: number }[]>;
interface Side {
  name: string;
  run: Run;
  close(): Promise<void>;
}

async function sideOf(name: string, dir: string | null, config: string): Promise<Side> {
  const load = dir ? ((await import(resolve(dir, 'src/builtin.ts'))) as { loadConfig: typeof loadConfig }).loadConfig : loadConfig;
  // A base checkout from before src/engine opened searchers with Searcher.open.
  const s = dir
    ? ((await import(resolve(dir, 'src/search/search.ts'))) as { Searcher: { open(c: unknown): Searcher } }).Searcher.open(load(config))
    : openSearcher(load(config));
  return { name, run: (q, o) => s.search(q, o as never), close: () => s.close() };
}

const sides = [...(baseDir ? [await sideOf(`base (${baseDir})`, baseDir, baseConfig)] : []), await sideOf('new', null, configFile)];
const ms = (t: bigint) => Number(process.hrtime.bigint() - t) / 1e6;
const VARIANTS = [...MODES.map((mode) => ({ name: mode as string, mode, expand: true })), { name: 'hybrid, no expansion', mode: 'hybrid' as const, expand: false }];
const optsOf = (v: (typeof VARIANTS)[number], c: (typeof cases)[number]) => ({ mode: v.mode, expand: v.expand, k: 10, sources: c.source ? [c.source] : undefined });

// The first query pays the load of the vectors (and of the store's per-generation caches).
const loadMs: number[] = [];
for (const s of sides) {
  const t = process.hrtime.bigint();
  await s.run(cases[0]!.query, { mode: 'hybrid', expand: true, k: 10 });
  loadMs.push(ms(t));
}
/** times[side][variant] */
const timesOf = () => sides.map(() => new Map(VARIANTS.map((v) => [v.name, [] as number[]])));
const first = timesOf();
const times = timesOf();
let differ = 0;
let compared = 0;
const key = (r: { id: string; score: number }[]) => r.map((h) => `${h.id}:${h.score}`).join(' ');
// Pass 0 is the first pass (timed apart); pass 1 is the measured steady state. Modes interleaved
// per query, sides interleaved per variant with alternating order.
for (const pass of [0, 1]) {
  for (const [qi, c] of cases.entries()) {
    for (const v of VARIANTS) {
      const order = (qi + pass) % 2 ? [...sides.keys()].reverse() : [...sides.keys()];
      const got: string[] = [];
      for (const si of order) {
        const t = process.hrtime.bigint();
        const r = await sides[si]!.run(c.query, optsOf(v, c));
        (pass ? times : first)[si]!.get(v.name)!.push(ms(t));
        got[si] = key(r);
      }
      if (sides.length > 1) {
        compared++;
        if (got[0] !== got[1]) differ++;
      }
    }
  }
}
const status = readFileSync('/proc/self/status', 'utf8');
const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) / 1024;
const median = (ts: number[]) => [...ts].sort((a, b) => a - b)[Math.floor(ts.length / 2)]!;
const p90 = (ts: number[]) => [...ts].sort((a, b) => a - b)[Math.min(ts.length - 1, Math.floor(0.9 * ts.length))]!;
console.log(
  `${cases.length} queries; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}; first query (cold load) ` +
    sides.map((s, i) => `${s.name} ${loadMs[i]!.toFixed(0)} ms`).join(', ') +
    `; RSS after (whole process) ${kb('VmRSS').toFixed(0)} MB (anonymous ${kb('RssAnon').toFixed(0)}, file-backed ${kb('RssFile').toFixed(0)})`,
);
if (sides.length > 1) console.log(`result lists compared (ids and scores, top 10): ${compared}, differing: ${differ}`);
if (sides.length === 1) {
  console.log('| mode | median ms | p90 ms | max ms | first pass median ms |');
  console.log('|---|---|---|---|---|');
  for (const { name } of VARIANTS) {
    const ts = times[0]!.get(name)!;
    console.log(`| ${name} | ${median(ts).toFixed(1)} | ${p90(ts).toFixed(1)} | ${Math.max(...ts).toFixed(1)} | ${median(first[0]!.get(name)!).toFixed(1)} |`);
  }
} else {
  console.log('| mode | median ms, base → new | ratio | p90 ms, base → new | first pass median ms, base → new |');
  console.log('|---|---|---|---|---|');
  for (const { name } of VARIANTS) {
    const [b, n] = [times[0]!.get(name)!, times[1]!.get(name)!];
    const [fb, fn] = [first[0]!.get(name)!, first[1]!.get(name)!];
    console.log(
      `| ${name} | ${median(b).toFixed(1)} → ${median(n).toFixed(1)} | ${(median(b) / median(n)).toFixed(2)}× | ${p90(b).toFixed(1)} → ${p90(n).toFixed(1)} | ${median(fb).toFixed(1)} → ${median(fn).toFixed(1)} |`,
    );
  }
}
for (const s of sides) await s.close();

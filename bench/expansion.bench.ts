/**
 * Query expansion on the eval sets, off vs on in one run (hybrid mode, offline hash embedder), over
 * both bundles' tips indexed with the shipped config's chunkers; plus the expansion's own cost.
 *
 *   RAGSYNC_CORPORA=/work/shared/corpora npx tsx bench/expansion.bench.ts [--sets dev|heldout|all] [--db FILE] [--tune] [--base DIR]
 *
 * "on, no bookmarks glossary" is the defaults without the bookmarks profile's tech glossary.
 * --db keeps the index in FILE (reused when it exists: tuning runs skip the index); --tune also
 * tries other knobs (the ORed list of before concept scoring, weights, senses per word). Prints
 * hit@1/3/10 and MRR@10 per set for each variant, the p50 / p95 time of gathering one query's
 * expansions, and what expansion adds to a hybrid search: each query searched with and without
 * it, interleaved, twice (the first pass meets each term for the first time; the second finds the
 * lexicon rows and term sets the index keeps in memory, as a long-lived server does).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/builtin.ts';
import { readEvalFile, runEval, type Metrics } from '../src/search/eval.ts';
import { Searcher, type ExpansionTuning } from '../src/search/search.ts';

import { CORPORA } from '../tests/helpers/tmp.ts';
import { openSearcher, runIndex } from '../src/engine/library.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const which = arg('--sets') ?? 'dev';
const tune = process.argv.includes('--tune');
const keep = arg('--db');

const ALL_SETS = [
  'eval/classics.jsonl',
  'eval/bookmarks.jsonl',
  'bench/eval/classics-search.jsonl',
  'bench/eval/bookmarks-search.jsonl',
  ...(which === 'dev' || which === 'all' ? ['bookmarks-en', 'classics-en', 'classics-zh'].map((f) => `eval/dev/${f}.jsonl`) : []),
  ...(which === 'heldout' || which === 'all' ? ['bookmarks-en', 'classics-en', 'classics-zh'].map((f) => `eval/heldout/${f}.jsonl`) : []),
];

const only = arg('--only');
const SETS = only ? ALL_SETS.filter((s) => only.split(',').some((o) => s.includes(o))) : ALL_SETS;
const work = mkdtempSync(join(tmpdir(), 'ragsync-expansion-'));
const db = keep ? resolve(keep) : join(work, 'index.db');
const fresh = !existsSync(db);
for (const name of ['classics', 'bookmarks']) {
  execFileSync('git', ['clone', '--quiet', '--bare', join(CORPORA, `${name}.bundle`), join(work, `${name}.git`)]);
}
const base = JSON.parse(readFileSync(join(root, 'config', 'ragsync.json'), 'utf8')) as { sources: { name: string }[] };
const cfgFile = join(work, 'bench.json');
writeFileSync(
  cfgFile,
  JSON.stringify({ ...base, db, checkouts: join(work, 'checkouts'), sources: base.sources.map((s) => ({ ...s, url: join(work, `${s.name}.git`) })) }),
);
const config = loadConfig(cfgFile);
if (fresh || !keep) {
  const r = await runIndex(config);
  if (r.status !== 'ok') throw new Error(`index: ${r.status}`);
}

const searcher = openSearcher(config);
type Variant = { name: string; expand: boolean; env?: Record<string, string> } & Partial<ExpansionTuning>;
const variants: Variant[] = [
  { name: 'off', expand: false },
  { name: 'on, no bookmarks glossary', expand: true, env: { RAGSYNC_BOOKMARKS_GLOSSARY: '0' } },
  { name: 'on', expand: true },
  ...(tune
    ? [
        { name: 'ORed list (before concepts)', expand: true, concepts: false, perKey: 2, weight: 1, literalWeight: 0.3 },
        { name: 'on, weight 1', expand: true, weight: 1 },
        { name: 'on, weight 2', expand: true, weight: 2 },
        { name: 'on, weight 5', expand: true, weight: 5 },
        { name: 'on, 2 senses a word', expand: true, perKey: 2 },
        { name: 'on, 4 senses a word', expand: true, perKey: 4 },
        { name: 'on, literal weight 0.3', expand: true, literalWeight: 0.3 },
        { name: 'on, beside a profile list 3', expand: true, besideProfile: 3 },
        { name: 'on, no expanded vector', expand: true, expandVector: false },
      ]
    : []),
];
const f = (x: number) => x.toFixed(3);
const defaults = { ...searcher.tuning };
console.log('| set | variant | hit@1 | hit@3 | hit@10 | MRR@10 |');
console.log('|---|---|---:|---:|---:|---:|');
const all: Record<string, Metrics> = {};
for (const set of SETS) {
  const cases = readEvalFile(join(root, set));
  for (const v of variants) {
    const { name: _n, expand: _e, env, ...knobs } = v;
    searcher.tuning = { ...defaults, ...knobs };
    Object.assign(process.env, env);
    const m = (await runEval(searcher, cases, { mode: 'hybrid', expand: v.expand })).overall;
    for (const k of Object.keys(env ?? {})) delete process.env[k];
    all[`${set}\t${v.name}`] = m;
    console.log(`| ${set} (${m.queries}) | ${v.name} | ${f(m.hit1)} | ${f(m.hit3)} | ${f(m.hit10)} | ${f(m.mrr10)} |`);
  }
}
searcher.tuning = defaults;

// The expansion step alone (profiles' expanders + the lexicon lookup), per query of the English sets.
const queries = SETS.flatMap((s) => readEvalFile(join(root, s)).map((c) => c.query));
const times: number[] = [];
for (let round = 0; round < 3; round++) {
  for (const q of queries) {
    const t = performance.now();
    await searcher.expansionsOf(q, { expand: true }, undefined);
    times.push(performance.now() - t);
  }
}
times.sort((a, b) => a - b);
const pct = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!;
console.log(`expansion: p50 ${pct(0.5).toFixed(3)} ms, p95 ${pct(0.95).toFixed(3)} ms over ${times.length} queries`);

// What expansion adds to a hybrid search (k 10, each query restricted to its source), on a fresh
// searcher; with --base DIR (another checkout of the project, e.g. `git archive <commit> | tar -x
// -C DIR` with node_modules linked) that tree's searcher over the same index too, interleaved.
const cases = SETS.flatMap((s) => readEvalFile(join(root, s)));
type Search = { search(q: string, o: object): Promise<unknown>; close(): Promise<void> };
const trees: [string, Search][] = [['this tree', openSearcher(config)]];
const baseDir = arg('--base');
if (baseDir) {
  const b = resolve(baseDir);
  const { Searcher: BaseSearcher } = (await import(join(b, 'src/search/search.ts'))) as { Searcher: { open(c: unknown): Search } };
  const { loadConfig: baseLoad } = (await import(join(b, 'src/builtin.ts'))) as { loadConfig(f: string): unknown };
  trees.unshift([`base (${baseDir})`, BaseSearcher.open(baseLoad(cfgFile))]);
}
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!.toFixed(2);
for (const pass of ['first pass', 'second pass']) {
  const off = trees.map(() => [] as number[]);
  const on = trees.map(() => [] as number[]);
  for (const c of cases) {
    const opts = { k: 10, mode: 'hybrid' as const, sources: c.source ? [c.source] : undefined };
    for (const expand of [false, true]) {
      for (const [i, [, s]] of trees.entries()) {
        const t = performance.now();
        await s.search(c.query, { ...opts, expand });
        (expand ? on : off)[i]!.push(performance.now() - t);
      }
    }
  }
  for (const [i, [name]] of trees.entries()) {
    const added = on[i]!.map((x, j) => x - off[i]![j]!);
    console.log(
      `hybrid search, ${name}, ${pass}: off p50 ${q(off[i]!, 0.5)} ms, on p50 ${q(on[i]!, 0.5)} ms; added p50 ${q(added, 0.5)} ms, p90 ${q(added, 0.9)} ms over ${cases.length} queries`,
    );
  }
}
for (const [, s] of trees) await s.close();
if (arg('--json')) writeFileSync(arg('--json')!, JSON.stringify(all, null, 1));
await searcher.close();
rmSync(work, { recursive: true, force: true });

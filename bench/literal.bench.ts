/**
 * A literal match is never buried, and the expansions still help: every eval set (hybrid, default
 * settings: hit@1, hit@3, MRR@10) and the sentences sampled from the corpora
 * (tests/helpers/sentences.ts: passage at rank 1 / in the top 3), for the code of any checkout on
 * an index it has built, so one script gives before and after.
 *
 *   npx tsx bench/literal.bench.ts -c CONFIG [--root CHECKOUT] [--heldout] [--sets a.jsonl,b.jsonl] [--variants JSON] [--json OUT] [--misses]
 *
 * CONFIG: a config whose `classics` and `bookmarks` sources are clones of the bundles, indexed by
 * that checkout (`npx tsx src/cli/run.ts index --config CONFIG` there); the sentences are sampled
 * from its checkouts. --root: the checkout whose Searcher runs (default: this one; a worktree of an
 * older commit with node_modules linked). --heldout adds eval/heldout/* (judge only: never with
 * --variants). --variants compares expansion tunings (search.ts ExpansionTuning, plus
 * `"expand": false`), e.g. '{"defaults": {}, "weight 2": {"weight": 2}}'.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { loadConfig as LoadConfig } from '../src/builtin.ts';
import { readEvalFile, type runEval as RunEval } from '../src/search/eval.ts';
import type { Searcher as SearcherClass } from '../src/search/search.ts';
import { corpusDocs, PER_SOURCE, rankOf, sampleSentences, SEED } from '../tests/helpers/sentences.ts';
import { openSearcher } from '../src/engine/library.ts';

const here = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
const opt = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const configFile = opt('-c');
if (!configFile) throw new Error('usage: literal.bench.ts -c CONFIG [--root CHECKOUT] [--heldout] [--json OUT]');
const root = resolve(opt('--root') ?? here);
const { loadConfig } = (await import(join(root, 'src/builtin.ts'))) as { loadConfig: typeof LoadConfig };
const { Searcher } = (await import(join(root, 'src/search/search.ts'))) as { Searcher: typeof SearcherClass };
const { runEval } = (await import(join(root, 'src/search/eval.ts'))) as { runEval: typeof RunEval };

const SETS = opt('--sets')?.split(',') ?? [
  'eval/classics.jsonl',
  'eval/bookmarks.jsonl',
  'eval/dev/classics-zh.jsonl',
  'eval/dev/classics-en.jsonl',
  'eval/dev/bookmarks-en.jsonl',
  ...(args.includes('--heldout') ? ['eval/heldout/classics-zh.jsonl', 'eval/heldout/classics-en.jsonl', 'eval/heldout/bookmarks-en.jsonl'] : []),
];

const config = loadConfig(configFile);
const searcher = openSearcher(config);
// --variants '{"name": {"weight": 2}, "off": {"expand": false}}': expansion tunings (search.ts ExpansionTuning) to compare, dev sets only.
const variants = JSON.parse(opt('--variants') ?? '{"defaults": {}}') as Record<string, Record<string, unknown> & { expand?: boolean }>;
const f = (x: number) => x.toFixed(3);
const out: Record<string, { queries: number; hit1: number; hit3: number; mrr10: number }> = {};
const t0 = Date.now();
const defaults = { ...searcher.tuning };
try {
  const docs = ['classics', 'bookmarks'].flatMap((s) => corpusDocs(config, s, config.sources.find((x) => x.name === s)!.root));
  const sentences = sampleSentences(docs, ['classics', 'bookmarks'], PER_SOURCE, SEED);
  console.log(`| variant | set | queries | hit@1 | hit@3 | MRR@10 |\n|---|---|---:|---:|---:|---:|`);
  for (const [name, { expand, ...tuning }] of Object.entries(variants)) {
    searcher.tuning = { ...defaults, ...tuning };
    const row = (set: string, m: { queries: number; hit1: number; hit3: number; mrr10: number }) => {
      out[`${name}\t${set}`] = m;
      console.log(`| ${name} | ${set} | ${m.queries} | ${f(m.hit1)} | ${f(m.hit3)} | ${f(m.mrr10)} |`);
    };
    for (const set of SETS) row(set, (await runEval(searcher, readEvalFile(join(here, set)), expand === false ? { expand } : {})).overall);
    for (const source of ['classics', 'bookmarks', 'both']) {
      const ranks: (number | null)[] = [];
      for (const s of sentences.filter((x) => source === 'both' || x.source === source)) {
        const rank = rankOf(s, await searcher.search(s.query, expand === false ? { expand } : {}));
        ranks.push(rank);
        if (args.includes('--misses') && source !== 'both' && rank !== 1) console.error(`rank ${rank ?? '-'}\t${s.source}:${s.path}\t${s.query}`);
      }
      const at = (k: number) => ranks.filter((r) => r !== null && r <= k).length / ranks.length;
      row(`sampled sentences: ${source}`, { queries: ranks.length, hit1: at(1), hit3: at(3), mrr10: ranks.reduce<number>((a, r) => a + (r ? 1 / r : 0), 0) / ranks.length });
    }
  }
} finally {
  await searcher.close();
}
console.log(`root ${root}; ${((Date.now() - t0) / 1000).toFixed(0)} s`);
const jsonOut = opt('--json');
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(out, null, 1));

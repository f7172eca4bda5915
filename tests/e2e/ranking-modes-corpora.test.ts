import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODE_VARIANTS, modesBeatingDefault, readEvalFile, runModes, type EvalCase, type ModeVariant } from '../../src/search/eval.ts';
import { Searcher } from '../../src/search/search.ts';
import { openSearcher } from '../../src/engine/library.ts';
import { needCorpora } from '../helpers/corpora.ts';
import { breathe } from '../helpers/event-loop.ts';
import { codeCorpusIndex, shippedCorporaIndex, shippedCorporaSentences } from '../helpers/corpus-index.ts';
import { PER_SOURCE, rankOf, type Sentence } from '../helpers/sentences.ts';
import { REPO_ROOT } from '../helpers/tmp.ts';
import { EXAMINER_SETS } from '../../bench/eval-set-list.ts';

/**
 * The default search never loses to its own parts: on every eval set in the repository (both
 * halves of each) and on the sampled sentences, the default ranking finds at least as many at
 * hit@3 as the keyword list alone, the vector list alone and hybrid without expansions — on the
 * same index, within one query — and no set falls below its figure on main before per-query
 * fusion (FLOORS). Each corpus is indexed once with the shipped config; every set shares it.
 */

/** hit@3 of the default search per set on main before per-query fusion (cf0913f, hash embedder, shipped chunkers); a new set adds its own, a change that lifts a set raises its floor. */
const FLOORS: Record<string, number> = {
  'eval/classics.jsonl': 0.7,
  'eval/bookmarks.jsonl': 0.972,
  'bench/eval/classics-search.jsonl': 0.909,
  'bench/eval/bookmarks-search.jsonl': 0.943,
  'eval/dev/bookmarks-en.jsonl': 0.6,
  'eval/dev/classics-en.jsonl': 0.8,
  'eval/dev/classics-zh.jsonl': 0.371,
  'eval/heldout/bookmarks-en.jsonl': 0.433,
  'eval/heldout/classics-en.jsonl': 0.533,
  'eval/heldout/classics-zh.jsonl': 0.467,
  'eval/tune/classics.jsonl': 0.773,
  'eval/untouched/classics.jsonl': 0.68,
  // the code sets: main at 27ea062, after code ranking landed (BENCHMARKS.md, "Code search")
  'eval/dev/code.jsonl': 0.591,
  'eval/tune/code.jsonl': 0.746,
  'eval/untouched/code.jsonl': 0.8,
};

function jsonl(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? jsonl(join(dir, e.name)) : e.name.endsWith('.jsonl') ? [join(dir, e.name)] : [],
  );
}
const SETS = [...jsonl(join(REPO_ROOT, 'eval')), ...jsonl(join(REPO_ROOT, 'bench', 'eval'))]
  .map((f) => relative(REPO_ROOT, f))
  // the outside examiner's sets are reported by the benches, not guarded here until they get a floor
  .filter((f) => !EXAMINER_SETS.includes(f))
  .sort()
  .map((file) => ({ file, cases: readEvalFile(join(REPO_ROOT, file)) }));
const sourceOf = (cases: EvalCase[]) => cases[0]!.source!;
const BUNDLES = [...new Set(SETS.map((s) => sourceOf(s.cases)))].sort();

const corpus = needCorpora(...BUNDLES.map((b) => `${b}.bundle`));
const hits = (hit3: number, n: number) => Math.round(hit3 * n);

describe.skipIf(!corpus.ok)(corpus.title('the default search holds against each of its single lists on every eval set'), () => {
  /** One index of the shipped config's corpora, one of the code corpus (as the benches index them: its terms don't weigh on theirs). */
  const searchers = new Map<string, Searcher>();
  const sentenceSources = ['classics', 'bookmarks'].filter((s) => BUNDLES.includes(s));
  let sentences: Sentence[] = [];

  beforeAll(async () => {
    // The run's shared indexes (tests/helpers/corpus-index.ts), as the benches index the corpora.
    if (BUNDLES.some((b) => b !== 'code')) {
      const config = await shippedCorporaIndex();
      const searcher = openSearcher(config);
      for (const s of config.sources) if (BUNDLES.includes(s.name)) searchers.set(s.name, searcher);
      // The sentences the sampled-sentences test searches (tests/helpers/sentences.ts).
      sentences = (await shippedCorporaSentences()).filter((s) => sentenceSources.includes(s.source));
    }
    if (BUNDLES.includes('code')) searchers.set('code', openSearcher(await codeCorpusIndex()));
  }, 600_000);
  afterAll(async () => {
    for (const s of new Set(searchers.values())) await s.close();
  });

  it('every eval set has a floor', () => {
    expect(SETS.map((s) => s.file).filter((f) => FLOORS[f] === undefined)).toEqual([]);
  });

  it.each(SETS.map((s) => [s.file, s] as const))('%s: default ≥ keyword, vector and expansions off within one query, and ≥ its floor', async (_, set) => {
    const r = await runModes(searchers.get(sourceOf(set.cases))!, set.cases);
    const n = set.cases.length;
    const figures = Object.fromEntries(Object.entries(r).map(([m, x]) => [m, x.overall.hit3.toFixed(3)]));
    console.log(`${set.file} (${n}) hit@3 ${JSON.stringify(figures)}`);
    expect({ losesTo: modesBeatingDefault(r), figures }).toEqual({ losesTo: [], figures });
    expect(hits(r.default.overall.hit3, n), `hit@3 ${figures.default} below the floor ${FLOORS[set.file]}`).toBeGreaterThanOrEqual(hits(FLOORS[set.file] ?? 1, n));
  }, 300_000);

  it('sampled sentences: the default puts as many first and in the top 3 as each single list, within one', async () => {
    expect(sentences.length).toBe(PER_SOURCE * sentenceSources.length);
    const tally = {} as Record<ModeVariant, { first: number; top3: number }>;
    for (const [mode, opts] of Object.entries(MODE_VARIANTS) as [ModeVariant, (typeof MODE_VARIANTS)[ModeVariant]][]) {
      const t = (tally[mode] = { first: 0, top3: 0 });
      for (const s of sentences) {
        const rank = rankOf(s, await searchers.get(s.source)!.search(s.query, { ...opts, sources: sentenceSources }));
        await breathe();
        if (rank === 1) t.first++;
        if (rank !== null && rank <= 3) t.top3++;
      }
    }
    console.log(`sampled sentences (${sentences.length}): ${JSON.stringify(tally)}`);
    const d = tally.default;
    const losing = Object.entries(tally).filter(([, t]) => t.first > d.first + 1 || t.top3 > d.top3 + 1);
    expect(losing).toEqual([]);
  }, 600_000);
});

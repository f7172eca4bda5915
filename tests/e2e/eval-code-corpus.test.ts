import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinProfiles } from '../../src/builtin.ts';
import { readEvalFile, runEval, type EvalCase, type EvalReport } from '../../src/search/eval.ts';
import { Searcher } from '../../src/search/search.ts';

import { needCorpora } from '../helpers/corpora.ts';
import { codeCorpusIndex } from '../helpers/corpus-index.ts';
import { CORPORA, REPO_ROOT, tempDir } from '../helpers/tmp.ts';
import { openSearcher } from '../../src/engine/library.ts';

const corpora = needCorpora('code.bundle');
const squash = (s: string) => s.replace(/\s+/g, '');
const SETS = { 'dev/code': 22, 'tune/code': 59, 'untouched/code': 55, 'tune/code-x': 36, 'untouched/code-x': 34 } as const;
const read = (set: string): EvalCase[] => readEvalFile(join(REPO_ROOT, 'eval', `${set}.jsonl`));

/** The code eval sets against qmd's tip: gold and evidence hold, and code search finds definitions the way grep does. */
describe.runIf(corpora.ok)(corpora.title('code eval sets over code.bundle'), () => {
  const t = tempDir('ragsync-eval-code-');
  afterAll(t.cleanup);

  it('every gold file is at the tip and a code chunk of it holds its evidence', async () => {
    const dir = join(t.dir, 'qmd');
    execFileSync('git', ['clone', '--quiet', '--branch', 'main', join(CORPORA, 'code.bundle'), dir]);
    const chunker = builtinProfiles.createChunker('code', { targetTokens: 500, overlap: 0.15 });
    for (const [set, size] of Object.entries(SETS)) {
      const cases = read(set);
      expect(cases.length, set).toBe(size);
      await chunker.prepare!(cases.flatMap((c) => c.gold.map((g) => g.path)));
      for (const c of cases) {
        for (const g of c.gold) {
          const text = readFileSync(join(dir, g.path), 'utf8');
          const chunks = chunker.chunk({ path: g.path, text }).chunks.map((x) => squash(x.content));
          expect(g.evidence.some((e) => chunks.some((x) => x.includes(squash(e)))), `${c.id} ${g.path}`).toBe(true);
        }
      }
    }
  }, 60_000);

  describe('ranking, indexed as a code source', () => {
    let searcher: Searcher;
    const reports = new Map<string, EvalReport>();
    beforeAll(async () => {
      // The run's shared index of the code corpus (tests/helpers/corpus-index.ts).
      const config = await codeCorpusIndex();
      searcher = openSearcher(config);
      for (const set of ['tune/code', 'untouched/code']) {
        for (const mode of ['hybrid', 'keyword'] as const) reports.set(`${set} ${mode}`, await runEval(searcher, read(set), { mode }));
      }
    }, 600_000);
    afterAll(() => searcher?.close());

    it.each(['tune/code', 'untouched/code'])('%s: an identifier lookup puts the defining chunk first (≥ 9 in 10), in the default mode and the keyword mode', (set) => {
      for (const mode of ['hybrid', 'keyword']) {
        const ids = reports.get(`${set} ${mode}`)!.ranks.filter((r) => r.kind === 'identifier');
        expect(ids.length).toBeGreaterThanOrEqual(20);
        expect(ids.filter((r) => r.rank === 1).length / ids.length, `${set} ${mode}: ${ids.filter((r) => r.rank !== 1).map((r) => r.id)}`).toBeGreaterThanOrEqual(0.9);
      }
    });

    it.each(['tune/code', 'untouched/code'])('%s: the default search holds against its keyword list, ≥ .60 at hit@3, and Chinese questions find something', (set) => {
      const hybrid = reports.get(`${set} hybrid`)!;
      const keyword = reports.get(`${set} keyword`)!;
      expect(hybrid.overall.hit3).toBeGreaterThanOrEqual(keyword.overall.hit3);
      expect(hybrid.overall.mrr10).toBeGreaterThanOrEqual(keyword.overall.mrr10);
      expect(hybrid.overall.hit3).toBeGreaterThanOrEqual(0.6);
      expect(hybrid.byKind['zh-question']!.hit10).toBeGreaterThan(0);
    });

    it('codeSearch ranks as search does: the definition first', async () => {
      const tool = builtinProfiles.tools().find((x) => x.name === 'codeSearch')!;
      const scope = [{ name: 'code', kind: 'git', chunker: 'code' }];
      const hits = (await tool.run(
        async (q, o) => (await searcher.search(q, { k: o.k, sources: o.sources, path: o.path, filters: o.filters })).map((r) => ({ ...r, fields: r.fields })),
        { query: 'tryAcquireEmbedLock', k: 3 },
        scope,
        (w, o) => searcher.mentioning(w, o),
      )) as { path: string; symbol: string }[];
      expect(hits[0]).toMatchObject({ path: 'src/cli/embed-lock.ts', symbol: 'tryAcquireEmbedLock' });
    });
  });
});

// The classics eval sets over the real corpus on both storage backends: Postgres with exact vector
// search ranks every query as SQLite does (the same chunks in the same order, the same scores up to
// float rounding, the same eval figures); with its HNSW index (approximate: single lists may differ)
// the hybrid figures over all the sets stay within 0.02.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/builtin.ts';
import { isHit, readEvalFile, type EvalCase } from '../../src/search/eval.ts';
import { Searcher, type SearchMode } from '../../src/search/search.ts';
import { BACKENDS, type Backend } from '../helpers/backends.ts';
import { needCorpora } from '../helpers/corpora.ts';
import { pgQuery } from '../helpers/postgres.ts';
import { index } from '../helpers/index-fixture.ts';
import { CORPORA, REPO_ROOT, tempDir } from '../helpers/tmp.ts';
import { openSearcher } from '../../src/engine/library.ts';

// The sets with classics queries: the first eval set, the search bench's, and the query-analysis
// dev sets (English and Chinese paraphrases; these showed the backends apart).
const SETS = ['eval/classics.jsonl', 'bench/eval/classics-search.jsonl', 'eval/dev/classics-zh.jsonl', 'eval/dev/classics-en.jsonl'];
const MODES: SearchMode[] = ['hybrid', 'vector'];
/** Cosine scores agree to this: sqlite-vec and pgvector sum in different float orders. */
const SCORE_EPS = 1e-5;

const corpus = needCorpora('classics.bundle');
const both = BACKENDS.every((b) => b.ok);

type Ranked = { id: string; score: number; hit: boolean }[];

async function ranked(s: Searcher, c: EvalCase, mode: SearchMode): Promise<Ranked> {
  const results = await s.search(c.query, { k: 10, sources: ['classics'], mode });
  return results.map((r) => ({ id: r.id, score: r.score, hit: isHit(r, c) }));
}

const hit10 = (lists: Ranked[]) => lists.filter((l) => l.some((r) => r.hit)).length / lists.length;
const mrr10 = (lists: Ranked[]) =>
  lists.reduce((sum, l) => {
    const i = l.findIndex((r) => r.hit);
    return sum + (i >= 0 ? 1 / (i + 1) : 0);
  }, 0) / lists.length;

describe.skipIf(!corpus.ok || !both)(BACKENDS[1]!.title(corpus.title('the classics eval sets on SQLite and Postgres')), () => {
  const t = tempDir('ragsync-eval-backends-');
  let sqliteAt: ReturnType<Backend['fresh']> | undefined;
  let pgAt: ReturnType<Backend['fresh']> | undefined;
  let searchers: { sqlite: Searcher; exact: Searcher; hnsw: Searcher };
  /** Hybrid lists of every set, for the HNSW check over all of them. */
  const hybrid: Record<'sqlite' | 'hnsw', Ranked[]> = { sqlite: [], hnsw: [] };

  beforeAll(async () => {
    [sqliteAt, pgAt] = BACKENDS.map((b) => b.fresh());
    const bare = join(t.dir, 'classics.git');
    execFileSync('git', ['clone', '--quiet', '--bare', join(CORPORA, 'classics.bundle'), bare]);
    // The shipped config's classics source (its chunker and profile), from the local bundle.
    const shipped = JSON.parse(readFileSync(join(REPO_ROOT, 'config', 'ragsync.json'), 'utf8')) as { sources: { name: string }[] };
    const source = { ...shipped.sources.find((s) => s.name === 'classics')!, url: bare };
    const config = (db: string, search?: { exact: boolean }) =>
      parseConfig({ db, checkouts: join(t.dir, `checkouts-${db.startsWith('postgres') ? 'pg' : 'sqlite'}`), sources: [source], ...(search ? { search } : {}) });
    for (const db of [sqliteAt!.db, pgAt!.db]) expect((await index(config(db))).status).toBe('ok');
    // Statistics as a server gathers them in time: without them the planner takes a source filter
    // for a rare one and ranks by an exact scan, never walking the HNSW index.
    const schema = new URL(pgAt!.db).searchParams.get('schema')!;
    for (const table of ['sources', 'documents', 'chunks', 'vectors']) await pgQuery(`ANALYZE "${schema}".${table}`);
    searchers = {
      sqlite: openSearcher(config(sqliteAt!.db)),
      exact: openSearcher(config(pgAt!.db, { exact: true })),
      hnsw: openSearcher(config(pgAt!.db)),
    };
  }, 900_000);

  afterAll(async () => {
    for (const s of Object.values(searchers ?? {})) await s.close();
    for (const at of [sqliteAt, pgAt]) await at?.cleanup();
    t.cleanup();
  });

  it.each(SETS)(
    '%s: the same ranked results with exact search',
    async (set) => {
      const cases = readEvalFile(join(REPO_ROOT, set)).filter((c) => (c.source ?? 'classics') === 'classics');
      expect(cases.length).toBeGreaterThan(10);
      for (const mode of MODES) {
        const lists: Record<keyof typeof searchers, Ranked[]> = { sqlite: [], exact: [], hnsw: [] };
        for (const c of cases) {
          for (const b of ['sqlite', 'exact', 'hnsw'] as const) lists[b].push(await ranked(searchers[b], c, mode));
          const [a, e] = [lists.sqlite.at(-1)!, lists.exact.at(-1)!];
          const what = `${mode} ${c.id} ${c.query}`;
          expect(e.map((r) => r.id), what).toEqual(a.map((r) => r.id));
          expect(a.length, what).toBeGreaterThan(0);
          e.forEach((r, i) => expect(Math.abs(r.score - a[i]!.score), `${what} #${i + 1}`).toBeLessThanOrEqual(SCORE_EPS));
        }
        expect([hit10(lists.exact), mrr10(lists.exact)], mode).toEqual([hit10(lists.sqlite), mrr10(lists.sqlite)]);
        if (mode === 'hybrid') for (const b of ['sqlite', 'hnsw'] as const) hybrid[b].push(...lists[b]);
      }
    },
    600_000,
  );

  it('with the HNSW index: hybrid hit@10 and MRR@10 over all the sets within 0.02 of SQLite', () => {
    expect(hybrid.sqlite.length).toBeGreaterThan(100);
    // An approximate index may miss a neighbour: the figures, not every list, must hold.
    expect(Math.abs(hit10(hybrid.hnsw) - hit10(hybrid.sqlite))).toBeLessThanOrEqual(0.02);
    expect(Math.abs(mrr10(hybrid.hnsw) - mrr10(hybrid.sqlite))).toBeLessThanOrEqual(0.02);
  });
});

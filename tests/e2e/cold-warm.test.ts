/**
 * The one-shot strategy (VectorScan: the stored int8 codes streamed from the database, chunk facts
 * looked up per id — what `ragsync search` uses) and the long-lived one (VectorIndex: codes loaded
 * into memory, chunk facts cached — what serve/mcp/the agent tool use) rank alike: the same
 * results in the same order with the same scores, in every mode, for the project's eval queries
 * over both real corpora indexed with the offline embedder.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Searcher, type SearchMode, type SearchResult } from '../../src/search/search.ts';

import { needCorpora } from '../helpers/corpora.ts';
import { breathe } from '../helpers/event-loop.ts';
import { shippedCorporaIndex } from '../helpers/corpus-index.ts';
import { REPO_ROOT } from '../helpers/tmp.ts';
import { openSearcher } from '../../src/engine/library.ts';

const corpus = needCorpora('classics.bundle', 'bookmarks.bundle');
const MODES: SearchMode[] = ['hybrid', 'vector', 'keyword'];
// The whole tuning half of the classics: its paraphrases are where fusion weighs a query by its
// keyword hits' term counts, which both strategies must report alike.
const queries = ([['eval/classics.jsonl', 12], ['eval/bookmarks.jsonl', 12], ['eval/tune/classics.jsonl', Infinity]] as const).flatMap(([f, n]) =>
  readFileSync(join(REPO_ROOT, f), 'utf8')
    .split('\n')
    .filter(Boolean)
    .slice(0, n)
    .map((l) => JSON.parse(l) as { query: string; source?: string }),
);

// Both rank the same int8 codes through the same int8Rank and rescore through the store's cosine
// (or, without SIMD or codes, score float32 rows with the same kernel): equal in every field.
const sameRanking = (cold: SearchResult[], warm: SearchResult[]) => {
  expect(cold.map((r) => r.id)).toEqual(warm.map((r) => r.id));
  expect(cold).toEqual(warm);
};

describe.skipIf(!corpus.ok)(corpus.title('one-shot (streamed) and long-lived (in-memory) vectors, real corpora'), () => {
  let warm: Searcher;
  let cold: Searcher;

  beforeAll(async () => {
    const config = await shippedCorporaIndex();
    warm = openSearcher(config);
    cold = openSearcher(config, undefined, null, { oneShot: true });
  }, 600_000);
  afterAll(async () => {
    await warm?.close();
    await cold?.close();
  });

  it.each(MODES)('%s: the same ranked results for every query', async (mode) => {
    let compared = 0;
    for (const { query, source } of queries) {
      for (const sources of [undefined, source ? [source] : undefined]) {
        const opts = { mode, k: 10, sources };
        const [c, w] = [await cold.search(query, opts), await warm.search(query, opts)];
        sameRanking(c, w);
        compared += w.length;
        await breathe();
      }
    }
    expect(compared).toBeGreaterThan(queries.length * 5);
  });

  it('filters that reject most candidates widen the same way (book, path)', async () => {
    for (const opts of [{ filters: { book: 'qiongtong' } }, { path: 'content/命/三命通会/**' }, { mode: 'vector' as const, k: 40 }]) {
      sameRanking(await cold.search('甲木寅月用神', opts), await warm.search('甲木寅月用神', opts));
      await breathe();
    }
  });

  it('concept scoring counts the same chunks: broken ones left out or in, all sources or one', async () => {
    for (const query of ['how to build a message queue on Postgres', 'Rust async runtime 异步']) {
      for (const opts of [{}, { includeBroken: true }, { sources: ['bookmarks'] }, { sources: ['bookmarks'], includeBroken: true }]) {
        sameRanking(await cold.search(query, opts), await warm.search(query, opts));
        await breathe();
      }
    }
  });

  it('related: the same documents', async () => {
    const some = (await warm.search('伤官配印', { k: 3 })).map((r) => ({ source: r.source, path: r.path }));
    expect(some.length).toBe(3);
    for (const ref of some) {
      sameRanking(await cold.related(ref, { k: 8 }), await warm.related(ref, { k: 8 }));
      await breathe();
    }
  });
});

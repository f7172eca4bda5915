/**
 * The one-shot strategy (VectorScan: the stored int8 codes streamed from the database, chunk facts
 * looked up per id — what `ragsync search` uses) and the long-lived one (VectorIndex: codes loaded
 * into memory, chunk facts cached — what serve/mcp/the agent tool use) rank alike: the same
 * results in the same order with the same scores, in every mode, for the project's eval queries
 * over both real corpora indexed with the offline embedder.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import { Searcher, type SearchMode, type SearchResult } from '../../src/search/search.ts';

import { needCorpora } from '../helpers/corpora.ts';
import { CORPORA, REPO_ROOT, tempDir } from '../helpers/tmp.ts';
import { openSearcher, runIndex } from '../../src/engine/library.ts';

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

// Searches over SQLite are synchronous underneath: let the event loop (vitest's RPC) breathe between them.
const breathe = () => new Promise((r) => setImmediate(r));
// Both rank the same int8 codes through the same int8Rank and rescore through the store's cosine
// (or, without SIMD or codes, score float32 rows with the same kernel): equal in every field.
const sameRanking = (cold: SearchResult[], warm: SearchResult[]) => {
  expect(cold.map((r) => r.id)).toEqual(warm.map((r) => r.id));
  expect(cold).toEqual(warm);
};

describe.skipIf(!corpus.ok)(corpus.title('one-shot (streamed) and long-lived (in-memory) vectors, real corpora'), () => {
  const tmp = tempDir('ragsync-cold-warm-');
  let config: Config;
  let warm: Searcher;
  let cold: Searcher;

  beforeAll(async () => {
    for (const name of ['classics', 'bookmarks']) {
      execFileSync('git', ['clone', '--quiet', '--bare', join(CORPORA, `${name}.bundle`), join(tmp.dir, `${name}.git`)]);
    }
    const shipped = JSON.parse(readFileSync(join(REPO_ROOT, 'config', 'ragsync.json'), 'utf8')) as { sources: { name: string }[] };
    const file = join(tmp.dir, 'ragsync.json');
    writeFileSync(file, JSON.stringify({ ...shipped, db: 'index.db', checkouts: 'checkouts', sources: shipped.sources.map((s) => ({ ...s, url: `${s.name}.git` })) }));
    config = loadConfig(file);
    const r = await runIndex(config);
    expect(r.status).toBe('ok');
    warm = openSearcher(config);
    cold = openSearcher(config, undefined, null, { oneShot: true });
  }, 600_000);
  afterAll(async () => {
    await warm?.close();
    await cold?.close();
    tmp.cleanup();
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

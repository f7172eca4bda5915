import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { analyzerFingerprint, defaultAnalyzer, indexTokens, queryTerms } from '../../src/core/text/analyzer.ts';
import { DEFAULT_HEAD_WEIGHT, headWeight } from '../../src/search/field-weights.ts';
import { SqliteIndex } from '../../src/storage/sqlite/index.ts';
import { makeFixture, writeFixture, type Fixture } from '../helpers/search-fixture.ts';
import { keywordHits } from '../helpers/keyword-hits.ts';

function withEnv(name: string, value: string | undefined, fn: () => void): void {
  const old = process.env[name];
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
  try {
    fn();
  } finally {
    if (old === undefined) delete process.env[name];
    else process.env[name] = old;
  }
}

describe('English stemming in the keyword analyzer', () => {
  it('stems English words on the index and the query side alike', () => {
    expect(indexTokens(defaultAnalyzer, 'Retries with backoff; queues drained')).toEqual(['retri', 'with', 'backoff', 'queue', 'drain']);
    expect(queryTerms(defaultAnalyzer, 'retry')).toEqual(['retri']);
    expect(queryTerms(defaultAnalyzer, 'retrying queue')).toEqual(['retri', 'queue']);
  });

  it('leaves CJK, short words and non-ASCII words alone', () => {
    expect(indexTokens(defaultAnalyzer, '伤官 css café')).toEqual(['伤', '伤官', '官', 'css', 'café']);
  });

  it('RAGSYNC_STEM=0 turns it off, and the analyzer fingerprint says which (so a run re-indexes)', () => {
    const on = analyzerFingerprint(defaultAnalyzer);
    withEnv('RAGSYNC_STEM', '0', () => {
      expect(queryTerms(defaultAnalyzer, 'retries')).toEqual(['retries']);
      expect(analyzerFingerprint(defaultAnalyzer)).not.toBe(on);
    });
  });
});

let fx: Fixture;
beforeEach(async () => {
  fx = await makeFixture();
});
afterEach(() => fx.cleanup());

describe('keyword index: stemming and field weights through SQLite', () => {
  it('an indexed "retries" matches the query "retry"', async () => {
    const store = new SqliteIndex(fx.db);
    const hits = await keywordHits(store, { tokens: queryTerms(defaultAnalyzer, 'retry'), k: 10 });
    expect(hits.map((h) => h.path)).toContain('202401/2024-01-18-retries.md');
    await store.close();
  });

  it('a title match outranks a body match; head weight 0 ranks by the body alone', async () => {
    const store = new SqliteIndex(fx.db);
    await writeFixture(store, 'notes', [
      // The body says "compaction" several times, but the passage is about something else.
      { path: 'body.md', title: 'Storage engines', chunks: [['Storage engines', 'LSM trees need compaction; compaction merges runs; leveled compaction bounds reads.']] },
      { path: 'title.md', title: 'Compaction', chunks: [['Compaction', 'Merging sorted runs in the background keeps reads fast and reclaims space once.']] },
    ]);
    const tokens = queryTerms(defaultAnalyzer, 'compaction');
    const order = async (headWeight: number) =>
      (await keywordHits(store, { tokens, k: 10, headWeight, filter: { sources: ['notes'] } })).map((h) => h.path);
    expect(await order(3)).toEqual(['title.md', 'body.md']);
    expect(await order(0)).toEqual(['body.md', 'title.md']);
    await store.close();
  });

  it('tags count as head', async () => {
    const store = new SqliteIndex(fx.db);
    await writeFixture(store, 'notes', [
      { path: 'a.md', chunks: [['A', 'Kubernetes operators reconcile state; kubernetes controllers loop.', {}]] },
      { path: 'b.md', chunks: [['B', 'Controllers watch resources and reconcile them with kubernetes.', { tags: ['kubernetes'] }]] },
    ]);
    const tokens = queryTerms(defaultAnalyzer, 'kubernetes');
    const hits = await keywordHits(store, { tokens, k: 10, headWeight: 4, filter: { sources: ['notes'] } });
    expect(hits[0]!.path).toBe('b.md');
    await store.close();
  });
});

describe('RAGSYNC_HEAD_WEIGHT', () => {
  it('defaults, overrides, refuses nonsense', () => {
    expect(headWeight({})).toBe(DEFAULT_HEAD_WEIGHT);
    expect(headWeight({ RAGSYNC_HEAD_WEIGHT: '0' })).toBe(0);
    expect(headWeight({ RAGSYNC_HEAD_WEIGHT: '2.5' })).toBe(2.5);
    expect(() => headWeight({ RAGSYNC_HEAD_WEIGHT: '-1' })).toThrow(/RAGSYNC_HEAD_WEIGHT/);
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HashEmbedder } from '../../src/embedding/hash.ts';
import { SqliteIndex } from '../../src/storage/sqlite/index.ts';
import { compactKeywordIndex, keywordSegments, MAX_KEYWORD_SEGMENTS } from '../../src/storage/sqlite/keyword-segments.ts';
import { makeFixture, writeFixture, type Fixture } from '../helpers/search-fixture.ts';

let fx: Fixture;
beforeEach(async () => {
  fx = await makeFixture();
});
afterEach(() => fx.cleanup());

/** Every row each query matches, with its BM25 score, in rank order: what merging must leave alone. */
function rankings(store: SqliteIndex): unknown[] {
  const stmt = store.db.prepare('SELECT rowid, bm25(chunks_fts, 2, 1) FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY 2, rowid').raw();
  return ['"note"', '"note" OR "queue" OR "cache"', '"伤官"', '"甲木" OR "丙火"', '"batch" AND "note"'].map((q) => stmt.all(q));
}

describe('keyword index segments', () => {
  it('pile up one per write and are merged at the end of a run once past the limit, ranking the same', async () => {
    const store = new SqliteIndex(fx.db);
    // Left to itself FTS5 merges segments level by level (and all of them at 16); off here, so
    // each write's segment stays.
    store.db.prepare("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('automerge', 0)").run();
    const start = keywordSegments(store.db);
    expect(start).toBeGreaterThan(1); // the fixture's own writes
    for (let i = 0; start + i <= MAX_KEYWORD_SEGMENTS; i++) {
      await writeFixture(store, 'bookmarks', [{ path: `batch/${i}.md`, chunks: [['Batch', `batch note ${i} about queue and cache, written alone`]] }]);
    }
    const before = rankings(store);
    expect(keywordSegments(store.db)).toBeGreaterThan(MAX_KEYWORD_SEGMENTS);
    expect(await compactKeywordIndex(store.db, 1000)).toBe(false); // under its limit: left alone
    // The run's last step (run.ts) merges them.
    await store.writer.refreshCodePack(new HashEmbedder(256).info.fingerprint);
    expect(keywordSegments(store.db)).toBe(1);
    expect(rankings(store)).toEqual(before);
    expect(await compactKeywordIndex(store.db)).toBe(false);
    await store.close();
  });
});

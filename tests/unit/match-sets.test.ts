import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { queryTerms } from '../../src/core/text/analyzer.ts';
import { bookmarksProfile } from '../../src/profiles/bookmarks/index.ts';
import { SqliteIndex } from '../../src/storage/sqlite/index.ts';
import { makeFixture, writeFixture, type Fixture } from '../helpers/search-fixture.ts';

let fx: Fixture;
beforeEach(async () => {
  fx = await makeFixture();
  // Broken flags every way the facts read them: a document's (its chunks without one of their own),
  // a chunk's own true, and a chunk's own false under a broken document (the chunk's flag wins).
  const store = new SqliteIndex(fx.db);
  await writeFixture(store, 'bookmarks', [
    { path: 'mixed.md', metadata: { broken: true }, chunks: [['A', 'cache layers and queues'], ['B', 'queues and cache again', { broken: false }]] },
    { path: 'own.md', chunks: [['C', 'a cache note', { broken: 'true' }], ['D', 'a queue note']] },
  ]);
  await store.close();
});
afterEach(() => fx.cleanup());

describe('one-shot match sets', () => {
  it('hold the chunks, positions and counts the cached facts give, for every filter shape', async () => {
    const cached = new SqliteIndex(fx.db, 'read');
    const once = new SqliteIndex(fx.db, 'read', true);
    const terms = (q: string) => queryTerms(bookmarksProfile.analyzer!, q);
    const lists = [terms('cache'), terms('queues'), terms('cache queues'), ['nothinglikethis'], [], terms('SQLite')];
    expect(lists.slice(0, 3).every((l) => l.length > 0)).toBe(true);
    const filters = [
      undefined,
      { includeBroken: true },
      { sources: ['bookmarks'] },
      { sources: ['bookmarks'], includeBroken: true },
      { sources: ['classics'] },
      { sources: ['nope'] },
      { path: '*.md' },
    ];
    for (const filter of filters) {
      const [a, b] = [await cached.matchSets!(lists, filter), await once.matchSets!(lists, filter)];
      // Positions differ (all chunks vs the matched ones); the chunks they stand for must not.
      const chunks = (m: typeof a) => m.sets.map((s) => [...s].map((p) => m.refs[p]));
      expect(chunks(b), JSON.stringify(filter)).toEqual(chunks(a));
      expect({ total: b.total, filtered: b.filtered }).toEqual({ total: a.total, filtered: a.filtered });
      // Ascending chunk ids keep ascending positions: ties break alike.
      for (const s of b.sets) expect([...s]).toEqual([...s].sort((x, y) => x - y));
    }
    const plain = await once.matchSets!([terms('cache')], undefined);
    const names = cached.db.prepare('SELECT c.id, c.key FROM chunks c').all() as { id: number; key: string }[];
    const keyOf = new Map(names.map((r) => [r.id, r.key]));
    expect([...plain.sets[0]!].map((p) => keyOf.get(plain.refs[p]!)).sort()).toEqual(['mixed.md#1']);
    await cached.close();
    await once.close();
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/builtin.ts';
import { Searcher } from '../../src/search/search.ts';
import { closestValues } from '../../src/search/closest.ts';
import { SqliteIndex } from '../../src/storage/sqlite/index.ts';
import { makeFixture, writeFixture, type Fixture, type FixtureDoc } from '../helpers/search-fixture.ts';
import { openSearcher } from '../../src/engine/library.ts';

const pad = (n: number) => String(n).padStart(2, '0');
/** 48 bookmarks: tags topic-00 … topic-47 (and "database" on every fourth), one a month from 2021-01. */
const MANY: FixtureDoc[] = Array.from({ length: 48 }, (_, i) => {
  const month = `${2021 + Math.floor(i / 12)}-${pad((i % 12) + 1)}`;
  return {
    path: `many/${i}.md`,
    title: `Note ${i}`,
    metadata: { tags: [`topic-${pad(i)}`, ...(i % 4 ? [] : ['database'])], added_at: `${month}-10T08:00:00Z`, month: month.replace('-', '') },
    chunks: [['TL;DR', `note number ${i} about caching layers`]],
  };
});

let fx: Fixture;
let searcher: Searcher;
/** How often the store was asked for known values (the lists cost a pass over every chunk). */
let listings = 0;
beforeEach(async () => {
  fx = await makeFixture();
  const store = new SqliteIndex(fx.db);
  await writeFixture(store, 'bookmarks', MANY);
  await store.close();
  searcher = openSearcher(loadConfig(fx.configFile));
  const list = searcher.store.fieldValues.bind(searcher.store);
  listings = 0;
  searcher.store.fieldValues = (...a) => (listings++, list(...a));
});
afterEach(async () => {
  await searcher.close();
  fx.cleanup();
});

const refusal = (p: Promise<unknown>) => p.then(() => 'no error', (e: Error) => e.message);

describe('filter values no chunk has', () => {
  it('a long list names the closest known values and how many there are', async () => {
    expect(await refusal(searcher.search('caching', { filters: { tag: 'topic-7' } }))).toBe(
      'tag "topic-7" is not a known value and no indexed chunk has it (closest known: topic-07|topic-17|topic-27|topic-37|topic-47|topic-00|topic-01|topic-02, of 52)',
    );
    expect(await refusal(searcher.search('caching', { filters: { tag: 'databse' } }))).toMatch(/\(closest known: database\|/);
    // Months by time apart: the earliest ones for a month before them all.
    expect(await refusal(searcher.search('caching', { filters: { month: '1999-01' } }))).toBe(
      'month "1999-01" is not a known value and no indexed chunk has it (closest known: 2021-01|2021-02|2021-03|2021-04|2021-05|2021-06|2021-07|2021-08, of 48)',
    );
    expect(await refusal(searcher.search('caching', { filters: { month: '202506' } }))).toMatch(/\(closest known: 2024-12\|2024-11\|/);
  });

  it('valid values cost no listing; the lists are kept per index generation', async () => {
    expect((await searcher.search('caching', { filters: { tag: ['database', 'topic-04'] } })).map((r) => r.path)).toEqual(['many/4.md']);
    expect(await searcher.search('caching', { mode: 'keyword', filters: { tag: 'topic-04', month: '2021-06' } })).toEqual([]);
    expect(listings).toBe(0);

    expect(await refusal(searcher.search('caching', { filters: { tag: 'topic-99' } }))).toMatch(/^tag "topic-99"/);
    expect(await refusal(searcher.search('caching', { filters: { tag: 'topic-98' } }))).toMatch(/^tag "topic-98"/);
    expect(listings).toBe(2);
    const before = await searcher.store.fieldValues(['tags'], 'element');

    // A sync adds a tag: the next refusal knows it.
    const store = new SqliteIndex(fx.db);
    await writeFixture(store, 'bookmarks', [{ path: 'new.md', metadata: { tags: ['topic-99x'] }, chunks: [['TL;DR', 'fresh caching note']] }]);
    await store.close();
    const after = await searcher.store.fieldValues(['tags'], 'element');
    expect(after.length).toBe(before.length + 1);
    expect(await refusal(searcher.search('caching', { filters: { tag: 'topic-99' } }))).toMatch(/\(closest known: topic-99x\|/);
    expect(await searcher.search('fresh', { filters: { tag: 'topic-99x' } })).not.toEqual([]);
  });

  it('related refuses an unknown value too', async () => {
    expect(await refusal(searcher.related({ source: 'bookmarks', path: 'many/1.md' }, { filters: { tag: ['nosuchtag'] } }))).toMatch(
      /^tag "nosuchtag" is not a known value and no indexed chunk has it \(closest known: /,
    );
  });
});

describe('closestValues', () => {
  it('ranks by edit distance without case, containment nearer, ties in the given order', () => {
    expect(closestValues('Postgres', ['sqlite', 'postgresql', 'pg', 'mongo'], 2)).toEqual(['postgresql', 'pg']);
    expect(closestValues('2024-06', ['2023-01', '2024-05', '2024-08', '2025-06'], 3, true)).toEqual(['2024-05', '2024-08', '2025-06']);
  });
});

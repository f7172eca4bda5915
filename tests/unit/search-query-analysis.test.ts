import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/builtin.ts';
import { Searcher } from '../../src/search/search.ts';
import { makeFixture, type Fixture } from '../helpers/search-fixture.ts';
import { openSearcher } from '../../src/engine/library.ts';

let fx: Fixture;
let searcher: Searcher;
beforeEach(async () => {
  fx = await makeFixture();
  searcher = openSearcher(loadConfig(fx.configFile));
});
afterEach(async () => {
  await searcher.close();
  fx.cleanup();
});

describe('classics query analysis through search', () => {
  it('an English question finds the Chinese passage through the glossary; expand: false does not', async () => {
    const on = await searcher.searchDetailed('Hurting Officer paired with Resource', { sources: ['classics'], k: 3, explain: true });
    expect(on.results[0]!.content).toContain('伤官配印');
    expect(on.expansions!.find((e) => e.term === '伤官')).toMatchObject({ via: 'glossary', from: 'Hurting Officer' });
    const off = await searcher.search('Hurting Officer paired with Resource', { sources: ['classics'], k: 1, expand: false });
    expect(off[0]?.content ?? '').not.toContain('伤官配印');
  });

  it('a modern question gets the books’ entry heading: 甲木 born in the first month → 寅月甲木', async () => {
    const r = await searcher.searchDetailed('甲木生在春天的第一个月，立春以后', { sources: ['classics'], k: 1, explain: true });
    expect(r.expansions!.map((e) => e.term)).toContain('寅月甲木');
    expect(r.results[0]!.path).toBe('qiongtong/jiamu.md');
    expect(r.results[0]!.content).toContain('正月甲木');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinProfiles } from '../../src/builtin.ts';
import { parseConfig, type Config } from '../../src/config/load.ts';
import { createProfileRegistry, type Expansion, type Profile } from '../../src/core/profile.ts';
import { expansionWeightOf, gatherExpansions, MAX_EXPANSIONS } from '../../src/search/expand.ts';
import { Searcher } from '../../src/search/search.ts';

import { tempDir } from '../helpers/tmp.ts';
import { builtinSourceKinds } from '../../src/sources/registry.ts';
import { openSearcher, runIndex } from '../../src/engine/library.ts';

const e = (term: string, weight = 1, from = 'x', via = 'test'): Expansion => ({ term, from, weight, via });

describe('gatherExpansions', () => {
  it('keeps one entry per term (the strongest), drops what the query says, strongest first', async () => {
    const out = await gatherExpansions('Fast queue', [
      () => [e('队列', 0.5, 'queue', 'lexicon'), e('快速', 0.4), e('fast', 1)],
      async () => [e('队列', 0.9, 'queue', 'glossary'), e('排队', 0.3)],
    ]);
    expect(out).toEqual([e('队列', 0.9, 'queue', 'glossary'), e('快速', 0.4), e('排队', 0.3)]);
  });

  it('caps the list, skips an expander that throws, ignores weightless terms', async () => {
    const many = Array.from({ length: 40 }, (_, i) => e(`词${i}`, 1 - i / 100));
    const out = await gatherExpansions('q', [() => many, () => { throw new Error('broken'); }, () => [e('零', 0)]]);
    expect(out).toHaveLength(MAX_EXPANSIONS);
    expect(out[0]!.term).toBe('词0');
    expect(out.some((x) => x.term === '零')).toBe(false);
  });

  it('a hit earns the strongest expansion its text holds', () => {
    const xs = [e('队列', 0.5), e('消息队列', 1), e('排队', 0.25)];
    expect(expansionWeightOf('用消息队列解耦', xs)).toBe(1);
    expect(expansionWeightOf('排队理论', xs)).toBe(0.25);
    // Matched through a field the text does not show: the weakest in force.
    expect(expansionWeightOf('nothing here', xs)).toBe(0.25);
  });
});

// A profile with a tiny glossary: English words → the corpus's Chinese terms.
const glossy: Profile = {
  name: 'glossy',
  description: 'test profile with a glossary',
  expandQuery: (q) =>
    [
      /\bsorting\b/i.test(q) ? [e('排序', 1, 'sorting', 'glossary')] : [],
      /\bquick\b/i.test(q) ? [e('快速', 0.5, 'quick', 'glossary')] : [],
    ].flat(),
};

describe('expansion in search', () => {
  let t: ReturnType<typeof tempDir>;
  const configs = {} as { on: Config; off: Config };
  const searchers: Searcher[] = [];
  beforeAll(async () => {
    t = tempDir();
    mkdirSync(join(t.dir, 'docs'));
    writeFileSync(join(t.dir, 'docs', 'english.md'), '# Quick sorting\n\nQuick sorting of arrays in place, with a pivot.\n');
    writeFileSync(join(t.dir, 'docs', 'chinese.md'), '# 算法\n\n快速排序是一种分治的排序算法。\n');
    writeFileSync(join(t.dir, 'docs', 'other.md'), '# 苹果\n\n苹果和梨都是水果。\n');
    const registry = createProfileRegistry([...builtinProfiles.profiles, glossy]);
    const base = { db: join(t.dir, 'i.db'), sources: [{ name: 'notes', kind: 'dir', path: join(t.dir, 'docs'), profile: 'glossy' }] };
    configs.on = parseConfig(registry, builtinSourceKinds, base);
    configs.off = parseConfig(registry, builtinSourceKinds, { ...base, search: { expand: false } });
    expect((await runIndex(configs.on)).status).toBe('ok');
  });
  afterAll(async () => {
    for (const s of searchers) await s.close();
    t.cleanup();
  });
  const open = (c: Config) => {
    const s = openSearcher(c);
    searchers.push(s);
    return s;
  };

  it('finds a passage through its expansion, below the passage holding the query\'s own words, and explains it', async () => {
    const s = open(configs.on);
    const r = await s.searchDetailed('quick sorting', { explain: true });
    expect(r.expansions).toEqual([e('排序', 1, 'sorting', 'glossary'), e('快速', 0.5, 'quick', 'glossary')]);
    const paths = r.results.map((x) => x.path);
    expect(paths.indexOf('english.md')).toBe(0);
    expect(paths.indexOf('chinese.md')).toBe(1);
    const zh = r.results[1]!;
    expect(zh.explain!.keyword).toBeNull();
    // The concept list holds the query's own words too: the English passage covers both concepts
    // by them and comes first there; the Chinese one covers both by their expansions.
    expect(zh.explain!.expansion).toMatchObject({ rank: 2, weight: 1 });
    const own = r.results[0]!.explain!;
    expect(own.keyword!.rank).toBe(1);
    expect(own.expansion!.rank).toBe(1);
    // "quick sorting" names the English passage (literal): the expansion list counts at the literal weight.
    const vector = zh.explain!.vector ? 1 / (60 + zh.explain!.vector.rank) : 0;
    expect(zh.score - vector).toBeCloseTo(s.tuning.literalWeight / 62, 6);
  });

  it('the weight scales the expansion list: a lower tuning weight lowers the expanded hit\'s score', async () => {
    const s = open(configs.on);
    const score = async (w: number) => {
      s.tuning = { ...s.tuning, literalWeight: w };
      return (await s.search('quick sorting', { explain: true })).find((x) => x.path === 'chinese.md')!.score;
    };
    const hi = await score(0.8);
    const lo = await score(0.2);
    expect(hi - lo).toBeCloseTo(0.6 / 62, 6);
  });

  it('turns off per request (expand: false) and in the config (search.expand: false)', async () => {
    const on = open(configs.on);
    const off = await on.searchDetailed('quick sorting', { explain: true, expand: false });
    expect(off.expansions).toEqual([]);
    expect(off.results.every((x) => x.explain!.expansion === null)).toBe(true);
    const cfgOff = await open(configs.off).searchDetailed('quick sorting', { explain: true });
    expect(cfgOff.expansions).toEqual([]);
    // Keyword mode stays literal: the Chinese passage is not a keyword hit of "quick sorting".
    const kw = await on.search('quick sorting', { mode: 'keyword' });
    expect(kw.map((x) => x.path)).toEqual(['english.md']);
  });
});

describe('literalShare', () => {
  it('is the share of the query\'s English content words (by key) the text holds', async () => {
    const { literalShare } = await import('../../src/search/expand.ts');
    expect(literalShare('JavaScript performance optimization tips', 'Optimizing JavaScript for fun')).toBeCloseTo(2 / 4);
    expect(literalShare('how do queues work', '队列')).toBe(0);
    expect(literalShare('队列', 'anything')).toBe(0);
  });
});

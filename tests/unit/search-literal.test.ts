import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinProfiles } from '../../src/builtin.ts';
import { parseConfig } from '../../src/config/load.ts';
import { createProfileRegistry, type Profile } from '../../src/core/profile.ts';
import { defaultAnalyzer, indexTerms, indexTokens, type Analyzer } from '../../src/core/text/analyzer.ts';
import { literalFirst, literalPatterns, tokensPattern } from '../../src/search/literal.ts';
import { DEFAULT_PER_DOC, parseSearchRequest, type SearchOptions } from '../../src/search/request.ts';
import { Searcher } from '../../src/search/search.ts';

import { tempDir } from '../helpers/tmp.ts';
import { builtinSourceKinds } from '../../src/sources/registry.ts';
import { openSearcher, runIndex } from '../../src/engine/library.ts';

const holds = (text: string, query: string, analyzers: Analyzer[] = [defaultAnalyzer]) =>
  literalPatterns(query, analyzers).some((p) => analyzers.some((a) => p.test(indexTerms(a, text))));

describe('literal patterns', () => {
  it('match the query\'s tokens in order on stored terms, a bigram allowed where the query breaks a CJK run', () => {
    const p = tokensPattern(indexTokens(defaultAnalyzer, '克，我 JIRA'));
    expect(p.source).toContain('(?: 克我)?');
    expect(p.test('甲 克 克我 我 jira 票')).toBe(true);
    expect(p.test('克 我 jira')).toBe(true);
    expect(p.test('克 克者 我 jira')).toBe(false);
    expect(p.test('x克 克我 我 jira')).toBe(false);
    expect(p.test('克 克我 我 jiras')).toBe(false);
  });

  it('a text holds the query in order, folded, whatever the punctuation and spacing', () => {
    expect(holds('书云：克我者应为官杀，我克者应为妻财', '克我者，應為官殺')).toBe(true);
    expect(holds('克我者应为官杀', '克我者 应为 官杀')).toBe(true);
    // The text may not break what the query writes as one run.
    expect(holds('克我者，应为官杀', '克我者应为官杀')).toBe(false);
    expect(holds('官杀克我者', '克我者应为官杀')).toBe(false);
    expect(holds('完成JIRA票务处理的误区', 'JIRA票务处理')).toBe(true);
  });

  it('compares English words whole (by stem): "art" is not in "start"', () => {
    expect(holds('Start the party', 'art')).toBe(false);
    expect(holds('the art of it', 'art')).toBe(true);
    expect(holds('finding memory leaks in production', 'memory leak')).toBe(true);
  });

  it('under any analyzer in force; none for a query without letters or digits', () => {
    expect(holds('论羊刃', '陽刃')).toBe(false);
    // 阳刃 and 羊刃 are one term to the classics normaliser, on both sides.
    expect(holds('论羊刃', '陽刃', [defaultAnalyzer, builtinProfiles.get('classics').analyzer!])).toBe(true);
    expect(literalPatterns('？！', [defaultAnalyzer])).toEqual([]);
  });

  it('puts the literal candidates first, each part in its own order', () => {
    const list = [1, 2, 3, 4, 5].map((ref) => ({ ref, score: 10 - ref }));
    expect(literalFirst(list, new Set([4, 2])).map((c) => c.ref)).toEqual([2, 4, 1, 3, 5]);
    expect(literalFirst(list, new Set()).map((c) => c.ref)).toEqual([1, 2, 3, 4, 5]);
  });
});

// A profile whose thesaurus turns the query into a heavily weighted other term.
const thesaurus: Profile = {
  name: 'thesaurus',
  description: 'test profile with strong expansions',
  expandQuery: (q) => (q.includes('官杀') ? [{ term: '官杀混杂', from: '官杀', weight: 1, via: 'test' }] : []),
  expansionWeight: 3,
};

describe('the literal stage and the per-document cap in hybrid search', () => {
  let t: ReturnType<typeof tempDir>;
  let s: Searcher;
  beforeAll(async () => {
    t = tempDir();
    const dir = join(t.dir, 'docs');
    mkdirSync(dir);
    // Passages about 官杀混杂 that say the expansion again and again, and one quoting the line once.
    for (let i = 0; i < 12; i++) writeFileSync(join(dir, `mixed-${i}.md`), `# 官杀混杂${i}\n\n官杀混杂，官杀混杂者贱。论官杀混杂第${i}。\n`);
    // Other documents, distinct (not collapsed as near-duplicates), and one long document whose
    // every section says the term: a per-document cap keeps a few of it ahead of the others.
    for (let i = 0; i < 12; i++) writeFileSync(join(dir, `other-${i}.md`), `# 其${i}\n\n${'甲乙丙丁戊己庚辛壬癸子丑'[i]}${'寅卯辰巳午未申酉戌亥子丑'[11 - i]}之象，伤官${i}月令也。\n`);
    writeFileSync(join(dir, 'long.md'), Array.from({ length: 8 }, (_, i) => `## 第${i}节\n\n论伤官配印之法，其${i}。`).join('\n\n'));
    writeFileSync(join(dir, 'quote.md'), '# 论六亲\n\n生我者为父母，我生者为子孙，克我者應為官殺，我克者为妻财，此理甚明。\n');
    const registry = createProfileRegistry([...builtinProfiles.profiles, thesaurus]);
    const config = parseConfig(registry, builtinSourceKinds, { db: join(t.dir, 'i.db'), sources: [{ name: 'notes', kind: 'dir', path: dir, profile: 'thesaurus' }] });
    expect((await runIndex(config)).status).toBe('ok');
    s = openSearcher(config);
  });
  afterAll(async () => {
    await s?.close();
    t?.cleanup();
  });

  it('ranks the passage holding the quoted words first, above what the expansions bring, and says so', async () => {
    const r = await s.searchDetailed('克我者，应为官杀', { explain: true });
    expect(r.expansions!.map((e) => e.term)).toEqual(['官杀混杂']);
    expect(r.results[0]!.path).toBe('quote.md');
    expect(r.results[0]!.explain!.literal).toBe(true);
    expect(r.results.slice(1).every((x) => x.explain!.literal === false)).toBe(true);
    // The expansion hits fill the places below.
    expect(r.results.slice(1).some((x) => x.path.startsWith('mixed-'))).toBe(true);
  });

  it('without the words in order no passage is literal: the fused order stands', async () => {
    const r = await s.searchDetailed('官杀应为克我者', { explain: true });
    expect(r.results.every((x) => x.explain!.literal === false)).toBe(true);
  });

  it('caps the results of one document ahead of others in hybrid mode (DEFAULT_PER_DOC, perDoc 0 = none), not in the single-list modes', async () => {
    const fromLong = async (o: SearchOptions) => (await s.search('伤官配印', o)).filter((x) => x.path === 'long.md').length;
    expect(await fromLong({})).toBe(DEFAULT_PER_DOC);
    expect(await fromLong({ perDoc: 1 })).toBe(1);
    expect(await fromLong({ perDoc: 0 })).toBe(8);
    expect(await fromLong({ mode: 'keyword' })).toBe(8);
    expect(await fromLong({ mode: 'keyword', perDoc: 2 })).toBe(2);
    // When no other document is found, its other chunks still fill the places, after the capped ones.
    expect((await s.search('配印之法', { mode: 'keyword', perDoc: 2 })).filter((x) => x.path === 'long.md').length).toBe(8);
    expect(() => parseSearchRequest({ query: 'x', perDoc: -1 })).toThrow(/perDoc must be ≥ 0/);
  });

  it('keyword and vector modes have no literal stage', async () => {
    for (const mode of ['keyword', 'vector'] as const) {
      const r = await s.searchDetailed('克我者，应为官杀', { explain: true, mode });
      expect(r.results.every((x) => x.explain!.literal === false)).toBe(true);
    }
  });
});

// A profile whose one expansion (丙丁 → 壬癸) outweighs the query's own lists three to one.
const synonyms: Profile = {
  name: 'synonyms',
  description: 'test profile with one strong synonym',
  expandQuery: (q) => (q.includes('丙丁') ? [{ term: '壬癸', from: '丙丁', weight: 1, via: 'test' }] : []),
  expansionWeight: 3,
};

describe('the query\'s own words over synonyms in hybrid search', () => {
  let t: ReturnType<typeof tempDir>;
  let s: Searcher;
  beforeAll(async () => {
    t = tempDir();
    const notes = join(t.dir, 'notes');
    mkdirSync(notes);
    // Passages holding only the synonym, and one holding every word of the query, not in its order.
    for (let i = 0; i < 8; i++) writeFileSync(join(notes, `synonym-${i}.md`), `# 第${i}则\n\n壬癸之${'子丑寅卯辰巳午未'[i]}，壬癸者${'东南西北中上下外'[i]}也。\n`);
    writeFileSync(join(notes, 'holder.md'), '# 论五行\n\n论丙丁，甲乙丙之说。\n');
    const registry = createProfileRegistry([...builtinProfiles.profiles, synonyms]);
    const config = parseConfig(registry, builtinSourceKinds, {
      db: join(t.dir, 'i.db'),
      sources: [{ name: 'notes', kind: 'dir', path: notes, profile: 'synonyms' }],
    });
    expect((await runIndex(config)).status).toBe('ok');
    s = openSearcher(config);
  });
  afterAll(async () => {
    await s?.close();
    t?.cleanup();
  });

  it('ranks a passage holding the query\'s words above those only a synonym brought, though the synonym\'s list weighs more', async () => {
    const r = await s.searchDetailed('甲乙丙丁', { explain: true, sources: ['notes'] });
    expect(r.expansions!.map((e) => e.term)).toEqual(['壬癸']);
    expect(r.results[0]!.path).toBe('holder.md');
    expect(r.results[0]!.explain!.literal).toBe(false);
    // The synonym's passages still follow.
    expect(r.results.slice(1).some((x) => x.path.startsWith('synonym-'))).toBe(true);
  });
});

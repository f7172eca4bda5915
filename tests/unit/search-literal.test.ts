import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinProfiles } from '../../src/builtin.ts';
import { parseConfig } from '../../src/config/load.ts';
import { createProfileRegistry, type Profile } from '../../src/core/profile.ts';
import { defaultAnalyzer } from '../../src/core/text/analyzer.ts';
import { holdsLiteral, literalFirst, literalKey, literalMatcher } from '../../src/search/literal.ts';
import { Searcher } from '../../src/search/search.ts';
import { runIndex } from '../../src/sync/run.ts';
import { tempDir } from '../helpers/tmp.ts';

const key = (t: string) => literalKey(defaultAnalyzer, t);

describe('literal keys', () => {
  it('fold characters and drop punctuation and spacing beside CJK, keep one space between words', () => {
    expect(key('克我者，應為官殺。')).toBe('克我者应为官杀');
    expect(key('克我者 应为 官杀')).toBe('克我者应为官杀');
    expect(key('**JIRA**票务：Node.js  tips')).toBe('jira票务node js tips');
  });

  it('a text holds the query in order, on word boundaries for Latin words', () => {
    expect(holdsLiteral(key('书云：克我者应为官杀，我克者应为妻财'), key('克我者，应为官杀'))).toBe(true);
    expect(holdsLiteral(key('官杀克我者'), key('克我者应为官杀'))).toBe(false);
    expect(holdsLiteral(key('Start the party'), key('art'))).toBe(false);
    expect(holdsLiteral(key('the art of it, and art'), key('art'))).toBe(true);
    expect(holdsLiteral(key('完成JIRA票务处理的误区'), key('JIRA票务处理'))).toBe(true);
    expect(holdsLiteral(key('anything'), '')).toBe(false);
  });

  it('matches under any analyzer in force, and not at all for a query without letters or digits', () => {
    expect(literalMatcher('陽刃', [defaultAnalyzer])!('论羊刃')).toBe(false);
    expect(literalMatcher('陽刃', [defaultAnalyzer])!('', '论阳刃')).toBe(true);
    // 阳刃 and 羊刃 are one term to the classics normaliser, on both sides.
    expect(literalMatcher('陽刃', [defaultAnalyzer, builtinProfiles.get('classics').analyzer!])!('论羊刃')).toBe(true);
    expect(literalMatcher('？！', [defaultAnalyzer])).toBeNull();
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

describe('the literal stage in hybrid search', () => {
  let t: ReturnType<typeof tempDir>;
  let s: Searcher;
  beforeAll(async () => {
    t = tempDir();
    const dir = join(t.dir, 'docs');
    mkdirSync(dir);
    // Passages about 官杀混杂 that say the expansion again and again, and one quoting the line once.
    for (let i = 0; i < 12; i++) writeFileSync(join(dir, `mixed-${i}.md`), `# 官杀混杂${i}\n\n官杀混杂，官杀混杂者贱。论官杀混杂第${i}。\n`);
    writeFileSync(join(dir, 'quote.md'), '# 论六亲\n\n生我者为父母，我生者为子孙，克我者應為官殺，我克者为妻财，此理甚明。\n');
    const registry = createProfileRegistry([...builtinProfiles.profiles, thesaurus]);
    const config = parseConfig(registry, { db: join(t.dir, 'i.db'), sources: [{ name: 'notes', kind: 'dir', path: dir, profile: 'thesaurus' }] });
    expect((await runIndex(config)).status).toBe('ok');
    s = Searcher.open(config);
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

  it('keyword and vector modes have no literal stage', async () => {
    for (const mode of ['keyword', 'vector'] as const) {
      const r = await s.searchDetailed('克我者，应为官杀', { explain: true, mode });
      expect(r.results.every((x) => x.explain!.literal === false)).toBe(true);
    }
  });
});

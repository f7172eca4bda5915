import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinProfiles } from '../../src/builtin.ts';
import { parseConfig, type Config } from '../../src/config/load.ts';
import { openSearcher, runIndex } from '../../src/engine/library.ts';
import { buildPinyinIndex, pinyinExpansions, pinyinRuns, readingKey, syllablesOf, toneless, withoutPinyinParts } from '../../src/search/pinyin.ts';
import { builtinSourceKinds } from '../../src/sources/registry.ts';
import { cedictReadings } from '../../src/sync/lexicon/cedict.ts';
import { tempDir } from '../helpers/tmp.ts';

describe('pinyin parsing', () => {
  it('drops tones (marks and digits), folds ü to v, lower case', () => {
    expect(toneless('Shāng Guān')).toBe('shang guan');
    expect(toneless('lu:4 nü3 Lǜ')).toBe('lv nv lv');
    expect(toneless('gui4 ren2')).toBe('gui ren');
  });

  it('splits a word into the fewest syllables, or says it is not pinyin', () => {
    expect(syllablesOf('tianyiguiren')).toEqual(['tian', 'yi', 'gui', 'ren']);
    expect(syllablesOf('xian')).toEqual(['xian']);
    expect(syllablesOf('zhuangzi')).toEqual(['zhuang', 'zi']);
    expect(syllablesOf('hurting')).toBeNull();
    expect(syllablesOf('the')).toBeNull();
  });

  it('a dictionary reading keys by its toneless syllables, spaced', () => {
    expect(readingKey('gui4 ren2')).toBe('gui ren');
    expect(readingKey('ti2 an4')).toBe('ti an');
    expect(readingKey('B chao1')).toBeNull();
  });

  it('runs are the consecutive words that all parse; anything else breaks them', () => {
    const runs = pinyinRuns('Tian Yi Gui Ren nobleman star: which shang guan');
    expect(runs.map((r) => r.syllables.join(' '))).toEqual(['tian yi gui ren', 'shang guan']);
    expect(pinyinRuns('tianyiguiren')[0]).toMatchObject({ syllables: ['tian', 'yi', 'gui', 'ren'], words: 1, monosyllables: 0, multi: ['tianyiguiren'], toned: false });
    expect(pinyinRuns('like gui ren', new Set(['like']))[0]!.syllables).toEqual(['gui', 'ren']);
    expect(pinyinRuns('lì gui ren', new Set(['li']))[0]!.syllables).toEqual(['li', 'gui', 'ren']); // toned: pinyin whatever English says
    expect(pinyinRuns('shāng guān')[0]!.toned).toBe(true);
    expect(pinyinRuns('shang1 guan1')[0]!.toned).toBe(true);
    expect(pinyinRuns('天乙 gui ren')[0]!.syllables).toEqual(['gui', 'ren']);
  });
});

describe('pinyin matching', () => {
  const index = buildPinyinIndex(
    [
      { headword: '贵人', df: 9 },
      { headword: '天乙', df: 4 },
      { headword: '天乙贵人', df: 2 },
      { headword: '伤官', df: 12 },
      { headword: '上官', df: 1 },
      { headword: '提案', df: 30 },
      { headword: '立刻', df: 50 },
      { headword: '数据', df: 50 },
      { headword: '八色', df: 50 },
      { headword: '我们', df: 80 },
    ],
    new Map([
      ['贵人', ['gui4 ren2']],
      ['天乙', ['tian1 yi3']],
      ['天乙贵人', ['tian1 yi3 gui4 ren2']],
      ['伤官', ['shang1 guan1']],
      ['上官', ['shang4 guan1']],
      ['提案', ['ti2 an4']],
      ['立刻', ['li4 ke4']],
      ['数据', ['da1 ta1']],
      ['八色', ['ba1 se4']],
      ['我们', ['wo3 men5']],
    ]),
  );
  const terms = (q: string, english?: Set<string>) => pinyinExpansions(q, index, english).map((e) => e.term);

  it('the longest reading covering the query wins, spaced, joined or toned alike', () => {
    for (const q of ['Tian Yi Gui Ren', 'tianyiguiren', 'tiān yǐ guì rén', 'tian1 yi3 gui4 ren2']) expect(terms(q)).toEqual(['天乙贵人']);
  });

  it('homophones are weighted by the documents holding them, most first', () => {
    const e = pinyinExpansions('shang guan pei yin', index);
    expect(e.map((x) => x.term)).toEqual(['伤官', '上官']);
    expect(e[0]!.weight).toBeGreaterThan(e[1]!.weight);
    expect(e[0]).toMatchObject({ from: 'shang guan', via: 'pinyin' });
  });

  it('a syllable is not matched by a reading of two ("tian" is not 提案 ti-an)', () => {
    expect(terms('tian gui ren')).toEqual(['贵人']);
    expect(terms('tian')).toEqual([]);
  });

  it('only a query written in pinyin is read as pinyin, not pinyin inside an English question', () => {
    expect(terms('gui ren')).toEqual(['贵人']);
    expect(terms('gui ren 相助')).toEqual(['贵人']);
    expect(terms('nobleman star (Gui Ren)')).toEqual([]);
  });

  it('a whole pinyin match outranks other expanders\' readings of its parts', () => {
    const pinyin = { term: '天乙贵人', from: 'tian yi gui ren', weight: 1, via: 'pinyin' };
    const part = { term: '贵', from: 'Gui Ren', weight: 0.8, via: 'glossary' };
    const other = { term: '星', from: 'star', weight: 1, via: 'lexicon' };
    expect(withoutPinyinParts([part, other, pinyin], [pinyin])).toEqual([other, pinyin]);
    expect(withoutPinyinParts([part], [])).toEqual([part]);
  });

  it('English words that parse as syllables stay English', () => {
    expect(terms('women in the classics')).toEqual([]); // one word of two syllables
    // da-ta-ba-se, spelled whole by two headwords: a word the corpus lexicon glosses is English.
    expect(terms('database')).toEqual(['数据', '八色']);
    expect(terms('database', new Set(['database']))).toEqual([]);
    expect(terms('like case study')).toEqual([]); // words of two syllables each
    expect(terms('how long do men live')).toEqual([]);
  });
});

describe('pinyin questions over an index', () => {
  let t: ReturnType<typeof tempDir>;
  let config: Config;
  beforeAll(() => {
    t = tempDir();
    mkdirSync(join(t.dir, 'docs'));
    writeFileSync(join(t.dir, 'docs', 'a.md'), '# 命书\n\n日主逢贵人相助，一生安稳。\n');
    writeFileSync(join(t.dir, 'docs', 'b.md'), '# 杂记\n\n今天天气很好，我们去散步。\n');
    // 伤官佩印 is no dictionary word: only the corpus's own pairs of characters spell it.
    for (const [f, text] of <[string, string][]>[['c.md', '伤官佩印，贵而有权。'], ['d.md', '论伤官佩印之格。'], ['e.md', '伤官佩印者秀气。'], ['f.md', '上官大人关门。']]) {
      writeFileSync(join(t.dir, 'docs', f), `# 书\n\n${text}\n`);
    }
    config = parseConfig(builtinProfiles, builtinSourceKinds, { db: join(t.dir, 'i.db'), sources: [{ name: 'notes', kind: 'dir', path: join(t.dir, 'docs'), lexicon: true }] });
  });
  afterAll(() => t.cleanup());

  it('the dictionary gives the readings of the headwords asked for', () => {
    const r = cedictReadings(new Set(['贵人', '天气']));
    expect(r.get('贵人')).toContain('gui4 ren2');
    expect(r.get('天气')).toContain('tian1 qi4');
    expect(r.has('苹果')).toBe(false);
  });

  it('a pinyin question finds the passage holding the word it spells', async () => {
    expect((await runIndex(config)).status).toBe('ok');
    const s = openSearcher(config);
    try {
      const r = await s.searchDetailed('gui ren', { explain: true });
      expect(r.expansions!.find((e) => e.term === '贵人')).toMatchObject({ from: 'gui ren', via: 'pinyin' });
      expect(r.results[0]!.path).toBe('a.md');
      // An English question is left alone.
      expect((await s.searchDetailed('women walking', { explain: true })).expansions!.filter((e) => e.via === 'pinyin')).toEqual([]);
      expect((await s.searchDetailed('guiren', { explain: true })).expansions!.filter((e) => e.via === 'pinyin')).toEqual([]); // one word of two syllables
      // A word the dictionary lacks, spelled from the index's counts of characters and their pairs.
      expect(await s.store.termCounts!(['伤官', '官佩', '上官', '伤', '无此'])).toEqual([3, 3, 1, 3, 0]);
      const d = await s.searchDetailed('shang guan pei yin', { explain: true });
      expect(d.expansions!.find((e) => e.term === '伤官佩印')).toMatchObject({ from: 'shang guan pei yin', via: 'pinyin' });
      expect(['c.md', 'd.md', 'e.md']).toContain(d.results[0]!.path);
    } finally {
      await s.close();
    }
  });
});

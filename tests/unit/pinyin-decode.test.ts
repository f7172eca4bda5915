import { describe, expect, it } from 'vitest';
import { PinyinDecoder, type TermCounts } from '../../src/search/pinyin-decode.ts';
import { TermCountCache } from '../../src/search/term-counts.ts';
import { pinyinExpansions, buildPinyinIndex, syllableCharacters } from '../../src/search/pinyin.ts';

/** Chunks → how many hold each character and each pair of neighbouring characters (as the keyword index keeps them), known once loaded. */
function countsOf(chunks: string[]): { counts: TermCounts; asked: string[][] } {
  const df = new Map<string, number>();
  for (const c of chunks) {
    const terms = new Set<string>();
    const chars = [...c];
    chars.forEach((ch, i) => (terms.add(ch), i + 1 < chars.length && terms.add(ch + chars[i + 1]!)));
    for (const t of terms) df.set(t, (df.get(t) ?? 0) + 1);
  }
  const asked: string[][] = [];
  const known = new Set<string>();
  const counts: TermCounts = {
    async load(terms) {
      const missing = terms.filter((t) => !known.has(t));
      if (missing.length) asked.push(missing);
      for (const t of missing) known.add(t);
    },
    n: (t) => (known.has(t) ? df.get(t) ?? 0 : 0),
  };
  return { asked, counts };
}

// The dictionary's single characters and their readings (as cedictPinyin gives them).
const chars = syllableCharacters(
  new Map([
    ['伤', ['shang1']], ['上', ['shang4']], ['商', ['shang1']], ['官', ['guan1']], ['关', ['guan1']], ['观', ['guan1']],
    ['佩', ['pei4']], ['配', ['pei4']], ['印', ['yin4']], ['因', ['yin1']], ['阴', ['yin1']],
    ['岁', ['sui4']], ['随', ['sui2']], ['运', ['yun4']], ['云', ['yun2']], ['并', ['bing4']], ['丙', ['bing3']], ['病', ['bing4']],
    ['临', ['lin2']], ['林', ['lin2']], ['我', ['wo3']], ['们', ['men5']], ['门', ['men2']],
  ]),
);
const corpus = [
  '伤官佩印，贵而有权', '伤官佩印者秀气', '论伤官佩印之格', '上午关门', '上下相关', '阴阳之理', '阴阳配合',
  '岁运并临，不死也伤', '岁运并临者凶', '流年岁运并临', '丙火猛烈', '丙丁之火', '丙临申位', '病在于身', '我们去', '我们来', '我们走',
];

describe('pinyin decoding over the corpus counts', () => {
  it('a syllable reads as the characters the dictionary gives it, tones dropped', () => {
    expect(chars.get('shang')).toEqual(['伤', '上', '商']);
    expect(chars.get('bing')).toEqual(['并', '丙', '病']);
  });

  it('a field term no dictionary lists is spelled by the pairs the corpus holds', async () => {
    const d = new PinyinDecoder(chars, countsOf(corpus).counts);
    expect(await d.decode(['shang', 'guan', 'pei', 'yin'])).toEqual([{ text: '伤官佩印', from: 0, to: 4, support: 3 }]);
    // 丙 is the commoner character, but 运丙 and 丙临 are not pairs the corpus writes with 岁运.
    expect((await d.decode(['sui', 'yun', 'bing', 'lin'])).map((s) => s.text)).toEqual(['岁运并临']);
  });

  it('a chain is cut where the corpus holds a pair in fewer than three chunks', async () => {
    const d = new PinyinDecoder(chars, countsOf(corpus).counts);
    // 印岁 is in no chunk: two words.
    expect((await d.decode(['shang', 'guan', 'pei', 'yin', 'sui', 'yun', 'bing', 'lin'])).map((s) => [s.text, s.from, s.to])).toEqual([
      ['伤官佩印', 0, 4],
      ['岁运并临', 4, 8],
    ]);
    // 上关 is in one chunk: nothing.
    expect(await d.decode(['shang', 'guan'].slice(0, 1))).toEqual([]);
    expect(await new PinyinDecoder(chars, countsOf(['上关门']).counts).decode(['shang', 'guan'])).toEqual([]);
  });

  it('counts are asked of the store once while the index stands', async () => {
    const asked: string[][] = [];
    let generation = 1;
    const cache = new TermCountCache({ generation: async () => generation, termCounts: async (ts) => (asked.push([...ts]), ts.map((t) => (['伤', '官', '伤官'].includes(t) ? 3 : 0))) });
    const d = new PinyinDecoder(chars, cache);
    await d.decode(['shang', 'guan']);
    const n = asked.length;
    await d.decode(['shang', 'guan']);
    await cache.load(['伤官']);
    expect(asked.length).toBe(n);
    expect(cache.n('伤官')).toBe(3);
    generation = 2;
    await cache.load(['伤官']);
    expect(asked.at(-1)).toEqual(['伤官']);
  });

  it('decoded words become expansions only when the query is pinyin', async () => {
    const d = new PinyinDecoder(chars, countsOf(corpus).counts);
    const empty = buildPinyinIndex([], new Map());
    const q = 'shang guan pei yin';
    // Before decoding: no headword reads any of it.
    expect(pinyinExpansions(q, empty)).toEqual([]);
    expect(pinyinExpansions(q, empty, undefined, 3, [await d.decode(['shang', 'guan', 'pei', 'yin'])])).toEqual([
      { term: '伤官佩印', from: 'shang guan pei yin', weight: 1, via: 'pinyin' },
    ]);
    // A headword of a stretch inside a decoded word stays only if it is the characters decoded there.
    const index = buildPinyinIndex([{ headword: '上官', df: 5 }, { headword: '佩印', df: 1 }], new Map([['上官', ['shang4 guan1']], ['佩印', ['pei4 yin4']]]));
    expect(pinyinExpansions(q, index).map((e) => e.term)).toEqual(['上官', '佩印']);
    expect(pinyinExpansions(q, index, undefined, 3, [await d.decode(['shang', 'guan', 'pei', 'yin'])]).map((e) => e.term)).toEqual(['佩印', '伤官佩印']);
    // One untoned word of two syllables stays English though the corpus spells it (我们).
    expect(pinyinExpansions('women', empty, undefined, 3, [await d.decode(['wo', 'men'])])).toEqual([]);
  });
});

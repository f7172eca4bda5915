import { describe, expect, it } from 'vitest';
import type { Expansion } from '../../src/core/profile.ts';
import { classicsProfile } from '../../src/profiles/classics/index.ts';
import { expandClassicsQuery } from '../../src/profiles/classics/expand.ts';

const terms = (q: string, env: NodeJS.ProcessEnv = {}) => expandClassicsQuery(q, env).map((e) => e.term);
const find = (list: Expansion[], term: string) => list.find((e) => e.term === term);

describe('classics thesaurus', () => {
  it('天干 imagery → the stem', () => {
    expect(terms('太阳照在江河上')).toEqual(expect.arrayContaining(['丙火', '壬水']));
    expect(terms('参天大树需要雨露')).toEqual(expect.arrayContaining(['甲木', '癸水']));
    expect(terms('灯烛和珠玉')).toEqual(expect.arrayContaining(['丁火', '辛金']));
  });

  it('seasons → 三春…, their three 月令; a stem with a month or season → the 穷通宝鉴 entry heading', () => {
    const winter = expandClassicsQuery('冬天出生的人怎么看', {});
    expect(winter.map((e) => e.term)).toEqual(expect.arrayContaining(['三冬', '亥月', '子月', '丑月']));
    expect(find(winter, '亥月')!.weight).toBeLessThan(find(winter, '三冬')!.weight);
    // One stem in one month or season is one 穷通宝鉴 entry: its heading alone (common words would drown it).
    // 正月 is 寅月 after normalisation, so the heading is the books' 正月甲木 in normalised form.
    expect(terms('甲木生在正月，该用什么神？')).toEqual(['寅月甲木']);
    expect(terms('冬天出生的壬水怎么看')).toEqual(['三冬壬水']);
    expect(terms('立春后出生的癸水')).toEqual(['寅月癸水']);
  });

  it('十神 synonyms both ways, and group names', () => {
    expect(terms('七杀太旺')).toContain('偏官');
    expect(terms('七煞太旺')).toContain('偏官'); // the variant is unified first
    expect(terms('枭神夺食')).toContain('偏印');
    expect(terms('正印')).toContain('印绶');
    expect(terms('比劫太多')).toEqual(expect.arrayContaining(['比肩', '劫财']));
  });

  it('modern phrasings → classical terms; a term the query holds is not added again', () => {
    expect(terms('日元太弱')).toEqual(expect.arrayContaining(['身弱', '身衰']));
    expect(terms('身弱财多怎么办')).toEqual(expect.arrayContaining(['财多身弱', '身弱财旺']));
    expect(terms('杀旺用印化杀')).toContain('杀印相生');
    expect(terms('八字太冷怎么调')).toContain('调候');
    expect(terms('用神')).not.toContain('用神');
  });

  it('says where each term came from and how strong it is', () => {
    const e = find(expandClassicsQuery('七杀太旺', {}), '偏官')!;
    expect(e).toEqual({ term: '偏官', from: '七杀', weight: 1, via: 'thesaurus' });
  });
});

describe('classics English glossary', () => {
  it('ten gods, stars and method words → Chinese terms', () => {
    expect(terms('Seven Killings meets Eating God')).toEqual(expect.arrayContaining(['七杀', '偏官', '食神']));
    expect(terms('hurting officer with direct resource')).toEqual(expect.arrayContaining(['伤官', '正印']));
    expect(terms('Direct Wealth and Indirect Wealth')).toEqual(expect.arrayContaining(['正财', '偏财']));
    expect(terms('Rob Wealth, Friend, Goat Blade')).toEqual(expect.arrayContaining(['劫财', '比肩', '羊刃']));
    expect(terms('Tian Yi Gui Ren, Tao Hua and Yi Ma')).toEqual(expect.arrayContaining(['天乙贵人', '桃花', '驿马']));
    expect(terms('what is the useful god of a weak Day Master')).toEqual(expect.arrayContaining(['用神', '身弱']));
  });

  it('a longer phrase claims its words: "Seven Killings" is not also the element-free "seven"', () => {
    const list = expandClassicsQuery('Direct Officer', {});
    expect(list.map((e) => e.term)).toEqual(['正官']);
    expect(list[0]).toMatchObject({ from: 'Direct Officer', via: 'glossary' });
  });

  it('stems and branches by pinyin and element; month animals and ordinals → 月令', () => {
    expect(terms('Jia wood')).toContain('甲木');
    expect(terms('yin metal')).toContain('辛金');
    expect(terms('Bing fire')).toContain('丙火');
    expect(terms('tiger month')).toContain('寅月');
    expect(terms('first lunar month')).toContain('寅月');
    expect(terms('born in the month of the horse')).not.toContain('寅月');
    expect(terms('horse month')).toContain('午月');
    expect(terms('rat month')).toContain('子月');
  });

  it('a stem with a month gives the entry heading, as in Chinese', () => {
    expect(terms('Jia wood born in the tiger month')).toContain('寅月甲木');
    expect(terms('Ren water born in winter')).toContain('三冬壬水');
  });

  it('a Chinese query gets no glossary terms; an English one no thesaurus terms', () => {
    expect(expandClassicsQuery('伤官配印', {}).every((e) => e.via !== 'glossary')).toBe(true);
    expect(expandClassicsQuery('Seven Killings', {}).every((e) => e.via === 'glossary')).toBe(true);
  });
});

describe('compound terms and term queries', () => {
  it('two gods a query names → the configurations made of them; 五合 stem pairs → their 合 and 化', () => {
    expect(terms('Hurting Officer meets Direct Officer')).toContain('伤官见官');
    expect(terms('Seven Killings controlled by Eating God')).toContain('食神制杀');
    expect(terms('七杀很弱，靠财星生扶')).toContain('财滋弱杀');
    expect(terms('甲和己合起来会变成土')).toEqual(expect.arrayContaining(['甲己合', '甲己化土']));
    expect(terms('甲木自己')).not.toContain('甲己合');
  });

  it('no compound for a part of what a query names: a line listing gods is not their pairs', () => {
    const line = terms('杀伤枭刃，用神之不善而逆用之者也');
    expect(line).not.toContain('羊刃驾杀');
    expect(line).not.toContain('羊刃合杀');
    expect(terms('羊刃和七杀')).toContain('羊刃驾杀');
  });

  it('a query that is lexicon terms already keeps its expansions weak and gets no compounds', () => {
    expect(expandClassicsQuery('羊刃驾杀', {}).map((e) => e.term)).not.toContain('羊刃合杀');
    expect(Math.max(...expandClassicsQuery('身弱财旺', {}).map((e) => e.weight))).toBeLessThanOrEqual(0.3);
    expect(find(expandClassicsQuery('身弱财旺怎么办', {}), '财多身弱')!.weight).toBe(1);
  });
});

describe('switches and the profile seam', () => {
  it('RAGSYNC_CLASSICS_THESAURUS=0 / RAGSYNC_CLASSICS_GLOSSARY=0 turn a part off', () => {
    expect(terms('七杀', { RAGSYNC_CLASSICS_THESAURUS: '0' })).toEqual([]);
    expect(terms('Seven Killings', { RAGSYNC_CLASSICS_GLOSSARY: '0' })).toEqual([]);
    expect(terms('Seven Killings', { RAGSYNC_CLASSICS_THESAURUS: '0' })).toContain('七杀');
  });

  it('the classics profile answers expandQuery', () => {
    expect(classicsProfile.expandQuery!('Hurting Officer').map((e) => e.term)).toContain('伤官');
  });
});

import { describe, expect, it } from 'vitest';
import { keywordsOf, LEXICON, NAYIN } from '../../src/profiles/classics/lexicon.ts';
import { monthsToBranches, normalizeForSearch } from '../../src/profiles/classics/normalize.ts';
import { toSimplified } from '../../src/core/text/fold.ts';

describe('normalizeForSearch', () => {
  it('turns traditional characters into simplified ones', () => {
    expect(toSimplified('看命口訣 玉井奧訣 財官 祿馬')).toBe('看命口诀 玉井奥诀 财官 禄马');
    expect(normalizeForSearch('傷官見官，為禍百端')).toBe(normalizeForSearch('伤官见官，为祸百端'));
  });

  it('leaves 乾 and 著 alone (they are simplified characters too)', () => {
    expect(toSimplified('乾造 著作')).toBe('乾造 著作');
  });

  it('treats spaces used as punctuation like punctuation', () => {
    expect(normalizeForSearch('神者 贵人也 论子息多少')).toBe(normalizeForSearch('神者，贵人也。论子息多少'));
    expect(normalizeForSearch('  甲木\u3000生于寅月。 ')).toBe('甲木 生于寅月');
  });

  it('maps 月令 to their 地支', () => {
    expect(monthsToBranches('正月甲木')).toBe('寅月甲木');
    expect(monthsToBranches('十一月 十二月 腊月 十月')).toBe('子月 丑月 丑月 亥月');
    expect(monthsToBranches('正二月甲木 五六月甲木')).toBe('寅卯月甲木 午未月甲木');
    expect(monthsToBranches('孟春 仲冬')).toBe('寅月 子月');
    expect(monthsToBranches('二十二月')).toBe('二十二月'); // not a month name
    expect(normalizeForSearch('甲木寅月用神')).toContain('寅月');
    expect(normalizeForSearch('正月甲木')).toBe(normalizeForSearch('寅月甲木'));
  });

  it('unifies variant terms', () => {
    expect(normalizeForSearch('阳刃驾杀')).toBe('羊刃驾杀');
    expect(normalizeForSearch('七煞')).toBe('七杀');
    expect(normalizeForSearch('從才從殺')).toBe('从才从杀');
    expect(normalizeForSearch('偏才')).toBe('偏财');
    expect(normalizeForSearch('陽刃')).toBe('羊刃');
  });

  it('folds width and case, drops emphasis, keeps Latin punctuation inside words', () => {
    expect(normalizeForSearch('**ＡＩ** Node.js')).toBe('ai node.js');
    expect(normalizeForSearch('甲木,生于寅月')).toBe('甲木 生于寅月');
  });

  it('is idempotent', () => {
    for (const s of ['正二月甲木，阳刃驾杀。', '看命口訣 ', 'Stop Making TUIs — Quarrelsome']) {
      expect(normalizeForSearch(normalizeForSearch(s))).toBe(normalizeForSearch(s));
    }
  });
});

describe('lexicon and keywordsOf', () => {
  it('has the sixty pillars with their 纳音', () => {
    expect(NAYIN).toHaveLength(60);
    expect(NAYIN[0]).toEqual(['甲子', '海中金']);
    expect(NAYIN[59]).toEqual(['癸亥', '大海水']);
    expect(LEXICON.nayin).toHaveLength(30);
  });

  it('finds terms in order, once each, whatever the spelling', () => {
    const k = keywordsOf('正月甲木，见傷官配印，陽刃驾杀，甲子海中金，天乙贵人。伤官配印。');
    expect(k).toEqual(['寅月', '甲木', '伤官配印', '羊刃驾杀', '甲子', '海中金', '天乙贵人']);
  });

  it('does not repeat a shorter term inside a longer one', () => {
    expect(keywordsOf('伤官配印')).toEqual(['伤官配印']);
    expect(keywordsOf('伤官配印，又见伤官')).toEqual(['伤官配印', '伤官']);
  });

  it('returns nothing for text outside the domain', () => {
    expect(keywordsOf('Stop making TUIs')).toEqual([]);
  });
});

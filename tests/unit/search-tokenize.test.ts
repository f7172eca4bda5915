import { describe, expect, it } from 'vitest';
import { defaultAnalyzer, indexTokens as index, queryTerms } from '../../src/core/text/analyzer.ts';
import { classicsProfile } from '../../src/profiles/classics/index.ts';

// The classics profile's analysis: the engine's folding plus the field's spellings and stop words.
const classics = classicsProfile.analyzer!;
const indexTokens = (t: string) => index(classics, t);
const queryTokens = (q: string, o?: { unigrams?: boolean }) => queryTerms(classics, q, o);

describe('tokenize', () => {
  it('indexes CJK unigrams and bigrams and lowercased words', () => {
    expect(indexTokens('甲木参天 SQLite WAL')).toEqual(['甲', '甲木', '木', '木参', '参', '参天', '天', 'sqlite', 'wal']);
  });
  it('keeps Latin words apart from the CJK beside them, on both sides', () => {
    expect(indexTokens('完成JIRA票务')).toEqual(['完', '完成', '成', 'jira', '票', '票务', '务']);
    expect(queryTokens('DynamoDB的案例')).toEqual(['dynamodb', '案例']); // 的 is a question word of the classics' queries
  });
  it('splits CJK runs at punctuation', () => {
    expect(indexTokens('伤官，配印')).toEqual(['伤', '伤官', '官', '配', '配印', '印']);
  });
  it('queries with bigrams of CJK runs, or the character of a one-character run', () => {
    expect(queryTokens('甲木寅月用神')).toEqual(['甲木', '木寅', '寅月', '月用', '用神']);
    expect(queryTokens('甲 Full-Text')).toEqual(['甲', 'full', 'text']);
    expect(queryTokens('伤官', { unigrams: true })).toEqual(['伤', '官', '伤官']);
  });
  it('drops modern question words from queries only', () => {
    expect(queryTokens('命带桃花是什么意思')).toEqual(['命带', '带桃', '桃花']);
    expect(queryTokens('什么')).toEqual(['什么']); // nothing else left: keep the query as it was
    expect(indexTokens('什么')).toEqual(['什', '什么', '么']);
  });

  it('runs normalizeForSearch on both sides', () => {
    expect(queryTokens('陽刃')).toEqual(queryTokens('羊刃'));
    expect(queryTokens('正月')).toEqual(['寅月']);
    expect(indexTokens('七煞')).toEqual(indexTokens('七杀'));
  });

  it('normalises full-width forms (NFKC)', () => {
    expect(queryTokens('ＳＱＬｉｔｅ')).toEqual(['sqlite']);
    expect(queryTerms(defaultAnalyzer, 'ＳＱＬｉｔｅ')).toEqual(['sqlite']);
  });

  it('the engine\'s own analysis folds characters but knows no field terms or stop words', () => {
    expect(queryTerms(defaultAnalyzer, '陽刃')).toEqual(['阳刃']);
    expect(queryTerms(defaultAnalyzer, '正月')).toEqual(['正月']);
    expect(queryTerms(defaultAnalyzer, '是什么')).toEqual(['是什', '什么']);
  });
});

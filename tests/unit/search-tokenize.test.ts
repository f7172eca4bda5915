import { describe, expect, it } from 'vitest';
import { indexTokens, queryTokens } from '../../src/search/tokenize.ts';

describe('tokenize', () => {
  it('indexes CJK unigrams and bigrams and lowercased words', () => {
    expect(indexTokens('甲木参天 SQLite WAL')).toEqual(['甲', '甲木', '木', '木参', '参', '参天', '天', 'sqlite', 'wal']);
  });
  it('splits CJK runs at punctuation', () => {
    expect(indexTokens('伤官，配印')).toEqual(['伤', '伤官', '官', '配', '配印', '印']);
  });
  it('queries with bigrams of CJK runs, or the character of a one-character run', () => {
    expect(queryTokens('甲木寅月用神')).toEqual(['甲木', '木寅', '寅月', '月用', '用神']);
    expect(queryTokens('甲 Full-Text')).toEqual(['甲', 'full', 'text']);
    expect(queryTokens('伤官', { unigrams: true })).toEqual(['伤', '官', '伤官']);
  });
  it('normalises full-width forms (NFKC)', () => {
    expect(queryTokens('ＳＱＬｉｔｅ')).toEqual(['sqlite']);
  });
});

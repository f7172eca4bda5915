import { describe, expect, it } from 'vitest';
import { holdsToken } from '../../src/storage/sqlite/reader.ts';

/** What FTS5's tokenizer makes of a text: its maximal runs of letters, digits and private-use characters. */
const tokens = (text: string) => text.split(/[^\p{L}\p{N}\p{Co}]+/u).filter(Boolean);

describe('holdsToken: a term found as one of a text\'s tokens', () => {
  it('finds whole tokens only, at either end, next to any separator, astral characters included', () => {
    expect(holdsToken('伤官 官配 配印', '官配')).toBe(true);
    expect(holdsToken('伤官 官配配印', '官配')).toBe(false);
    expect(holdsToken('retry backoff', 'retry')).toBe(true);
    expect(holdsToken('retrying backoff', 'retry')).toBe(false);
    expect(holdsToken('a-retry.', 'retry')).toBe(true);
    expect(holdsToken('x𠀀retry', 'retry')).toBe(false); // U+20000, a letter outside the BMP
    expect(holdsToken('𠀀 retry', '𠀀')).toBe(true);
    expect(holdsToken('retry', 'retry')).toBe(true);
    expect(holdsToken('', 'retry')).toBe(false);
  });

  it('agrees with splitting the text into tokens, on random texts', () => {
    const alphabet = ['a', 'b', 'ab', '甲', '乙', '𠀀', ' ', '-', '.', '，', '1', '\u00e9'];
    let seed = 7;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed);
    for (let n = 0; n < 3000; n++) {
      const text = Array.from({ length: next() % 12 }, () => alphabet[next() % alphabet.length]).join('');
      const pool = tokens(text);
      const term = pool.length && next() % 2 ? pool[next() % pool.length]! : ['a', 'ab', '甲乙', '𠀀', 'b1'][next() % 5]!;
      expect(holdsToken(text, term), JSON.stringify([text, term])).toBe(tokens(text).includes(term));
    }
  });
});

/** The config file's reader (jsonc-parser underneath): comments and trailing commas, errors in one line with line and column. */
import { describe, expect, it } from 'vitest';
import { JsoncSyntaxError, parseJsonc } from '../../src/config/jsonc.ts';

const error = (text: string) => {
  try {
    parseJsonc(text);
  } catch (e) {
    expect(e).toBeInstanceOf(JsoncSyntaxError);
    return (e as Error).message;
  }
  throw new Error('expected a syntax error');
};

describe('parseJsonc', () => {
  it('reads comments, trailing commas and a BOM, and makes ordinary objects ("__proto__" an own key, as JSON.parse does)', () => {
    const v = parseJsonc('\uFEFF{\n  // c\n  "a": [1, 2,], /* d */\n  "__proto__": {"x": 1},\n}') as Record<string, unknown>;
    expect(v).toEqual(JSON.parse('{"a": [1, 2], "__proto__": {"x": 1}}'));
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.keys(v)).toEqual(['a', '__proto__']);
  });

  it('refuses what is not JSON with comments, naming the line, the column and what was found', () => {
    expect(error('[,]')).toBe('1:2: expected a value, found ","');
    expect(error('{"sources": [,]}')).toBe('1:14: expected a value, found ","');
    expect(error('{\n  "db": "x.db"\n  "sources": []\n}\n')).toBe('3:3: expected "," or "}" after a property value, found "\\""');
    expect(error('{"a": [1 2]}')).toBe('1:10: expected "," or "]" after an array element, found "2"');
    expect(error('{"a" 1}')).toBe('1:6: expected ":" after the property name, found "1"');
    expect(error('{"a": ')).toBe('1:7: expected a value, found the end of the file');
    expect(error('{"a": "b\nc"}')).toMatch(/^1:7: unterminated string/);
    expect(error('/* x')).toBe('1:1: unterminated /* comment');
    expect(error('')).toBe('1:1: expected a value, found the end of the file');
  });
});

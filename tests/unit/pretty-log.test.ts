import { describe, expect, it } from 'vitest';
import { formatLine } from '../../src/core/pretty-log.ts';

describe('formatLine', () => {
  it('turns a pino JSON line into time, level, message and fields', () => {
    const line = JSON.stringify({ level: 30, time: Date.parse('2026-01-01T12:34:56Z'), msg: 'run ok', runId: 3, sources: ['a'] });
    expect(formatLine(line)).toBe('12:34:56 INFO  run ok  runId=3 sources=["a"]\n');
  });
  it('passes through what is not JSON', () => {
    expect(formatLine('plain')).toBe('plain');
  });
});

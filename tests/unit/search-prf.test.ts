import { describe, expect, it } from 'vitest';
import { feedbackTerms, PRF_WEIGHT, prfEnabled } from '../../src/search/prf.ts';

describe('pseudo-relevance feedback terms', () => {
  const stats = {
    chunks: 1000,
    df: new Map([
      ['调候', 20],
      ['寒木', 5],
      ['之人', 400], // in 40 % of chunks: noise
      ['丙火', 80],
    ]),
  };

  it('keeps terms at least two top hits share, rare ones first, none of the query own', () => {
    const top = [
      ['寒木', '调候', '之人', '甲木'],
      ['寒木', '调候', '之人'],
      ['丙火', '调候'],
      ['丙火', '寒木'],
    ];
    const out = feedbackTerms(top, new Set(['甲木']), stats);
    expect(out.map((e) => e.term)).toEqual(['寒木', '调候', '丙火']);
    expect(out[0]).toMatchObject({ weight: PRF_WEIGHT, via: 'prf', from: 'top hits' });
    expect(out[2]!.weight).toBeLessThan(out[0]!.weight);
  });

  it('drops terms of one hit only, lone characters and numbers', () => {
    expect(feedbackTerms([['寒木', '火', '12'], ['调候', '火', '12']], new Set(), stats)).toEqual([]);
  });

  it('is off unless RAGSYNC_PRF=1', () => {
    expect(prfEnabled({})).toBe(false);
    expect(prfEnabled({ RAGSYNC_PRF: '1' })).toBe(true);
  });
});

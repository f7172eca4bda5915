import { describe, expect, it } from 'vitest';
import { fullCoverFirst, listTrust, placeAtLeast, queryEvidence, TRUST_TUNING } from '../../src/search/trust.ts';

const hits = (...terms: number[]) => terms.map((t, i) => ({ ref: i + 1, score: 10 - i, terms: t }));

describe('per-query trust', () => {
  it('reads coverage from the best-covered hit and the peak from the first score over the tenth', () => {
    const e = queryEvidence([{ ref: 1, score: 20, terms: 2 }, ...hits(4, 1, 1, 1, 1, 1, 1, 1, 1).map((h) => ({ ...h, ref: h.ref + 1 }))], 4, false);
    expect(e.coverage).toBe(1);
    expect(e.keywordPeak).toBe(20 / 2);
    // A store that does not count terms gives no coverage.
    expect(queryEvidence([{ ref: 1, score: 1 }], 3, false).coverage).toBeNull();
    expect(queryEvidence([], 3, false)).toEqual({ literal: false, coverage: 0, keywordPeak: 1 });
  });

  it('keeps the keyword list’s first near the top only when the query’s words pick it out clearly', () => {
    const clear = listTrust({ literal: false, coverage: 0.5, keywordPeak: 2 });
    expect(clear.keywordLeaderAt).toBe(TRUST_TUNING.leaderAt);
    expect(listTrust({ literal: false, coverage: 0.5, keywordPeak: 1.1 }).keywordLeaderAt).toBe(Infinity);
    expect(listTrust({ literal: false, coverage: 0.2, keywordPeak: 3 }).keywordLeaderAt).toBe(Infinity);
    // Found as written: the literal stage decides; the query's words rank above synonyms.
    expect(listTrust({ literal: true, coverage: 1, keywordPeak: 3 })).toMatchObject({ fullCoverFirst: true, keywordLeaderAt: Infinity });
    expect(listTrust({ literal: false, coverage: 0.8, keywordPeak: 1 }).fullCoverFirst).toBe(true);
    expect(listTrust({ literal: false, coverage: 0.5, keywordPeak: 1 }).fullCoverFirst).toBe(false);
  });

  it('puts passages holding all the query’s words ahead of those only expansions brought, order kept otherwise', () => {
    const list = [{ ref: 1 }, { ref: 2, keyword: {} }, { ref: 3, vector: {} }, { ref: 4, keyword: {} }, { ref: 5 }];
    expect(fullCoverFirst(list, new Set([4])).map((c) => c.ref)).toEqual([2, 3, 4, 1, 5]);
    expect(fullCoverFirst(list, new Set()).map((c) => c.ref)).toEqual([1, 2, 3, 4, 5]);
  });

  it('moves a candidate up to a place, stopping below the first it may not pass', () => {
    const list = [1, 2, 3, 4, 5, 6].map((ref) => ({ ref }));
    expect(placeAtLeast(list, 6, 3).map((c) => c.ref)).toEqual([1, 2, 6, 3, 4, 5]);
    expect(placeAtLeast(list, 6, 3, (c) => c.ref !== 4).map((c) => c.ref)).toEqual([1, 2, 3, 4, 6, 5]);
    expect(placeAtLeast(list, 2, 3)).toBe(list);
    expect(placeAtLeast(list, 6, Infinity)).toBe(list);
  });
});

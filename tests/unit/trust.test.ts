import { describe, expect, it } from 'vitest';
import { fullCoverFirst, leaderPasses, listTrust, literalByKeyword, ownWordsFirst, placeAtLeast, queryEvidence, TRUST_TUNING } from '../../src/search/trust.ts';

const hits = (...terms: number[]) => terms.map((t, i) => ({ ref: i + 1, score: 10 - i, terms: t }));

describe('per-query trust', () => {
  it('reads coverage from the best-covered hit and the peak from the first score over the tenth', () => {
    const e = queryEvidence([{ ref: 1, score: 20, terms: 2 }, ...hits(4, 1, 1, 1, 1, 1, 1, 1, 1).map((h) => ({ ...h, ref: h.ref + 1 }))], 4, false);
    expect(e.coverage).toBe(1);
    expect(e.keywordPeak).toBe(20 / 2);
    // A store that does not count terms gives no coverage.
    expect(queryEvidence([{ ref: 1, score: 1 }], 3, false).coverage).toBeNull();
    expect(queryEvidence([], 3, false)).toEqual({ literal: false, inOrder: false, coverage: 0, keywordPeak: 1, cjkChars: 0, latin: false });
  });

  it('keeps the keyword list’s first near the top only when the query’s words pick it out clearly', () => {
    const clear = listTrust({ literal: false, inOrder: false, coverage: 0.5, keywordPeak: 2, cjkChars: 0, latin: true });
    expect(clear.keywordLeaderAt).toBe(TRUST_TUNING.leaderAt);
    expect(listTrust({ literal: false, inOrder: false, coverage: 0.5, keywordPeak: 1.1, cjkChars: 0, latin: true }).keywordLeaderAt).toBe(Infinity);
    expect(listTrust({ literal: false, inOrder: false, coverage: 0.2, keywordPeak: 3, cjkChars: 0, latin: true }).keywordLeaderAt).toBe(Infinity);
    // Found as written: the literal stage decides; the query's words rank above synonyms.
    expect(listTrust({ literal: true, inOrder: true, coverage: 1, keywordPeak: 3, cjkChars: 0, latin: true })).toMatchObject({ fullCoverFirst: true, keywordLeaderAt: Infinity });
    expect(listTrust({ literal: false, inOrder: false, coverage: 0.8, keywordPeak: 1, cjkChars: 0, latin: true }).fullCoverFirst).toBe(true);
    expect(listTrust({ literal: false, inOrder: false, coverage: 0.5, keywordPeak: 1, cjkChars: 0, latin: true }).fullCoverFirst).toBe(false);
  });

  it('keeps the keyword list’s first near the top when its best hit holds the question’s English words, in order nowhere', () => {
    // "build the instructions the MCP server sends …": every word in one function, which the vector leg never finds.
    const scattered = listTrust({ literal: true, inOrder: false, coverage: 0.8, keywordPeak: 1.1, cjkChars: 0, latin: true });
    expect(scattered).toMatchObject({ fullCoverFirst: true, keywordLeaderAt: TRUST_TUNING.leaderAt, literalByKeyword: false });
    // Held as written: the literal stage already puts its holders first.
    expect(listTrust({ literal: true, inOrder: true, coverage: 0.8, keywordPeak: 1.1, cjkChars: 0, latin: true }).keywordLeaderAt).toBe(Infinity);
    expect(queryEvidence([{ ref: 1, score: 2, terms: 2 }], 2, true, 'a b', false)).toMatchObject({ inOrder: false, latin: true });
    // A Chinese question naming one English word ("… 有效的 GGUF …") finds that word anywhere: no leader kept.
    expect(listTrust({ ...queryEvidence([], 2, true, '有效的 GGUF', false), coverage: 0.8, keywordPeak: 1.1 }).keywordLeaderAt).toBe(Infinity);
  });

  it('orders the holders of a short CJK term found as written by the keyword list', () => {
    expect(queryEvidence([], 1, true, '喜忌干支有别').cjkChars).toBe(6);
    expect(queryEvidence([], 1, true, '“杀伤枭刃，用神之不善”').cjkChars).toBe(9);
    expect(queryEvidence([], 1, true, 'shi shen 食神').cjkChars).toBe(0);
    expect(queryEvidence([], 1, true, 'wood').cjkChars).toBe(0);
    const trust = (literal: boolean, cjkChars: number) => listTrust({ literal, inOrder: literal, coverage: 1, keywordPeak: 1, cjkChars, latin: !cjkChars }).literalByKeyword;
    expect(trust(true, 6)).toBe(true);
    expect(trust(true, 2)).toBe(true);
    // A quoted line keeps the fused order; so do English queries and queries not found as written.
    expect(trust(true, 10)).toBe(false);
    expect(trust(true, 0)).toBe(false);
    expect(trust(false, 4)).toBe(false);
    // Holders 2, 4, 5 (keyword ranks 3, 1, 2) take their places in keyword order; the others stay put.
    const list = [{ ref: 1 }, { ref: 2, keyword: { rank: 3 } }, { ref: 3, keyword: { rank: 9 } }, { ref: 4, keyword: { rank: 1 } }, { ref: 5, keyword: { rank: 2 } }];
    expect(literalByKeyword(list, new Set([2, 4, 5])).map((c) => c.ref)).toEqual([1, 4, 3, 5, 2]);
    expect(literalByKeyword(list, new Set())).toBe(list);
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

  it('moves a passage holding the query\'s words above those outside the keyword list the expansions lifted over it, and no further', () => {
    // 1 and 2: no keyword hit, lifted by a synonym; 3: some of the query's words; 4: a holder.
    const list = [{ ref: 1, own: 0.01 }, { ref: 3, own: 0.005, keyword: {} }, { ref: 2, own: 0.02 }, { ref: 4, own: 0.015, keyword: {} }];
    const own = (c: { own: number }) => c.own;
    // 2 stands above it on the query's own lists (the vector leg): it stays where it is.
    expect(ownWordsFirst(list, new Set([4]), own).map((c) => c.ref)).toEqual([1, 3, 2, 4]);
    const lifted = [{ ref: 1, own: 0.01 }, { ref: 2, own: 0.012 }, { ref: 4, own: 0.015, keyword: {} }, { ref: 5, own: 0.001 }];
    expect(ownWordsFirst(lifted, new Set([4]), own).map((c) => c.ref)).toEqual([4, 1, 2, 5]);
    expect(ownWordsFirst(lifted, new Set(), own)).toBe(lifted);
  });

  it('lets the keyword list\'s first pass a synonym\'s favourite once the query\'s own words are found', () => {
    const found = listTrust({ literal: false, inOrder: false, coverage: 0.8, keywordPeak: 3, cjkChars: 0, latin: true });
    const open = listTrust({ literal: false, inOrder: false, coverage: 0.5, keywordPeak: 3, cjkChars: 0, latin: true });
    // Ranked by the vector leg and an expansion list, not by the keyword list's head.
    const synonymFavourite = { keyword: { rank: 12 }, vector: { rank: 2 }, profileExpansion: { rank: 1 } };
    expect(leaderPasses(found)(synonymFavourite)).toBe(true);
    expect(leaderPasses(open)(synonymFavourite)).toBe(false);
    // The query's own lists agreeing still hold it back, and so does the keyword list's own second.
    expect(leaderPasses(found)({ keyword: { rank: 8 }, vector: { rank: 2 } })).toBe(false);
    expect(leaderPasses(found)({ keyword: { rank: 2 } })).toBe(false);
  });
});

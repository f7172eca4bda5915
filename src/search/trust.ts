import type { RefScore } from '../storage/roles.ts';

/**
 * Per-query fusion: what a query's own lists show about it decides which list's answer the fused
 * ranking must keep, rather than one weight tuned once for every query. An agent naming a term or
 * quoting a line has its words found as written (the literal stage puts those passages first, and
 * when the query is a short CJK term they keep the keyword list's order among themselves); a
 * question whose own words pick out one passage clearly (most of its terms in it, a keyword score
 * standing out) keeps that passage in the top 3 however the expansions and the vector leg vote;
 * a query whose words are all in some passages keeps those above the ones only its expansions (the
 * same meaning in other words) brought. Where its words find little, the expansions and the
 * vector leg carry the search as fused. Pure and cheap: one pass over the keyword list's head.
 */

/** What a query's own lists say about it. */
export interface QueryEvidence {
  /** Some keyword hit holds the query's words in order, or its English words are in its best hit. */
  literal: boolean;
  /** Some keyword hit holds the query's words in order (false when only its English words were found, scattered, in its best hit). */
  inOrder: boolean;
  /**
   * Share of the query's distinct keyword terms held by its best-covered keyword hit (0..1); null
   * when the store does not count terms per hit.
   */
  coverage: number | null;
  /** How far the keyword list's first score stands above its tenth (1: flat, larger: one clear answer). */
  keywordPeak: number;
  /** Written in CJK alone (no Latin letter), this many CJK characters long; 0 otherwise. */
  cjkChars: number;
  /** Written in Latin letters, with no CJK character. */
  latin: boolean;
}

/** What the fusion of one query keeps from its lists. */
export interface ListTrust {
  /** Keyword hits holding every term of the query rank above the hits only expansions brought. */
  fullCoverFirst: boolean;
  /** The keyword list's first hit is placed at this 1-based position or higher (Infinity: as fused). */
  keywordLeaderAt: number;
  /** The passages holding the query as written rank among themselves by the keyword list's order, not the fused one. */
  literalByKeyword: boolean;
  /** Why, in words (explain). */
  why: string;
}

/** The knobs of the decision, chosen on the tuning halves of the eval sets (eval/README.md, BENCHMARKS.md). */
export const TRUST_TUNING = {
  /** Coverage at and above which the query's own words count as found: they rank above synonyms. */
  found: 0.75,
  /** The keyword list's first hit is kept within this many places … */
  leaderAt: 3,
  /** … when the query's terms cover at least this share of its best hit … */
  leaderCoverage: 0.4,
  /** … and its first score stands at least this far above its tenth. */
  leaderPeak: 1.5,
  /** It passes no passage the keyword list itself ranks within this many … */
  leaderKeeps: 2,
  /** … nor one this many lists rank in their top 10 (they agree on it). */
  leaderAgreed: 2,
  /** A query found as written, in CJK alone and at most this long, names a term: its holders rank in keyword order. */
  termChars: 6,
};

/** The evidence of a query from its keyword list (best first) and its count of distinct terms. */
export function queryEvidence(kw: readonly RefScore[], termCount: number, literal: boolean, query = '', inOrder = literal): QueryEvidence {
  let best = -1;
  const head = Math.min(kw.length, 50);
  for (let i = 0; i < head; i++) {
    const t = kw[i]!.terms;
    if (t === undefined) {
      best = -1;
      break;
    }
    if (t > best) best = t;
  }
  const coverage = !kw.length || !termCount ? 0 : best < 0 ? null : Math.min(1, best / termCount);
  const first = kw[0]?.score ?? 0;
  const tenth = kw[Math.min(9, kw.length - 1)]?.score ?? 0;
  const keywordPeak = kw.length && tenth > 0 ? first / tenth : 1;
  const cjk = query.match(CJK)?.length ?? 0;
  const latin = LATIN.test(query);
  return { literal, inOrder, coverage, keywordPeak, cjkChars: latin ? 0 : cjk, latin: latin && !cjk };
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;
const LATIN = /\p{Script=Latin}/u;

/** What this query's fusion keeps (see the module comment). */
export function listTrust(e: QueryEvidence, t = TRUST_TUNING): ListTrust {
  if (e.literal) {
    // A CJK term found as written: the keyword list's order (how densely a passage holds it) picks
    // among its holders; the vector leg and the expansions only vote on the rest. A longer line
    // keeps the fused order: its holders are few, and the vector leg tells a line's own passage
    // from the section around it that repeats it as a heading.
    const named = e.cjkChars > 0 && e.cjkChars <= t.termChars;
    // An English question whose words are all in the keyword list's first hit, in order nowhere (asked
    // in other words than the passage's): that hit answers it by its own words; the vector leg may
    // miss it. (A Chinese question naming one English word finds that word anywhere.)
    const scattered = e.latin && !e.inOrder;
    return {
      fullCoverFirst: true,
      keywordLeaderAt: scattered ? t.leaderAt : Infinity,
      literalByKeyword: named,
      why: scattered ? `its English words in its best keyword hit: its first kept in the top ${t.leaderAt}` : `the query as written${named ? ', its holders in keyword order' : ''}`,
    };
  }
  const c = e.coverage ?? 0;
  const leader = c >= t.leaderCoverage && e.keywordPeak >= t.leaderPeak;
  return {
    fullCoverFirst: c >= t.found,
    keywordLeaderAt: leader ? t.leaderAt : Infinity,
    literalByKeyword: false,
    why: `${Math.round(c * 100)} % of its terms in one passage, keyword peak ${e.keywordPeak.toFixed(2)}${leader ? `: its first kept in the top ${t.leaderAt}` : ''}`,
  };
}

/**
 * Candidates the keyword list found holding all the query's terms (`full`) ahead of those only
 * expansion lists brought (neither the keyword nor the vector list), each part in its order.
 */
export function fullCoverFirst<T extends { ref: number; keyword?: unknown; vector?: unknown }>(list: T[], full: ReadonlySet<number>): T[] {
  if (!full.size) return list;
  let left = full.size;
  const out: T[] = [];
  const held: T[] = [];
  for (const c of list) {
    if (left > 0 && !c.keyword && !c.vector) {
      held.push(c);
      continue;
    }
    if (full.has(c.ref)) left--;
    out.push(c);
    if (left === 0 && held.length) out.push(...held.splice(0));
  }
  return [...out, ...held];
}

/**
 * The passages that hold most of the query's own words (`holders`) never stand below a passage
 * holding none of them that the expansions lifted over them: each holder moves up past the
 * candidates ahead of it outside the keyword list that would stand below it on the query's own
 * lists alone (`own`: its keyword and vector votes). Candidates holding some of the query's words,
 * or ahead on the vector leg alone, keep their places; an expansion still orders what the query's
 * words leave open. Stable; holders keep their order.
 */
export function ownWordsFirst<T extends { ref: number; keyword?: unknown }>(list: T[], holders: ReadonlySet<number>, own: (c: T) => number): T[] {
  if (!holders.size) return list;
  const out = list.slice();
  for (let i = 1; i < out.length; i++) {
    const c = out[i]!;
    if (!holders.has(c.ref)) continue;
    const mine = own(c);
    let j = i;
    while (j > 0 && !out[j - 1]!.keyword && own(out[j - 1]!) < mine) j--;
    if (j < i) out.splice(j, 0, ...out.splice(i, 1));
  }
  return out;
}

/**
 * `ref` moved up towards the 1-based position `at` when it stands lower, past the candidates
 * `passable` allows only (it stops below the first it may not pass); the others keep their order.
 */
export function placeAtLeast<T extends { ref: number }>(list: T[], ref: number | undefined, at: number, passable: (c: T) => boolean = () => true): T[] {
  if (ref === undefined || !Number.isFinite(at)) return list;
  const i = list.findIndex((c) => c.ref === ref);
  if (i < at) return list;
  let j = i;
  while (j > at - 1 && passable(list[j - 1]!)) j--;
  if (j === i) return list;
  const out = list.slice();
  const [c] = out.splice(i, 1);
  out.splice(j, 0, c!);
  return out;
}

type Ranks = { keyword?: { rank: number }; vector?: { rank: number }; expansion?: { rank: number }; profileExpansion?: { rank: number } };

/**
 * Which candidates the keyword list's first may pass on its way up (placeAtLeast): those the keyword
 * list itself ranks below its first few and that fewer lists agree on (rank ≤ 10 in each). Once the
 * query's own words are found (fullCoverFirst), only its own lists (keyword, vector) count as
 * agreeing: a synonym's list vouches for no passage against one holding the query's words.
 */
export function leaderPasses(trust: ListTrust, t = TRUST_TUNING): (c: Ranks) => boolean {
  const votes = (c: Ranks) =>
    (trust.fullCoverFirst ? [c.keyword, c.vector] : [c.keyword, c.vector, c.expansion, c.profileExpansion]).filter((x) => x && x.rank <= 10).length;
  return (c) => (!c.keyword || c.keyword.rank > t.leaderKeeps) && votes(c) < t.leaderAgreed;
}

/** The candidates in `literal` reordered among themselves by their keyword rank; the others keep their places. */
export function literalByKeyword<T extends { ref: number; keyword?: { rank: number } }>(list: T[], literal: ReadonlySet<number>): T[] {
  if (!literal.size) return list;
  const held = list.filter((c) => literal.has(c.ref)).sort((a, b) => (a.keyword?.rank ?? Infinity) - (b.keyword?.rank ?? Infinity));
  let i = 0;
  return list.map((c) => (literal.has(c.ref) ? held[i++]! : c));
}

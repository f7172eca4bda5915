import type { Expansion } from '../core/profile.ts';

/**
 * Pseudo-relevance feedback: the terms the top keyword hits share, weighted by how rare they are in
 * the whole index, searched as expansions (below the query's own words). RAGSYNC_PRF=1 turns it on.
 */
export const prfEnabled = (env: NodeJS.ProcessEnv = process.env) => env.RAGSYNC_PRF === '1';

export const PRF_DOCS = 5;
export const PRF_TERMS = 8;
/** Relative to a profile's expansions: a guess from the hits, not the field's own equivalence. */
export const PRF_WEIGHT = 0.5;

/**
 * Terms found in at least two of the top `docs` (as token lists), none of the query's own, scored by
 * the share of top docs holding them × idf; terms in more than a tenth of all chunks are noise.
 */
export function feedbackTerms(
  top: string[][],
  own: ReadonlySet<string>,
  stats: { chunks: number; df: ReadonlyMap<string, number> },
  n = PRF_TERMS,
): Expansion[] {
  const docsWith = new Map<string, number>();
  for (const tokens of top) for (const t of new Set(tokens)) if (!own.has(t) && useful(t)) docsWith.set(t, (docsWith.get(t) ?? 0) + 1);
  const scored: [string, number][] = [];
  for (const [t, d] of docsWith) {
    const df = stats.df.get(t);
    if (d < 2 || !df || df > stats.chunks / 10) continue;
    scored.push([t, (d / top.length) * Math.log(stats.chunks / df)]);
  }
  scored.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const best = scored[0]?.[1] ?? 1;
  return scored.slice(0, n).map(([term, s]) => ({ term, from: 'top hits', weight: PRF_WEIGHT * (s / best), via: 'prf' }));
}

// A lone CJK character or a number says little on its own.
const useful = (t: string) => !/^\d+$/.test(t) && (/^[a-z]/.test(t) ? t.length >= 3 : Array.from(t).length >= 2);

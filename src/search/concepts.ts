import type { Expansion } from '../core/profile.ts';
import { queryTerms, type Analyzer } from '../core/text/analyzer.ts';
import { keyRuns } from '../core/text/english-keys.ts';
import { topPositions } from '../core/top-positions.ts';
import { foldTerm } from './expand.ts';
import type { ChunkFilter } from '../core/types.ts';
import type { RefScore, SearchStore } from '../storage/roles.ts';

/**
 * Structured query translation: the query's English words and phrases are concepts, each with
 * the terms that may stand for it in the text (the words themselves, their translations with the
 * likelihood the lexicon gives them). A passage scores for a concept at most once and the score
 * sums over the concepts it covers, so the passage covering most of what the question asks about
 * comes first; in one flat OR list a common translation, or the many senses of one word, outranks
 * it. Scored as a probabilistic structured query (Darwish & Oard): a concept's passages count
 * its terms' likelihoods (at most 1), its rarity is the likelihood-weighted sum of their counts.
 */

export interface ConceptTerm {
  term: string;
  /** Likelihood the term stands for the concept, in (0, 1]: the query's own words are 1. */
  weight: number;
}

export interface Concept {
  /** The query's words it stands for. */
  from: string;
  terms: ConceptTerm[];
}

const CJK_RUN = /\p{Script=Han}{2,}/gu;

const fold = foldTerm;

/**
 * The concepts of a query: one per part of the query expansions stand for (its own words a term
 * of weight 1 when English), one per remaining English content word, one per run of Chinese characters.
 */
export function conceptsOf(query: string, expansions: readonly Expansion[]): Concept[] {
  const byFrom = new Map<string, Concept>();
  for (const e of expansions) {
    const key = fold(e.from);
    let c = byFrom.get(key);
    if (!c) byFrom.set(key, (c = { from: e.from, terms: /[A-Za-z]/.test(e.from) ? [{ term: e.from, weight: 1 }] : [] }));
    if (!c.terms.some((t) => fold(t.term) === fold(e.term))) c.terms.push({ term: e.term, weight: Math.min(1, e.weight) });
  }
  // Words an expansion's phrase covers are part of its concept; the others are concepts of their own.
  const covered = new Set([...byFrom.values()].flatMap((c) => keyRuns(c.from).flat().map((w) => w.key)));
  for (const w of keyRuns(query).flat()) {
    if (covered.has(w.key)) continue;
    covered.add(w.key);
    byFrom.set(fold(w.word), { from: w.word, terms: [{ term: w.word, weight: 1 }] });
  }
  // A mixed query's Chinese runs are concepts as written (a passage holds one when it holds all its bigrams).
  for (const run of query.match(CJK_RUN) ?? []) if (!byFrom.has(run)) byFrom.set(run, { from: run, terms: [{ term: run, weight: 1 }] });
  return [...byFrom.values()];
}

/** BM25's idf of `n` passages among `total`. */
const idf = (n: number, total: number) => Math.log(1 + (total - n + 0.5) / (n + 0.5));

/**
 * Concept scores of the passages, by position: `sets[c][t]` holds the positions (0 ≤ p < size)
 * of the passages holding term t of concept c; `total` is how many passages are searched.
 * Returns the score per position and the positions scored.
 */
export function scoreConcepts(
  concepts: readonly Concept[],
  sets: readonly (readonly Int32Array[])[],
  total: number,
  size: number,
): { score: Float64Array; scored: Int32Array } {
  const score = new Float64Array(size);
  const like = new Float64Array(size);
  // Typed lists of positions (a common term's passages run to tens of thousands), long enough for
  // every listing: a term of weight 0 touches a passage without marking it.
  const listed = sets.map((c) => c.reduce((n, set) => n + set.length, 0));
  const scored = new Int32Array(listed.reduce((a, b) => a + b, 0));
  const touched = new Int32Array(Math.max(0, ...listed));
  let nScored = 0;
  // Plain loops over locals: a one-shot process runs these once, over tens of thousands of
  // positions, mostly before the optimising compiler has caught up.
  for (let ci = 0; ci < concepts.length; ci++) {
    const terms = concepts[ci]!.terms;
    let df = 0;
    let nTouched = 0;
    for (let ti = 0; ti < terms.length; ti++) {
      const set = sets[ci]![ti]!;
      const weight = terms[ti]!.weight;
      const size = set.length;
      df += weight * size;
      for (let i = 0; i < size; i++) {
        const p = set[i]!;
        const l = like[p]!;
        if (l === 0) touched[nTouched++] = p;
        like[p] = l + weight;
      }
    }
    if (!nTouched) continue;
    const w = idf(Math.max(1, df), Math.max(total, 1));
    for (let i = 0; i < nTouched; i++) {
      const p = touched[i]!;
      const s = score[p]!;
      if (s === 0) scored[nScored++] = p;
      score[p] = s + w * Math.min(1, like[p]!);
      like[p] = 0;
    }
  }
  return { score, scored: scored.subarray(0, nScored) };
}


/**
 * The `n` passages covering most of the query's concepts (its words with their expansions), when
 * the store can list each term's passages; else null (search falls back to one ORed list).
 */
export async function conceptRefs(
  store: Pick<SearchStore, 'matchSets' | 'filterRefs'>,
  query: string,
  expansions: readonly Expansion[],
  n: number,
  filter: ChunkFilter,
  analyzers: readonly Analyzer[],
): Promise<RefScore[] | null> {
  if (!store.matchSets) return null;
  const concepts = conceptsOf(query, expansions);
  // A term's tokens under each analyzer in force: a passage holds the term when it holds all of one list.
  const lists: string[][] = [];
  const where = concepts.map((c) =>
    c.terms.map((t) => [...new Set(analyzers.map((a) => queryTerms(a, t.term).join(' ')))].filter(Boolean).map((l) => lists.push(l.split(' ')) - 1)),
  );
  const { sets, refs, total, filtered } = await store.matchSets(lists, filter);
  const union = (ix: number[]) => (ix.length === 1 ? sets[ix[0]!]! : Int32Array.from(new Set(ix.flatMap((i) => [...sets[i]!]))));
  const { score, scored } = scoreConcepts(concepts, where.map((c) => c.map(union)), total, refs.length);
  const ranked = (ps: number[]) => ps.map((p) => ({ ref: refs[p]!, score: score[p]! }));
  if (filtered) return ranked(topPositions(score, scored, n));
  const head = ranked(topPositions(score, scored, n * 4));
  const pass = new Set(await store.filterRefs(head.map((h) => h.ref), filter));
  return head.filter((h) => pass.has(h.ref)).slice(0, n);
}

import type { Expansion } from '../core/profile.ts';
import { englishWords, keyRuns, wordKey } from '../core/text/english-keys.ts';
import { LruCache } from '../core/lru.ts';

/**
 * Query expansion: terms that mean what the query says in other words (a profile's thesaurus or
 * glossary, the corpus lexicon's Chinese words for English ones), gathered per query, deduplicated
 * and capped. They are searched as a list of their own and fused below the user's own words
 * (search.ts), so an expansion can lift a passage but never outrank what the query literally says.
 */

/** Where expansions come from: a profile's expandQuery, the corpus lexicon … */
export type Expander = (query: string) => Expansion[] | Promise<Expansion[]>;

/** Most expansions one query keeps (the strongest): beyond a dozen or so they only add noise. */
export const MAX_EXPANSIONS = 24;
/**
 * Most expansions of the lexicon list when concept scoring ranks it: a concept counts once however
 * many senses it has, so each English word keeps its likely senses (see lexicon.ts PER_KEY).
 */
export const MAX_CONCEPT_EXPANSIONS = 80;

/**
 * How expansion weighs in (search.ts ExpansionTuning), as measured on the dev eval sets
 * (BENCHMARKS.md, "Query expansion"): the expansion list's RRF weight relative to the query's own
 * keyword list, when the query is literal and when not; the expanded query vector; the literal bar.
 */
export const EXPANSION_TUNING = { weight: 3, besideProfile: 1, literalWeight: 1, expandVector: true, literal: 0.5, concepts: true, perKey: 8 };

/** How terms are compared: compatibility forms folded, lower case, trimmed. */
export const foldTerm = (s: string) => s.normalize('NFKC').toLowerCase().trim();
const fold = foldTerm;

/**
 * Every expander's answer for `query`, one entry per term (the strongest weight wins, its `from`
 * and `via` kept), terms the query already contains left out, strongest first, at most `cap`.
 * An expander that throws is skipped: expansion is a bonus, never a reason for a search to fail.
 */
export async function gatherExpansions(query: string, expanders: readonly Expander[], cap = MAX_EXPANSIONS): Promise<Expansion[]> {
  const q = fold(query);
  const best = new Map<string, Expansion>();
  let order = 0;
  const seen = new Map<string, number>();
  for (const ex of expanders) {
    let list: Expansion[];
    try {
      list = await ex(query);
    } catch {
      continue;
    }
    for (const e of list) {
      const term = e.term.trim();
      const key = fold(term);
      if (!key || q.includes(key) || !(e.weight > 0)) continue;
      const weight = Math.min(1, e.weight);
      const old = best.get(key);
      if (!old || weight > old.weight) best.set(key, { ...e, term, weight });
      if (!seen.has(key)) seen.set(key, order++);
    }
  }
  return [...best.entries()]
    .sort((a, b) => b[1].weight - a[1].weight || seen.get(a[0])! - seen.get(b[0])!)
    .slice(0, cap)
    .map(([, e]) => e);
}

/** Folded hit texts (the same passages come up query after query; a text is its own key), the least recently used dropped beyond the bound. */
const FOLDED_TEXTS = 4096;
const folded = new LruCache<string>(FOLDED_TEXTS);
function foldedText(text: string): string {
  let t = folded.get(text);
  if (t === undefined) folded.set(text, (t = fold(text)));
  return t;
}

/**
 * The weight a hit of the expansion list earns: the strongest expansion its text contains (a
 * term can also match through the heading or context line only: then the weakest in force).
 */
export function expansionWeightOf(text: string, expansions: readonly Expansion[]): number {
  const t = foldedText(text);
  let w = 0;
  let min = 1;
  for (const e of expansions) {
    min = Math.min(min, e.weight);
    if (e.weight > w && t.includes(fold(e.term))) w = e.weight;
  }
  return w || min;
}

/**
 * The share of a query's English content words (by key: "optimization" meets "optimizing") that
 * a text holds; 0 for a query without any. A high share means the query names the passage.
 */
export function literalShare(query: string, text: string): number {
  const keys = new Set(keyRuns(query).flat().map((w) => w.key));
  if (!keys.size) return 0;
  const have = new Set(englishWords(text).map(wordKey));
  let n = 0;
  for (const k of keys) if (have.has(k)) n++;
  return n / keys.size;
}

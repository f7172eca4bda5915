import type { Expansion } from '../core/profile.ts';
import { keyRuns } from '../core/text/english-keys.ts';
import type { LexiconRow, SearchStore } from '../storage/roles.ts';
import type { Expander } from './expand.ts';
import type { TermCountCache } from './term-counts.ts';

/**
 * English words of a query → the Chinese words of the corpus the dictionary glosses them with,
 * read from the index's lexicon table (sync/lexicon builds it): one indexed lookup per query.
 * Phrases first ("message queue" → 消息队列): a word inside a matched phrase is not looked up on
 * its own. Each key keeps its few best senses: the entry's earliest senses, then the words more
 * documents of the corpus use.
 */

/** Chinese words kept per English word or phrase. */
export const PER_KEY = 2;
const MAX_PHRASE = 3;

/**
 * How likely a row is the word the corpus uses for the English one: the documents using it, halved
 * for each later sense (a word's first senses are what it means), a single character a quarter.
 */
export const senseScore = (r: Pick<LexiconRow, 'sense' | 'headword' | 'df'>) =>
  (r.df + 1) * Math.pow(0.5, Math.min(r.sense, 6)) * ([...r.headword].length === 1 ? 0.25 : 1);

/**
 * Weight of an expansion: the likelihood it is the word meant, its sense score's share of all
 * the Chinese words the dictionary gives the English word or phrase in this corpus (a phrase with
 * one translation: 1; a word with many senses: each a fraction).
 */
export function lexiconWeight(row: Pick<LexiconRow, 'sense' | 'headword' | 'df'>, sum: number): number {
  return Math.max(0.01, Math.min(1, senseScore(row) / sum));
}

const better = (a: LexiconRow, b: LexiconRow) => senseScore(b) - senseScore(a) || (a.headword < b.headword ? -1 : 1);

/** The `via` of a pair of characters standing for two neighbouring English words. */
export const COMPOUND = 'lexicon pair';

/**
 * Compounds left once the profiles' expansions are known: none when a profile read the question
 * in its field's own vocabulary (its phrases, or the one passage heading it answers with: "useful
 * god" of "Ji earth born in the Yin month, useful god" is then the profile's to leave out), so a
 * guess at a pair of characters speaks only where the field's vocabulary found nothing.
 */
export function withoutCompoundsBesideProfile(list: readonly Expansion[], profile: readonly Expansion[]): Expansion[] {
  return profile.length ? list.filter((e) => e.via !== COMPOUND) : [...list];
}

/** Single characters of each of two neighbouring words tried together (their likeliest senses). */
export const COMPOUND_CHARS = 6;
/** Chunks that must hold a pair of characters for it to stand for two neighbouring English words. */
export const MIN_COMPOUND_CHUNKS = 3;

/**
 * Two neighbouring English words as the one word of two characters the corpus writes for them
 * ("clear qi" 清气, "earth net" 地网, "great forest" 大林): a character of each word's senses, in
 * the English order, the pair the most chunks hold when at least three do. Classical texts say in
 * one such pair what a dictionary glosses a character at a time.
 */
function compounds(parts: readonly { from: string; rows: readonly LexiconRow[] }[], counts: TermCountCache): { pairs: string[]; pick: () => Expansion[] } {
  const chars = parts.map((p) => [...new Set(p.rows.filter((r) => [...r.headword].length === 1).sort(better).map((r) => r.headword))].slice(0, COMPOUND_CHARS));
  const pairs: string[] = [];
  for (let i = 0; i + 1 < parts.length; i++) for (const a of chars[i]!) for (const b of chars[i + 1]!) pairs.push(a + b);
  return {
    pairs,
    pick() {
      const out: Expansion[] = [];
      for (let i = 0; i + 1 < parts.length; i++) {
        let best = '';
        let top = MIN_COMPOUND_CHUNKS - 1;
        for (const a of chars[i]!) for (const b of chars[i + 1]!) if (counts.n(a + b) > top) (top = counts.n(a + b)), (best = a + b);
        if (best) out.push({ term: best, from: `${parts[i]!.from} ${parts[i + 1]!.from}`, weight: 1, via: COMPOUND });
      }
      return out;
    },
  };
}

export async function lexiconExpansions(
  query: string,
  lookup: (keys: string[]) => Promise<LexiconRow[]>,
  perKey = PER_KEY,
  counts?: TermCountCache,
): Promise<Expansion[]> {
  const runs = keyRuns(query);
  if (!runs.length) return [];
  const grams = new Set<string>();
  for (const run of runs) {
    for (let i = 0; i < run.length; i++) {
      for (let n = 1; n <= MAX_PHRASE && i + n <= run.length; n++) grams.add(run.slice(i, i + n).map((w) => w.key).join(' '));
    }
  }
  const byKey = new Map<string, LexiconRow[]>();
  for (const r of await lookup([...grams])) byKey.set(r.gloss, [...(byKey.get(r.gloss) ?? []), r]);
  const out: Expansion[] = [];
  const found: { from: string; rows: LexiconRow[] }[][] = [];
  for (const run of runs) {
    const parts: { from: string; rows: LexiconRow[] }[] = [];
    // Longest match first at each position, left to right.
    for (let i = 0; i < run.length; ) {
      let n = Math.min(MAX_PHRASE, run.length - i);
      for (; n > 0; n--) if (byKey.has(run.slice(i, i + n).map((w) => w.key).join(' '))) break;
      if (!n) {
        // A word the dictionary lacks ends the words that sit side by side.
        if (parts.length) found.push(parts.splice(0));
        i++;
        continue;
      }
      const part = run.slice(i, i + n);
      const all = [...byKey.get(part.map((w) => w.key).join(' '))!].sort(better);
      const rows = all.slice(0, perKey);
      const from = part.map((w) => w.word).join(' ');
      const sum = all.reduce((a, r) => a + senseScore(r), 0);
      for (const r of rows) out.push({ term: r.headword, from, weight: lexiconWeight(r, sum), via: 'lexicon' });
      parts.push({ from, rows: all });
      i += n;
    }
    if (parts.length) found.push(parts);
  }
  if (counts?.available) {
    const each = found.filter((p) => p.length > 1).map((p) => compounds(p, counts));
    await counts.load(each.flatMap((c) => c.pairs));
    for (const c of each) for (const e of c.pick()) if (!out.some((o) => o.term === e.term)) out.push(e);
  }
  return out;
}

/** The corpus lexicon of a store as an expander (none when the backend keeps no lexicon). */
export function lexiconExpander(store: Pick<SearchStore, 'lexiconLookup'>, perKey: () => number = () => PER_KEY, counts?: TermCountCache): Expander {
  return (q) => (store.lexiconLookup && /[A-Za-z]/.test(q) ? lexiconExpansions(q, (keys) => store.lexiconLookup!(keys), perKey(), counts) : []);
}

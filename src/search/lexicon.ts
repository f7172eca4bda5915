import type { Expansion } from '../core/profile.ts';
import { keyRuns } from '../core/text/english-keys.ts';
import type { LexiconRow, SearchStore } from '../storage/roles.ts';
import type { Expander } from './expand.ts';

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

export async function lexiconExpansions(query: string, lookup: (keys: string[]) => Promise<LexiconRow[]>, perKey = PER_KEY): Promise<Expansion[]> {
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
  for (const run of runs) {
    // Longest match first at each position, left to right.
    for (let i = 0; i < run.length; ) {
      let n = Math.min(MAX_PHRASE, run.length - i);
      for (; n > 0; n--) if (byKey.has(run.slice(i, i + n).map((w) => w.key).join(' '))) break;
      if (!n) {
        i++;
        continue;
      }
      const part = run.slice(i, i + n);
      const all = [...byKey.get(part.map((w) => w.key).join(' '))!].sort(better);
      const rows = all.slice(0, perKey);
      const from = part.map((w) => w.word).join(' ');
      const sum = all.reduce((a, r) => a + senseScore(r), 0);
      for (const r of rows) out.push({ term: r.headword, from, weight: lexiconWeight(r, sum), via: 'lexicon' });
      i += n;
    }
  }
  return out;
}

/** The corpus lexicon of a store as an expander (none when the backend keeps no lexicon). */
export function lexiconExpander(store: Pick<SearchStore, 'lexiconLookup'>, perKey: () => number = () => PER_KEY): Expander {
  return (q) => (store.lexiconLookup && /[A-Za-z]/.test(q) ? lexiconExpansions(q, (keys) => store.lexiconLookup!(keys), perKey()) : []);
}

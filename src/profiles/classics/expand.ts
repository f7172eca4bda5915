import type { Expansion } from '../../core/profile.ts';
import { glossaryMatches } from './glossary.ts';
import { keywordsOf } from './lexicon.ts';
import { normalizeForSearch } from './normalize.ts';
import { compoundTerms, emptyMentions, entryHeadings, thesaurusMatches, type Match } from './thesaurus.ts';

/**
 * Query analysis for the classics: the thesaurus (modern Chinese → the books' terms), the English
 * glossary (BaZi English and pinyin → the books' terms), and, when the query names one 天干 and a
 * month or season, the 穷通宝鉴 entry heading (寅月甲木, 三春甲木) that answers exactly that.
 * RAGSYNC_CLASSICS_THESAURUS=0 / RAGSYNC_CLASSICS_GLOSSARY=0 turn a part off, for comparisons.
 */
export function expandClassicsQuery(query: string, env: NodeJS.ProcessEnv = process.env): Expansion[] {
  const mentions = emptyMentions();
  const term = isTermQuery(query);
  const out: Expansion[] = [];
  const add = (ms: Match[], via: string) => {
    for (const m of ms) out.push({ ...m, via });
  };
  const thesaurus = env.RAGSYNC_CLASSICS_THESAURUS !== '0';
  const glossary = env.RAGSYNC_CLASSICS_GLOSSARY !== '0';
  if (thesaurus) add(thesaurusMatches(query, mentions), 'thesaurus');
  if (glossary) add(glossaryMatches(query, mentions), 'glossary');
  if (thesaurus || glossary) {
    const from = [...mentions.stems, ...mentions.months, ...mentions.seasons].join('+');
    const headings = entryHeadings(mentions);
    // One 天干 in one month or season is one 穷通宝鉴 entry: that heading is the answer, and the
    // expansions are searched as one OR list, where common words (用神, 日主) would drown it.
    if (headings.length && !term) return headings.map((t) => ({ term: t, from, weight: 1, via: 'thesaurus' }));
    for (const term of headings) out.push({ term, from, weight: 1, via: 'thesaurus' });
    if (!term) add(compoundTerms(normalizeForSearch(query), out.filter((e) => e.weight >= 0.8).map((e) => e.term)), 'thesaurus');
  }
  // A query that is the books' own term already says it their way: other terms only dilute it.
  return strongestPerTerm(term ? out.map((e) => ({ ...e, weight: e.weight * TERM_QUERY_SCALE })) : out);
}

/** Weight left to expansions of a query that is nothing but lexicon terms (伤官配印, 甲木寅月用神). */
export const TERM_QUERY_SCALE = 0.3;

/** True when the query, normalised, is lexicon terms end to end. */
export function isTermQuery(query: string): boolean {
  const q = normalizeForSearch(query).replace(/\s+/g, '');
  if (!q || /[a-z]/.test(q)) return false;
  let rest = q;
  for (const k of keywordsOf(q).sort((a, b) => b.length - a.length)) rest = rest.split(k).join('');
  return rest.length === 0;
}

/** One expansion per term: the strongest, first found on a tie. */
function strongestPerTerm(list: Expansion[]): Expansion[] {
  const best = new Map<string, Expansion>();
  for (const e of list) {
    const b = best.get(e.term);
    if (!b || e.weight > b.weight) best.set(e.term, e);
  }
  return [...best.values()];
}

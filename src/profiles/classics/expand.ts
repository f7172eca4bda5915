import type { Expansion } from '../../core/profile.ts';
import { glossaryMatches } from './glossary.ts';
import { emptyMentions, entryHeadings, thesaurusMatches, type Match } from './thesaurus.ts';

/**
 * Query analysis for the classics: the thesaurus (modern Chinese → the books' terms), the English
 * glossary (BaZi English and pinyin → the books' terms), and, when the query names one 天干 and a
 * month or season, the 穷通宝鉴 entry heading (寅月甲木, 三春甲木) that answers exactly that.
 * RAGSYNC_CLASSICS_THESAURUS=0 / RAGSYNC_CLASSICS_GLOSSARY=0 turn a part off, for comparisons.
 */
export function expandClassicsQuery(query: string, env: NodeJS.ProcessEnv = process.env): Expansion[] {
  const mentions = emptyMentions();
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
    for (const term of entryHeadings(mentions)) out.push({ term, from, weight: 1, via: 'thesaurus' });
  }
  return strongestPerTerm(out);
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

import type { Expansion } from '../../core/profile.ts';
import { GLOSSARY_TEXT } from '../bookmarks/glossary-terms.ts';
import { parseGlossary, type GlossaryEntry } from '../bookmarks/glossary.ts';

/**
 * The tech glossary read the other way, Chinese → English: a question asked in Chinese about code
 * written in English searches the English words the glossary renders those Chinese words with.
 * Chinese words of the query are matched longest first, left to right; looser renderings (`~`)
 * and one-character words are left out (they occur inside too many others).
 */
const LONGEST = 6;
/** English phrases searched per Chinese word: the glossary's first forms (the usual word and its inflections). */
const PHRASES = 3;

export interface ReverseGlossary {
  expand(query: string): Expansion[];
  readonly size: number;
}

export function reverseGlossary(entries: readonly GlossaryEntry[]): ReverseGlossary {
  const byTerm = new Map<string, string[]>();
  for (const e of entries) {
    for (const t of e.terms) {
      if (t.weight < 1 || [...t.term].length < 2) continue;
      const old = byTerm.get(t.term) ?? [];
      for (const p of e.phrases.slice(0, PHRASES)) if (!old.includes(p)) old.push(p);
      byTerm.set(t.term, old);
    }
  }
  return {
    size: byTerm.size,
    expand(query) {
      const q = [...query.normalize('NFKC')];
      if (!q.some((ch) => /\p{Script=Han}/u.test(ch))) return [];
      const out: Expansion[] = [];
      for (let i = 0; i < q.length; ) {
        let n = Math.min(LONGEST, q.length - i);
        let phrases: string[] | undefined;
        for (; n > 1; n--) if ((phrases = byTerm.get(q.slice(i, i + n).join('')))) break;
        if (!phrases || n < 2) {
          i++;
          continue;
        }
        const from = q.slice(i, i + n).join('');
        for (const p of phrases) out.push({ term: p, from, weight: 1, via: 'glossary' });
        i += n;
      }
      return out;
    },
  };
}

let shared: ReverseGlossary | undefined;

/** The shipped tech glossary, Chinese → English (built once). */
export function reverseTechGlossary(): ReverseGlossary {
  return (shared ??= reverseGlossary(parseGlossary(GLOSSARY_TEXT)));
}

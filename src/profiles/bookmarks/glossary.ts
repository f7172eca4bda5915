import type { Expansion } from '../../core/profile.ts';
import { GLOSSARY_TEXT } from './glossary-terms.ts';

/**
 * The bookmarks' English → Chinese tech glossary as query expansions. An English phrase of the
 * query is matched whole (longest first, left to right, a word in a matched phrase not again);
 * words are folded by a light plural/-e/-y rule on both sides, never by a stemmer, so
 * "conversation" and "conversion" stay apart where Porter makes both `convers`.
 */

export interface GlossaryEntry {
  /** The English phrases, as written in the glossary. */
  phrases: string[];
  terms: { term: string; weight: number }[];
}

/** Weight of a `~` (looser) rendering, and of a one-character word (it also occurs inside others). */
const LOOSE = 0.5;
const MAX_WORDS = 4;

export function parseGlossary(text: string): GlossaryEntry[] {
  const out: GlossaryEntry[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq < 0) throw new Error(`glossary line without "=": ${line}`);
    const phrases = line.slice(0, eq).split(',').map((p) => p.trim()).filter(Boolean);
    const terms = line
      .slice(eq + 1)
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((t) => {
        const loose = t.startsWith('~');
        const term = loose ? t.slice(1) : t;
        return { term, weight: loose || term.length === 1 ? LOOSE : 1 };
      });
    if (!phrases.length || !terms.length) throw new Error(`empty glossary line: ${line}`);
    out.push({ phrases, terms });
  }
  return out;
}

const WORD = /[a-z0-9]+(?:[.+#/][a-z0-9]+)*[+#]*/g;

/** A word folded so inflections meet: plural -s/-es/-ies, a final -e, -y as -i ("proxies" = "proxy"). */
export function foldWord(w: string): string {
  let c = w.toLowerCase();
  if (c.length > 4 && c.endsWith('ies')) c = `${c.slice(0, -3)}i`;
  else if (c.length > 3 && c.endsWith('s') && !/(ss|us|is)$/.test(c)) c = c.slice(0, -1);
  if (c.length > 3 && c.endsWith('e')) c = c.slice(0, -1);
  if (c.length > 3 && c.endsWith('y')) c = `${c.slice(0, -1)}i`;
  return c;
}

/** The words of a text with their positions, lower-cased (hyphens split words: "end-to-end" is three). */
function words(text: string): { key: string; start: number; end: number }[] {
  const lower = text.normalize('NFKC').toLowerCase();
  return [...lower.matchAll(WORD)].map((m) => ({ key: foldWord(m[0]), start: m.index!, end: m.index! + m[0].length }));
}

export interface Glossary {
  /** The glossary's expansions of a query: one per Chinese word of each matched phrase. */
  expand(query: string): Expansion[];
  readonly size: number;
}

export function createGlossary(entries: readonly GlossaryEntry[]): Glossary {
  const byPhrase = new Map<string, GlossaryEntry['terms']>();
  for (const e of entries) {
    for (const p of e.phrases) {
      // The glossary is plain ASCII: no normalising (a one-shot search builds this table).
      const key = (p.toLowerCase().match(WORD) ?? []).map(foldWord).join(' ');
      if (!key) continue;
      const old = byPhrase.get(key);
      // A phrase listed twice keeps every rendering once.
      byPhrase.set(key, old ? [...old, ...e.terms.filter((t) => !old.some((o) => o.term === t.term))] : e.terms);
    }
  }
  return {
    size: byPhrase.size,
    expand(query) {
      if (!/[A-Za-z]/.test(query)) return [];
      const ws = words(query);
      const out: Expansion[] = [];
      for (let i = 0; i < ws.length; ) {
        let n = Math.min(MAX_WORDS, ws.length - i);
        let terms: GlossaryEntry['terms'] | undefined;
        for (; n > 0; n--) if ((terms = byPhrase.get(ws.slice(i, i + n).map((w) => w.key).join(' ')))) break;
        if (!terms) {
          i++;
          continue;
        }
        const from = query.normalize('NFKC').slice(ws[i]!.start, ws[i + n - 1]!.end);
        for (const t of terms) out.push({ term: t.term, from, weight: t.weight, via: 'glossary' });
        i += n;
      }
      return out;
    },
  };
}

let shared: Glossary | undefined;

/** The shipped glossary (parsed once). */
export function techGlossary(): Glossary {
  return (shared ??= createGlossary(parseGlossary(GLOSSARY_TEXT)));
}

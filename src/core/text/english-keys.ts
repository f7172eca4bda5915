import { stemmer } from 'stemmer';

/**
 * English words as lexicon keys: lower-cased, stop words dropped, Porter-stemmed ("queues",
 * "queued", "queuing" → "queu"), so a dictionary gloss and a question's words meet whatever their
 * inflection. The same function builds the keys at index time (from dictionary glosses) and looks
 * them up at query time, so both sides always agree.
 */

/** Function words and question scaffolding: they carry no topic, and their glosses are noise. */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below between both but by ' +
    'can could did do does doing done down during each else etc ever every few for from further get gets getting got had has have having ' +
    'he her here hers him his how i if in into is it its itself just kind lot lots may me might more most much must my no nor not now of ' +
    'off on once one only or other our ours out over own per quite rather really same she should so some something such than that the ' +
    'their them then there these they thing things this those through to too under until up upon us use used using very via was way ' +
    'ways we were what when where whether which while who whom whose why will with within without would yet you your yours ' +
    "instead between s t don doesn isn aren can't won't i'm it's let lets like want need needs make makes made good better best " +
    'new many several versus vs e g eg ie find found look looking show shows tell give gives see say says said go goes going'
  ).split(/\s+/),
);

const WORD = /[a-z0-9]+(?:'[a-z]+)?/g;

/** The words of an English text, lower-cased, in order (apostrophe forms kept whole). */
export function englishWords(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().match(WORD) ?? [];
}

const keys = new Map<string, string | null>();

/** One word's key, or null for a stop word, a number or a one-letter word. */
export function wordKey(word: string): string | null {
  const w = word.toLowerCase();
  let k = keys.get(w);
  if (k === undefined) {
    // Porter keeps "queue" but cuts "queued" to "queu": a final e off the stem makes them agree.
    k = w.length < 2 || ENGLISH_STOP_WORDS.has(w) || /^\d+$/.test(w) || w.includes("'") ? null : stemmer(w).replace(/(?<=...)e$/, '');
    // Memoised: a dictionary build asks for the same few thousand words hundreds of thousands of times.
    if (keys.size < 200_000) keys.set(w, k);
  }
  return k;
}

/** A content word of a text: its key and the word as written. */
export interface KeyedWord {
  key: string;
  word: string;
}

/**
 * The key runs of a text: maximal runs of content words (a stop word or punctuation breaks a
 * run, so a phrase never spans "of" or a comma), each the run's words in order.
 */
export function keyRuns(text: string): KeyedWord[][] {
  const runs: KeyedWord[][] = [];
  for (const part of text.normalize('NFKC').split(/[^A-Za-z0-9' -]+/)) {
    let run: KeyedWord[] = [];
    for (const word of part.match(/[A-Za-z0-9]+(?:'[A-Za-z]+)?/g) ?? []) {
      const key = wordKey(word);
      if (key) run.push({ key, word });
      else if (run.length) (runs.push(run), (run = []));
    }
    if (run.length) runs.push(run);
  }
  return runs;
}

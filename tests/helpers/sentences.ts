import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinProfiles } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import { foldText } from '../../src/core/text/fold.ts';
import { pathMatcher } from '../../src/sources/match.ts';
import { xorshift } from './rng.ts';

/**
 * Sentences sampled at random from the corpora, to search as an agent quoting a line would: the
 * passage holding the sentence should come first. The rule, fixed here so every run (and every
 * checkout measured by bench/sampled-sentences.bench.ts) samples the same sentences:
 *
 * - A sentence is a piece of a file's text between sentence punctuation (。！？；!?; or a line
 *   break), Markdown markup and list numbering stripped, of 6–30 characters (not counting spaces).
 * - It must be a passage's text: some chunk of the shipped chunker holds it (a heading, a
 *   "- URL:" line or a sentence a chunk boundary cut is not a passage's).
 * - Its key (folded: 繁→简, NFKC, lower case; letters and digits only) holds at least 6 characters.
 * - Too generic to name a passage: its key occurs in more than MAX_FILES files of either corpus
 *   (refrains, boilerplate, formulas reprinted everywhere). Below that, a passage reprinted in
 *   several books counts for any of them: a result holding the key is its passage.
 */

export interface Sentence {
  source: string;
  path: string;
  /** The sentence as searched (markup stripped, punctuation as written). */
  query: string;
  /** Folded, letters and digits only: what a result's text must contain to be its passage. */
  key: string;
}

/** A sentence found in more files than this is too generic to name a passage. */
export const MAX_FILES = 5;
/** The test's draw: this many sentences of each corpus, with this seed. */
export const PER_SOURCE = 150;
export const SEED = 20261126;
const MIN_CHARS = 6;
const MAX_CHARS = 30;

const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{N}]+/gu;
/** The key a sentence and a result's text are compared by. */
export const sentenceKey = (s: string): string => foldText(s).replace(NOT_LETTER_OR_DIGIT, '');

const SENTENCE_END = /[。！？；!?;\n]+/u;
function clean(s: string): string {
  return s
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .replace(/\*+|`+|~~/g, '')
    .replace(/^\s*(?:#+|>|[-*+]|\d+[.)、])\s*/u, '')
    .replace(/^[\s\p{P}]+|[\s\p{P}]+$/gu, '')
    .trim();
}

interface Doc {
  source: string;
  path: string;
  key: string;
  text: string;
  chunkKeys: string[];
}

/** The files a source of `config` indexes at `dir` (a clone of its tip), with their chunks' keys. */
export function corpusDocs(config: Config, source: string, dir: string): Doc[] {
  const s = config.sources.find((x) => x.name === source)!;
  const match = pathMatcher(s.include, s.exclude);
  const chunker = builtinProfiles.createChunker(s.chunker, s.chunking);
  const files = execFileSync('git', ['-C', dir, 'ls-files', '-z'], { encoding: 'utf8' }).split('\0');
  return files
    .filter((p) => p && match(p))
    .sort()
    .map((path) => {
      const text = readFileSync(join(dir, path), 'utf8');
      return { source, path, text, key: sentenceKey(text), chunkKeys: chunker.chunk({ path, text }).chunks.map((c) => sentenceKey(c.content)) };
    });
}

/** `perSource` sentences of each source, by the rule above, drawn with `seed`. */
export function sampleSentences(docs: Doc[], sources: string[], perSource: number, seed: number): Sentence[] {
  const rand = xorshift(seed);
  const out: Sentence[] = [];
  for (const source of sources) {
    const candidates: { doc: Doc; query: string; key: string }[] = [];
    const seen = new Set<string>();
    for (const doc of docs.filter((d) => d.source === source)) {
      for (const raw of doc.text.split(SENTENCE_END)) {
        const query = clean(raw);
        const chars = [...query.replace(/\s+/g, '')].length;
        if (chars < MIN_CHARS || chars > MAX_CHARS || query.includes('://')) continue;
        const key = sentenceKey(query);
        if ([...key].length < MIN_CHARS || seen.has(key)) continue;
        seen.add(key);
        candidates.push({ doc, query, key });
      }
    }
    // Fisher–Yates with the seeded generator, then the first that pass the slower checks.
    for (let i = candidates.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [candidates[i], candidates[j]] = [candidates[j]!, candidates[i]!];
    }
    let taken = 0;
    for (const c of candidates) {
      if (taken >= perSource) break;
      if (!c.doc.chunkKeys.some((k) => k.includes(c.key))) continue;
      let files = 0;
      for (const d of docs) if (d.key.includes(c.key) && ++files > MAX_FILES) break;
      if (files > MAX_FILES) continue;
      out.push({ source, path: c.doc.path, query: c.query, key: c.key });
      taken++;
    }
  }
  return out;
}

/** 1-based rank of the first result holding the sentence (its passage or a reprint), or null. */
export function rankOf(s: Sentence, results: { content: string; heading?: string | null }[]): number | null {
  const i = results.findIndex((r) => sentenceKey(r.content).includes(s.key));
  return i >= 0 ? i + 1 : null;
}

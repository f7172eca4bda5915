import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinProfiles, parseConfig } from '../../src/builtin.ts';
import type { ChunkedDocument } from '../../src/core/types.ts';
import { readEvalFile, type EvalCase } from '../../src/search/eval.ts';
import { pathMatcher } from '../../src/sources/match.ts';
import { CORPORA, REPO_ROOT } from '../helpers/tmp.ts';
import { needCorpora } from '../helpers/corpora.ts';
import { EXAMINER_SETS } from '../../bench/eval-set-list.ts';

/**
 * The query-analysis and ranking eval sets against the corpora's tips: every gold path exists, every evidence
 * string is in its file, and some chunk of the shipped chunkers holds one of them (so a hit is
 * possible at all). Held-out sets share no bookmark and no (path, evidence) pair with the dev sets.
 */

const SETS = [
  ...['dev', 'heldout'].flatMap((d) => ['bookmarks-en', 'classics-en', 'classics-zh'].map((f) => `eval/${d}/${f}.jsonl`)),
  ...['tune', 'untouched'].map((d) => `eval/${d}/classics.jsonl`),
  ...EXAMINER_SETS.filter((f) => f.includes('classics')),
];
const configFile = join(REPO_ROOT, 'config', 'ragsync.json');
const config = parseConfig(JSON.parse(readFileSync(configFile, 'utf8')), configFile);
const squash = (s: string) => s.replace(/\s+/g, '');
const MONTH_STEM = /^[正一二三四五六七八九十]+月[甲乙丙丁戊己庚辛壬癸]/;

let tmp: string;
const docs = new Map<string, { text: string; chunks: ChunkedDocument['chunks'] }>();

function load(name: string): void {
  const dir = join(tmp, name);
  execFileSync('git', ['clone', '--quiet', join(CORPORA, `${name}.bundle`), dir]);
  const s = config.sources.find((x) => x.name === name)!;
  const match = pathMatcher(s.include, s.exclude);
  const chunker = builtinProfiles.createChunker(s.chunker, s.chunking);
  const files = execFileSync('git', ['-C', dir, 'ls-files', '-z'], { encoding: 'utf8' }).split('\0');
  for (const path of files.filter((p) => p && match(p))) {
    const text = readFileSync(join(dir, path), 'utf8');
    docs.set(`${name}:${path}`, { text: squash(text), chunks: chunker.chunk({ path, text }).chunks });
  }
}

const corpus = needCorpora('classics.bundle', 'bookmarks.bundle');

describe.skipIf(!corpus.ok)(corpus.title('query-analysis eval sets against the corpora tips'), () => {
  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), 'ragsync-eval-sets-'));
    load('classics');
    load('bookmarks');
  });
  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it.each(SETS)('%s: gold paths exist, evidence is in the file and in one of its chunks', (set) => {
    const problems: string[] = [];
    for (const c of readEvalFile(join(REPO_ROOT, set))) {
      for (const g of c.gold) {
        const doc = docs.get(`${c.source}:${g.path}`);
        if (!doc) {
          problems.push(`${c.id}: no ${g.path} at the ${c.source} tip`);
          continue;
        }
        for (const e of g.evidence) if (!doc.text.includes(squash(e))) problems.push(`${c.id}: "${e}" not in ${g.path}`);
        const inChunk = doc.chunks.some((k) => g.evidence.some((e) => squash(k.content).includes(squash(e))));
        if (!inChunk) problems.push(`${c.id}: no chunk of ${g.path} holds its evidence`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('ranking sets: every file of the classics holding an evidence string is gold', () => {
    const problems: string[] = [];
    for (const half of ['tune', 'untouched']) {
      for (const c of readEvalFile(join(REPO_ROOT, 'eval', half, 'classics.jsonl'))) {
        // Month-by-stem questions are limited to the books that answer them (eval/README.md).
        if (c.gold.some((g) => g.evidence.some((e) => MONTH_STEM.test(e)))) continue;
        const gold = new Set(c.gold.map((g) => g.path));
        const evidence = [...new Set(c.gold.flatMap((g) => g.evidence))].map(squash);
        for (const [key, doc] of docs) {
          const path = key.slice('classics:'.length);
          if (!key.startsWith('classics:content/命/') || gold.has(path)) continue;
          if (evidence.some((e) => doc.text.includes(e))) problems.push(`${c.id}: ${path} holds its evidence but is not gold`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('held-out sets use other bookmarks and passages than the dev sets', () => {
    const read = (d: string): EvalCase[] =>
      ['bookmarks-en', 'classics-en', 'classics-zh'].flatMap((f) => readEvalFile(join(REPO_ROOT, 'eval', d, `${f}.jsonl`)));
    const pairs = (cs: EvalCase[]) => new Set(cs.flatMap((c) => c.gold.flatMap((g) => g.evidence.map((e) => `${g.path}\t${e}`))));
    const dev = read('dev');
    const held = read('heldout');
    const devBookmarks = new Set(dev.filter((c) => c.source === 'bookmarks').flatMap((c) => c.gold.map((g) => g.path)));
    expect(held.filter((c) => c.source === 'bookmarks' && c.gold.some((g) => devBookmarks.has(g.path))).map((c) => c.id)).toEqual([]);
    const devPairs = pairs(dev);
    expect([...pairs(held)].filter((p) => devPairs.has(p))).toEqual([]);
  });
});

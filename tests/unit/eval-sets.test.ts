import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEvalFile } from '../../src/search/eval.ts';
import { REPO_ROOT } from '../helpers/tmp.ts';
import { EXAMINER_SETS } from '../../bench/eval-set-list.ts';

/** Every eval file the repository ships parses, with unique ids and a kind from the known list. */

const KINDS = new Set(['term', 'question', 'en', 'english', 'zh', 'en-question', 'zh-paraphrase', 'zh-question', 'quote', 'concept', 'pinyin', 'identifier']);
const SOURCES = new Set(['classics', 'bookmarks', 'code']);

function jsonl(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? jsonl(join(dir, e.name)) : e.name.endsWith('.jsonl') ? [join(dir, e.name)] : [],
  );
}
const files = [...jsonl(join(REPO_ROOT, 'eval')), ...jsonl(join(REPO_ROOT, 'bench', 'eval'))].map((f) => relative(REPO_ROOT, f));

describe('eval files', () => {
  it('include the query-analysis dev and held-out sets', () => {
    for (const d of ['dev', 'heldout'])
      for (const f of ['bookmarks-en', 'classics-en', 'classics-zh']) expect(files).toContain(join('eval', d, `${f}.jsonl`));
  });

  it.each(files)('%s parses, ids unique, kinds and sources known', (file) => {
    const cases = readEvalFile(join(REPO_ROOT, file));
    const ids = cases.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of cases) {
      expect(KINDS.has(c.kind ?? ''), `${c.id}: kind ${c.kind}`).toBe(true);
      expect(SOURCES.has(c.source ?? ''), `${c.id}: source ${c.source}`).toBe(true);
    }
  });

  it('query-analysis sets: sizes as planned, 1–3 evidence strings of 2–8 characters, no monthly index', () => {
    const sizes: Record<string, number> = {
      'dev/bookmarks-en': 45, 'dev/classics-en': 25, 'dev/classics-zh': 35,
      'heldout/bookmarks-en': 30, 'heldout/classics-en': 15, 'heldout/classics-zh': 15,
    };
    const all: string[] = [];
    for (const [name, n] of Object.entries(sizes)) {
      const cases = readEvalFile(join(REPO_ROOT, 'eval', `${name}.jsonl`));
      expect(cases.length, name).toBe(n);
      for (const c of cases) {
        all.push(c.id);
        expect(c.kind, c.id).toBe(name.endsWith('-zh') ? 'zh-paraphrase' : 'en-question');
        for (const g of c.gold) {
          expect(g.path.endsWith('monthly-index.md'), c.id).toBe(false);
          expect(g.evidence.length, `${c.id} ${g.path}`).toBeGreaterThanOrEqual(1);
          expect(g.evidence.length, `${c.id} ${g.path}`).toBeLessThanOrEqual(3);
          for (const e of g.evidence) {
            const n = [...e.replace(/\s+/g, '')].length;
            expect(n >= 2 && n <= 8, `${c.id} "${e}" is ${n} characters`).toBe(true);
          }
        }
      }
    }
    expect(new Set(all).size, 'ids unique across dev and held-out').toBe(all.length);
  });

  it('ranking sets: a tuning half and an untouched half of classics questions, every kind in both, no passage shared', () => {
    const read = (half: string) => readEvalFile(join(REPO_ROOT, 'eval', half, 'classics.jsonl'));
    const [tune, untouched] = [read('tune'), read('untouched')];
    expect(tune.length + untouched.length).toBeGreaterThanOrEqual(150);
    const kinds = ['term', 'quote', 'concept', 'zh-paraphrase', 'en-question', 'pinyin'];
    for (const half of [tune, untouched]) {
      expect(new Set(half.map((c) => c.kind))).toEqual(new Set(kinds));
      for (const c of half) {
        expect(c.source, c.id).toBe('classics');
        for (const g of c.gold) {
          expect(g.evidence.length, `${c.id} ${g.path}`).toBeGreaterThanOrEqual(1);
          expect(g.evidence.length, `${c.id} ${g.path}`).toBeLessThanOrEqual(3);
          for (const e of g.evidence) expect([...e.replace(/\s+/g, '')].length, `${c.id} "${e}"`).toBeGreaterThanOrEqual(2);
        }
      }
    }
    const ids = [...tune, ...untouched].map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    // A rule chosen on the tuning half is judged on passages it never saw.
    const pairs = (cs: typeof tune) => new Set(cs.flatMap((c) => c.gold.flatMap((g) => g.evidence.map((e) => `${g.path}\t${e}`))));
    const seen = pairs(tune);
    expect([...pairs(untouched)].filter((p) => seen.has(p))).toEqual([]);
  });

  it('code ranking sets: ≥ 100 questions, identifiers, English and Chinese in both halves, no symbol in both', () => {
    const read = (half: string) => readEvalFile(join(REPO_ROOT, 'eval', half, 'code.jsonl'));
    const [tune, untouched] = [read('tune'), read('untouched')];
    expect(tune.length + untouched.length).toBeGreaterThanOrEqual(100);
    for (const half of [tune, untouched]) {
      expect(new Set(half.map((c) => c.kind))).toEqual(new Set(['identifier', 'en-question', 'zh-question']));
      for (const c of half) expect(c.source, c.id).toBe('code');
    }
    const pairs = (cs: typeof tune) => new Set(cs.flatMap((c) => c.gold.flatMap((g) => g.evidence.map((e) => `${g.path}\t${e}`))));
    const seen = pairs(tune);
    expect([...pairs(untouched)].filter((p) => seen.has(p))).toEqual([]);
  });

  it("the outside examiner's sets: sizes, every kind in both halves, 2–8 character evidence, no passage or symbol in both halves", () => {
    const read = (file: string) => readEvalFile(join(REPO_ROOT, file));
    const pairs = (cs: ReturnType<typeof read>) => new Set(cs.flatMap((c) => c.gold.flatMap((g) => g.evidence.map((e) => `${g.path}\t${e}`))));
    const plan = {
      classics: { min: 170, kinds: ['term', 'quote', 'zh-paraphrase', 'concept', 'en-question', 'pinyin'] },
      code: { min: 60, kinds: ['identifier', 'en-question', 'zh-question'] },
    } as const;
    for (const [source, { min, kinds }] of Object.entries(plan)) {
      const [tune, untouched] = ['tune', 'untouched'].map((h) => read(`eval/${h}/${source}-x.jsonl`)) as [ReturnType<typeof read>, ReturnType<typeof read>];
      expect(EXAMINER_SETS).toEqual(expect.arrayContaining([`eval/tune/${source}-x.jsonl`, `eval/untouched/${source}-x.jsonl`]));
      expect(tune.length + untouched.length, source).toBeGreaterThanOrEqual(min);
      expect(Math.abs(tune.length - untouched.length), source).toBeLessThanOrEqual(6);
      for (const half of [tune, untouched]) {
        expect(new Set(half.map((c) => c.kind))).toEqual(new Set(kinds));
        for (const c of half) {
          expect(c.source, c.id).toBe(source);
          for (const g of c.gold) {
            expect(g.evidence.length, `${c.id} ${g.path}`).toBeGreaterThanOrEqual(1);
            if (source === 'classics') for (const e of g.evidence) expect([...e.replace(/\s+/g, '')].length, `${c.id} "${e}"`).toBeGreaterThanOrEqual(2);
            if (source === 'classics') for (const e of g.evidence) expect([...e.replace(/\s+/g, '')].length, `${c.id} "${e}"`).toBeLessThanOrEqual(8);
          }
        }
      }
      if (source === 'classics') {
        const zh = [...tune, ...untouched].filter((c) => !['en-question', 'pinyin'].includes(c.kind ?? ''));
        expect(zh.length).toBeGreaterThanOrEqual(140);
      }
      const seen = pairs(tune);
      expect([...pairs(untouched)].filter((p) => seen.has(p))).toEqual([]);
    }
  });
});

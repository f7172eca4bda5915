import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STEMS } from '../../src/profiles/classics/lexicon.ts';
import { builtinProfiles, parseConfig } from '../../src/builtin.ts';
const createChunker = builtinProfiles.createChunker;
import { estimateTokens } from '../../src/core/text/tokens.ts';
import type { ChunkedDocument } from '../../src/core/types.ts';
import type { SourceConfig } from '../../src/config/load.ts';
import { pathMatcher } from '../../src/sources/match.ts';
import { normalizeForSearch } from '../../src/profiles/classics/normalize.ts';
import { toSimplified } from '../../src/core/text/fold.ts';
import { CORPORA, REPO_ROOT } from '../helpers/tmp.ts';
import { needCorpora } from '../helpers/corpora.ts';

/**
 * Runs the domain chunkers over every file of the real corpora's tip, with the settings of the
 * shipped config, and checks what the rest of the system relies on: ids unique and stable, size
 * bound kept, structure found (穷通宝鉴 months, book keys), broken bookmarks flagged.
 */

const repoRoot = REPO_ROOT;
const corpora = CORPORA;
const config = parseConfig(JSON.parse(readFileSync(join(repoRoot, 'config', 'ragsync.json'), 'utf8')), join(repoRoot, 'config', 'ragsync.json'));
const source = (name: string): SourceConfig => config.sources.find((s) => s.name === name)!;

let tmp: string;
type Run = Map<string, ChunkedDocument>;

function checkout(bundle: string): string {
  const dir = join(tmp, bundle);
  execFileSync('git', ['clone', '--quiet', join(corpora, `${bundle}.bundle`), dir]);
  return dir;
}

/** Chunks every matching file of the checkout with a fresh chunker. */
function chunkAll(dir: string, s: SourceConfig): Run {
  const match = pathMatcher(s.include, s.exclude);
  const files = execFileSync('git', ['-C', dir, 'ls-files', '-z'], { encoding: 'utf8' }).split('\0').filter((p) => p && match(p));
  const chunker = createChunker(s.chunker, s.chunking);
  const out: Run = new Map();
  for (const path of files) out.set(path, chunker.chunk({ path, text: readFileSync(join(dir, path), 'utf8') }));
  return out;
}

function commonChecks(first: Run, second: Run, s: SourceConfig): void {
  const keys = new Set<string>();
  for (const [path, doc] of first) {
    for (const c of doc.chunks) {
      expect(keys.has(c.key), `duplicate id ${c.key} (${path})`).toBe(false);
      keys.add(c.key);
      // (classics embeds simplified characters: compare in that form)
      expect(toSimplified(c.text).startsWith(toSimplified(c.heading)), `${c.key}: embedded text starts with its context`).toBe(true);
      // pack() sums per-sentence estimates; re-estimating the joined text can differ by a few tokens.
      expect(estimateTokens(c.content), `${c.key} size`).toBeLessThanOrEqual(Math.ceil(s.chunking.targetTokens * 1.02));
      expect(c.content.trim().length, `${c.key} empty`).toBeGreaterThan(0);
    }
  }
  // Same text → same ids (and same everything) across runs.
  expect([...second.keys()]).toEqual([...first.keys()]);
  for (const [path, doc] of first) expect(second.get(path), path).toEqual(doc);
}

const corpus = needCorpora('classics.bundle', 'bookmarks.bundle');

describe.skipIf(!corpus.ok)(corpus.title('domain chunkers over the real corpora'), () => {
  let classics: Run;
  let bookmarks: Run;
  let bookmarksDir: string;
  let classicsDir: string;

  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), 'ragsync-corpora-'));
    expect(source('classics').chunker).toBe('classics');
    expect(source('bookmarks').chunker).toBe('bookmarks');
    classicsDir = checkout('classics');
    bookmarksDir = checkout('bookmarks');
    classics = chunkAll(classicsDir, source('classics'));
    const again = chunkAll(classicsDir, source('classics'));
    commonChecks(classics, again, source('classics'));
    bookmarks = chunkAll(bookmarksDir, source('bookmarks'));
    commonChecks(bookmarks, chunkAll(bookmarksDir, source('bookmarks')), source('bookmarks'));
  });

  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('chunks every classics file, under its book', () => {
    expect(classics.size).toBeGreaterThanOrEqual(80);
    for (const [path, doc] of classics) {
      expect(doc.chunks.length, path).toBeGreaterThan(0);
      for (const c of doc.chunks) {
        expect(c.heading.startsWith(String(doc.metadata.bookTitle)), c.key).toBe(true);
        expect(c.key.startsWith(`${doc.metadata.book}-`), c.key).toBe(true);
        expect(Array.isArray(c.metadata.keywords), c.key).toBe(true);
      }
    }
  });

  it('gives the named books their keys', () => {
    const expected: Record<string, [string, string | null]> = {
      'content/命/穷通宝鉴.md': ['qiongtong', null],
      'content/命/子平推命/子平真诠(上).md': ['ziping', '上'],
      'content/命/子平推命/子平真诠(下).md': ['ziping', '下'],
      'content/命/滴天髓/滴天髓阐微(通神论).md': ['ditian', '通神论'],
      'content/命/滴天髓/滴天髓阐微(六亲论).md': ['ditian', '六亲论'],
      'content/命/子平推命/渊海子平.md': ['yuanhai', null],
      'content/命/三命通会/三命通会(卷十).md': ['sanming', '卷十'],
    };
    for (const [path, [book, volume]] of Object.entries(expected)) {
      expect(classics.get(path)?.metadata, path).toMatchObject({ book, volume });
    }
    for (const [path, doc] of classics) {
      if (path.includes('/渊海子平')) expect(doc.metadata.book, path).toBe('yuanhai');
      if (path.includes('/三命通会/')) expect(doc.metadata.book, path).toBe('sanming');
      expect(String(doc.metadata.book), path).not.toMatch(/^book-/); // every work under content/命/ is known
    }
  });

  it('finds 穷通宝鉴 entries for each 天干 with its months', () => {
    const doc = classics.get('content/命/穷通宝鉴.md')!;
    for (const stem of STEMS) {
      const months = new Set(doc.chunks.filter((c) => c.metadata.stem === stem).flatMap((c) => (c.metadata.branches as string[] | undefined) ?? []));
      expect(months.size, `${stem}: ${[...months].join('')}`).toBeGreaterThanOrEqual(3);
    }
    const jia = new Set(doc.chunks.filter((c) => c.metadata.stem === '甲').flatMap((c) => (c.metadata.branches as string[] | undefined) ?? []));
    expect(jia.size).toBe(12);
    const yin = doc.chunks.find((c) => c.key === 'qiongtong-jia-yin-01')!;
    expect(yin.text.startsWith('穷通宝鉴 · 论甲木 · 正月\n')).toBe(true);
    expect(yin.content).toContain('正月甲木');
    expect(yin.metadata.keywords).toContain('寅月');
  });

  it('chunks 子平真诠 by chapter and 三命通会 卷十 into searchable simplified text', () => {
    const zp = classics.get('content/命/子平推命/子平真诠(上).md')!;
    expect(zp.chunks[0]!.key).toBe('ziping-shang-ch01-01');
    expect(new Set(zp.chunks.map((c) => c.metadata.chapterNo)).size).toBeGreaterThanOrEqual(15);
    const juan10 = classics.get('content/命/三命通会/三命通会(卷十).md')!;
    const norm = juan10.chunks.map((c) => normalizeForSearch(c.text)).join('\n');
    expect(norm).toContain('看命口诀');
    expect(norm).not.toMatch(/[訣財祿傷陽]/);
    expect(juan10.chunks.some((c) => (c.metadata.keywords as string[]).length > 0)).toBe(true);
  });

  it('chunks every bookmark with its header fields and identity', () => {
    expect(bookmarks.size).toBeGreaterThanOrEqual(1300);
    for (const [path, doc] of bookmarks) {
      const month = path.split('/')[0];
      expect(doc.metadata.month, path).toBe(month);
      expect(typeof doc.metadata.url === 'string' && doc.metadata.url.length > 0, path).toBe(true); // one is a bare path
      expect(String(doc.metadata.added_at), path).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
      if (!doc.metadata.broken) {
        expect(doc.chunks.some((c) => c.metadata.kind === 'tldr'), path).toBe(true);
        expect(doc.chunks.some((c) => c.metadata.kind === 'summary'), path).toBe(true);
      }
      for (const c of doc.chunks) {
        expect(c.text.startsWith(`${doc.title} › `), c.key).toBe(true);
        expect(c.key.startsWith(`${doc.metadata.bookmark}-${c.metadata.kind}-`), c.key).toBe(true);
      }
    }
  });

  it('matches data.json: each listed bookmark is a file with that month and title', () => {
    const data = JSON.parse(readFileSync(join(bookmarksDir, 'data.json'), 'utf8')) as { month: string; title: string }[];
    const have = new Set([...bookmarks.values()].map((d) => `${d.metadata.month}\t${d.title}`));
    const found = data.filter((e) => have.has(`${e.month}\t${e.title}`)).length;
    expect(found / data.length).toBeGreaterThan(0.95);
  });

  it('flags broken summaries, and only those', () => {
    const reason = (p: string) => bookmarks.get(p)?.metadata.brokenReason;
    expect(reason('202504/2025-04-25-senior-engineers-should-make-side-bets.md')).toBe('think');
    expect(reason("202606/2026-06-16-i-could've-rickrolled-the-entire-fifa-world-cup.-all-i-needed-was-my-id..md")).toBe('refusal');
    expect(reason('202504/2025-04-21-claude-code-best-practices.md')).toBe('fetch-error');
    // Articles that discuss </think> or captchas are fine.
    expect(bookmarks.get('202502/2025-02-04-the-gist-of-s1-simple-test-time-scaling.md')?.metadata.broken).toBe(false);
    const broken = [...bookmarks.values()].filter((d) => d.metadata.broken);
    expect(broken.length).toBeGreaterThanOrEqual(10);
    expect(broken.length).toBeLessThan(bookmarks.size * 0.03);
    for (const d of broken) for (const c of d.chunks) expect(c.metadata.broken).toBe(true);
  });

  it('has eval sets whose gold files and evidence exist at the tip', () => {
    for (const [name, dir, docs] of [
      ['classics', classicsDir, classics],
      ['bookmarks', bookmarksDir, bookmarks],
    ] as const) {
      const lines = readFileSync(join(repoRoot, 'eval', `${name}.jsonl`), 'utf8').split('\n').filter(Boolean);
      expect(lines.length).toBeGreaterThanOrEqual(30);
      const ids = new Set<string>();
      for (const line of lines) {
        const q = JSON.parse(line) as { id: string; query: string; kind: string; source: string; gold: { path: string; evidence: string[] }[] };
        expect(ids.has(q.id), q.id).toBe(false);
        ids.add(q.id);
        expect(q.source).toBe(name);
        expect(['term', 'question', 'en']).toContain(q.kind);
        expect(q.query.trim().length).toBeGreaterThan(0);
        expect(q.gold.length).toBeGreaterThan(0);
        for (const g of q.gold) {
          const doc = docs.get(g.path);
          expect(doc, `${q.id}: ${g.path} is chunked`).toBeDefined();
          const text = readFileSync(join(dir, g.path), 'utf8');
          for (const e of g.evidence) {
            expect(text.includes(e), `${q.id}: "${e}" in ${g.path}`).toBe(true);
            // The evidence must also survive chunking: some chunk's content holds it whole.
            expect(doc!.chunks.some((c) => c.content.includes(e)), `${q.id}: a chunk of ${g.path} holds "${e}"`).toBe(true);
          }
        }
      }
    }
  });
});

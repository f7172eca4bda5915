import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADING_SEPARATOR } from '../../src/chunking/markdown.ts';
import { CONTEXT_SEPARATOR } from '../../src/profiles/classics/chunker.ts';
import { SEPARATOR as BOOKMARK_SEPARATOR } from '../../src/profiles/bookmarks/chunker.ts';
import { builtinProfiles, parseConfig } from '../../src/builtin.ts';
const { chunkerNames, createChunker } = builtinProfiles;
import { commitsOf, readTree, replayChunking, type CommitCost } from '../helpers/chunk-replay.ts';
import { index } from '../helpers/index-fixture.ts';
import { CORPORA, tempDir } from '../helpers/tmp.ts';
import { needCorpora } from '../helpers/corpora.ts';
import { BundleUpstream } from '../helpers/upstream.ts';

/**
 * What formatting edits upstream cost in embeddings, on the real classics history: 6be38c9 turns
 * front matter titles into `# Title` in 60 files, acf8e42 re-punctuates and splits books. The
 * classics chunker is replayed through a real sync; every chunker is replayed at chunk level
 * (tests/helpers/chunk-replay.ts, checked against the sync here) and its figures printed.
 */

const CLASSICS = join(CORPORA, 'classics.bundle');
const BOOKMARKS = join(CORPORA, 'bookmarks.bundle');
const INCLUDE = ['content/命/**/*.md'];
const FRONT_MATTER_COMMIT = '6be38c9';
const pct = (a: number, b: number) => `${((100 * a) / b).toFixed(1)} %`;

const classicsOnly = needCorpora('classics.bundle');
const both = needCorpora('classics.bundle', 'bookmarks.bundle');

describe.skipIf(!classicsOnly.ok)(classicsOnly.title('replaying classics.bundle: formatting commits re-embed little'), () => {
  const t = tempDir();
  let up: BundleUpstream;
  beforeAll(() => {
    up = new BundleUpstream(join(t.dir, 'classics.git'), CLASSICS);
  });
  afterAll(() => t.cleanup());

  it('classics chunker, through a real sync: 6be38c9 ≤ 1 % of its texts, commits 2–5 ≤ 12 % of a file-level re-embed', async () => {
    const commits = up.commits();
    expect(commits[3]!.startsWith(FRONT_MATTER_COMMIT)).toBe(true);
    const config = parseConfig({
      db: join(t.dir, 'replay.db'),
      checkouts: join(t.dir, 'checkouts'),
      sources: [{ name: 'classics', kind: 'git', url: up.bare, include: INCLUDE, chunker: 'classics' }],
    });
    const synced: CommitCost[] = [];
    for (const [i, sha] of commits.entries()) {
      up.moveTo(sha);
      const r = await index(config);
      expect(r.status).toBe('ok');
      // The files this commit added or changed, as the index now holds them.
      const changed = i === 0 ? null : new Set(
        execFileSync('git', ['-C', up.bare, 'diff-tree', '-r', '-z', '--no-commit-id', '--no-renames', '--name-only', '--diff-filter=AMT', sha], { encoding: 'utf8' })
          .split('\0')
          .filter(Boolean),
      );
      const db = new BetterSqlite3(config.db, { readonly: true });
      const rows = db.prepare('SELECT d.path, c.text FROM chunks c JOIN documents d ON d.id = c.document_id').all() as { path: string; text: string }[];
      db.close();
      const mine = rows.filter((row) => !changed || changed.has(row.path));
      synced.push({
        sha,
        files: new Set(mine.map((row) => row.path)).size,
        chunks: mine.length,
        texts: new Set(mine.map((row) => row.text)).size,
        newTexts: r.sent.length,
        newChars: r.sent.reduce((n, s) => n + s.length, 0),
        changedChars: mine.reduce((n, row) => n + row.text.length, 0),
      });
    }
    const fm = synced[3]!;
    console.log(`classics chunker, real sync: ${FRONT_MATTER_COMMIT} embeds ${fm.newTexts} of ${fm.texts} texts (${pct(fm.newTexts, fm.texts)})`);
    expect(fm.files).toBe(60);
    expect(fm.newTexts).toBeLessThanOrEqual(0.01 * fm.texts);
    const later = synced.slice(1);
    const newChars = later.reduce((n, c) => n + c.newChars, 0);
    const fileLevel = later.reduce((n, c) => n + c.changedChars, 0);
    console.log(`classics chunker, real sync: commits 2–5 embed ${newChars} of ${fileLevel} characters (${pct(newChars, fileLevel)})`);
    expect(newChars).toBeLessThanOrEqual(0.12 * fileLevel);

    // The chunk-level replay the other chunkers are measured with predicts the sync exactly.
    const model = await replayChunking(up.bare, commits, INCLUDE, [], createChunker('classics', config.sources[0]!.chunking));
    expect(model.map((c) => [c.newTexts, c.newChars, c.changedChars])).toEqual(synced.map((c) => [c.newTexts, c.newChars, c.changedChars]));
  });

  it('every chunker, at chunk level: figures', async () => {
    const commits = commitsOf(up.bare);
    const lines: string[] = [];
    for (const name of chunkerNames()) {
      const costs = await replayChunking(up.bare, commits, INCLUDE, [], createChunker(name, { targetTokens: 500, overlap: 0.15 }));
      const fm = costs[3]!;
      const later = costs.slice(1);
      const chars = later.reduce((n, c) => n + c.newChars, 0);
      const fileLevel = later.reduce((n, c) => n + c.changedChars, 0);
      lines.push(`${name.padEnd(10)} ${FRONT_MATTER_COMMIT}: ${fm.newTexts}/${fm.texts} texts; commits 2–5: ${fileLevel ? pct(chars, fileLevel) : '—'} of file-level characters`);
      // A title's form never costs a re-embed, whatever the chunker.
      expect(fm.newTexts, name).toBeLessThanOrEqual(0.01 * fm.texts);
    }
    console.log(lines.join('\n'));
  });
});

describe.skipIf(!both.ok)(both.title('heading paths over both bundles\' tips'), () => {
  const t = tempDir();
  afterAll(() => t.cleanup());
  const SEPARATORS: Record<string, string> = { markdown: HEADING_SEPARATOR, classics: CONTEXT_SEPARATOR, bookmarks: BOOKMARK_SEPARATOR, code: HEADING_SEPARATOR };
  const same = (a: string, b: string) => a.replace(/\s+/g, '').toLowerCase() === b.replace(/\s+/g, '').toLowerCase();

  it('no chunker repeats a heading part next to itself (nor the title as the first heading)', async () => {
    expect(Object.keys(SEPARATORS).sort()).toEqual(chunkerNames().sort());
    for (const bundle of [CLASSICS, BOOKMARKS]) {
      const gitDir = join(t.dir, `${bundle.split('/').pop()}.git`);
      execFileSync('git', ['clone', '--quiet', '--bare', bundle, gitDir]);
      const files = await readTree(gitDir, 'main', (p) => p.endsWith('.md'));
      expect(files.length).toBeGreaterThan(80);
      for (const name of chunkerNames()) {
        const chunker = createChunker(name, { targetTokens: 500, overlap: 0.15 });
        let chunks = 0;
        const repeated: string[] = [];
        for (const f of files) {
          for (const c of chunker.chunk(f).chunks) {
            chunks++;
            const parts = c.heading.split(SEPARATORS[name]!);
            if (parts.some((p, i) => i > 0 && same(p, parts[i - 1]!))) repeated.push(`${f.path}: ${c.heading}`);
          }
        }
        if (name !== 'bookmarks' || bundle === BOOKMARKS) expect(chunks, `${name} over ${bundle}`).toBeGreaterThan(1000);
        expect(repeated.slice(0, 5), `${name} over ${bundle}: ${repeated.length} headings repeat a part`).toEqual([]);
      }
    }
  });
});

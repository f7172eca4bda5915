import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import { Searcher } from '../../src/search/search.ts';
import { runNode } from '../helpers/cli.ts';
import { needCorpora } from '../helpers/corpora.ts';
import { index, snapshotDb } from '../helpers/index-fixture.ts';
import { CORPORA, REPO_ROOT, tempDir } from '../helpers/tmp.ts';
import { bookmarkPages, Website } from '../helpers/website.ts';
import { openSearcher } from '../../src/engine/library.ts';

const mediaTypes = (db: string) => {
  const d = new BetterSqlite3(db, { readonly: true });
  try {
    return Object.fromEntries((d.prepare('SELECT path, media_type AS t FROM documents ORDER BY path').all() as { path: string; t: string | null }[]).map((r) => [r.path, r.t]));
  } finally {
    d.close();
  }
};

describe('the content step: a document carries its media type and reaches the chunker that fits', () => {
  const t = tempDir('ragsync-media-');
  let config: Config;
  const page = `<!doctype html><html><head><title>Retry budgets</title></head><body><nav><a href="/">Home</a> · Site menu</nav>
<main><h1>Retry budgets</h1><p>A retry budget caps retries at a share of <a href="other.html">requests</a>.</p>
<pre><code class="language-go">budget := 0.1</code></pre></main><footer>Footer chrome</footer></body></html>`;
  beforeAll(() => {
    mkdirSync(join(t.dir, 'docs'));
    writeFileSync(join(t.dir, 'docs', 'budgets.html'), page);
    writeFileSync(join(t.dir, 'docs', 'notes.md'), '# Notes\n\nPlain Markdown about <b>jitter</b>.\n');
    writeFileSync(join(t.dir, 'docs', 'todo.txt'), 'plain text: backoff first\n');
    config = parseConfig({
      db: join(t.dir, 'index.db'),
      embedder: { provider: 'hash', dims: 64 },
      sources: [
        { name: 'docs', kind: 'dir', path: join(t.dir, 'docs'), include: ['**/*'] },
        { name: 'code', kind: 'dir', path: join(t.dir, 'docs'), include: ['**/*.html'], chunker: 'code' },
      ],
    });
  });
  afterAll(() => t.cleanup());

  it('a dir source converts its HTML files to Markdown (no chrome, fenced code, title); Markdown, text and code pass as written', async () => {
    const r = await index(config);
    expect(r.status).toBe('ok');
    const types = mediaTypes(config.db);
    expect(types).toEqual({ 'budgets.html': 'text/html', 'notes.md': 'text/markdown', 'todo.txt': 'text/plain' });
    const db = new BetterSqlite3(config.db, { readonly: true });
    try {
      const text = (source: string, path: string) =>
        (db.prepare('SELECT c.text FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id WHERE s.name = ? AND d.path = ? ORDER BY c.ordinal').all(source, path) as { text: string }[])
          .map((c) => c.text)
          .join('\n');
      const html = text('docs', 'budgets.html');
      expect(html).toMatch(/^Retry budgets/);
      expect(html).toContain('```go\nbudget := 0.1\n```');
      expect(html).not.toMatch(/<main>|<p>|Site menu|Footer chrome/);
      // A relative link of a file (no URL to resolve it against) stays as written.
      expect(html).toContain('[requests](other.html)');
      expect(text('docs', 'notes.md')).toContain('Plain Markdown about <b>jitter</b>.');
      // The code chunker reads an HTML file as source: its markup is kept.
      expect(text('code', 'budgets.html')).toContain('<pre><code class="language-go">');
    } finally {
      db.close();
    }
  }, 60_000);

  it('search results and export carry the media type', async () => {
    const searcher = openSearcher(config);
    try {
      const [hit] = await searcher.search('retry budget caps retries', { k: 1, sources: ['docs'] });
      expect(hit).toMatchObject({ path: 'budgets.html', metadata: { mediaType: 'text/html' } });
    } finally {
      await searcher.close();
    }
    writeFileSync(join(t.dir, 'cfg.json'), JSON.stringify({ db: config.db, embedder: { provider: 'hash', dims: 64 }, sources: [{ name: 'docs', kind: 'dir', path: join(t.dir, 'docs'), include: ['**/*'] }] }));
    const out = execFileSync(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src', 'cli', 'run.ts'), 'export', '-c', join(t.dir, 'cfg.json'), '-s', 'docs'], { cwd: REPO_ROOT, encoding: 'utf8' });
    const rows = out.trim().split('\n').map((l) => JSON.parse(l) as { path: string; metadata: { mediaType?: string } });
    expect(new Set(rows.map((r) => `${r.path} ${r.metadata.mediaType}`))).toEqual(new Set(['budgets.html text/html', 'notes.md text/markdown', 'todo.txt text/plain']));
  }, 60_000);

  it('a no-op run reads nothing; a changed converter setting re-chunks the HTML documents only', async () => {
    expect((await index(config)).sources.map((s) => s.planned.documents.unchanged)).toEqual([3, 1]);
    const narrowed = parseConfig({
      db: config.db,
      embedder: { provider: 'hash', dims: 64 },
      sources: [
        { name: 'docs', kind: 'dir', path: join(t.dir, 'docs'), include: ['**/*'], excludeSelectors: ['pre'] },
        { name: 'code', kind: 'dir', path: join(t.dir, 'docs'), include: ['**/*.html'], chunker: 'code' },
      ],
    });
    const r = await index(narrowed);
    expect(r.sources[0]!.planned.documents).toMatchObject({ changed: 1, unchanged: 2 });
  }, 60_000);
});

/** Each web page's chunk texts, in order, joined: what its conversion wrote. */
function pageTexts(file: string): Record<string, string> {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    const rows = db
      .prepare("SELECT d.path, c.content FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.path LIKE 'http%' ORDER BY d.path, c.ordinal")
      .all() as { path: string; content: string }[];
    const out: Record<string, string> = {};
    for (const r of rows) out[r.path] = (out[r.path] ?? '') + r.content + '\n';
    return out;
  } finally {
    db.close();
  }
}

/**
 * Upgrading from the release before media types (main at e0eb584, run from its own sources):
 * bookmarks and classics as folders and the loopback web site, indexed by it, then by this
 * version: nothing is read again or embedded, and re-chunking everything yields the same texts.
 */
const BEFORE = 'e0eb584';
const corpora = needCorpora('bookmarks.bundle', 'classics.bundle');
describe.runIf(corpora.ok)(corpora.title(`upgrading an index made before media types (${BEFORE})`), () => {
  const t = tempDir('ragsync-media-upgrade-');
  let site: Website;
  let config: Config;
  let cfgFile: string;
  beforeAll(async () => {
    const old = join(t.dir, 'old');
    mkdirSync(old);
    execFileSync('sh', ['-c', `git -C "${REPO_ROOT}" archive ${BEFORE} src migrations package.json | tar -x -C "${old}"`]);
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(old, 'node_modules'));
    for (const c of ['bookmarks', 'classics']) execFileSync('git', ['clone', '--quiet', '--branch', 'main', join(CORPORA, `${c}.bundle`), join(t.dir, c)]);
    site = new Website(bookmarkPages(join(CORPORA, 'bookmarks.bundle'), join(t.dir, 'bm-site'), 2), 10_000);
    const base = await site.start();
    const raw = {
      db: join(t.dir, 'index.db'),
      embedder: { provider: 'hash', dims: 256 },
      sources: [
        { name: 'bookmarks', kind: 'dir', path: join(t.dir, 'bookmarks'), include: ['[0-9][0-9][0-9][0-9][0-9][0-9]/*.md'], exclude: ['**/monthly-index.md'], chunker: 'bookmarks', chunking: { targetTokens: 700 } },
        { name: 'classics', kind: 'dir', path: join(t.dir, 'classics'), include: ['content/命/**/*.md'], chunker: 'classics' },
        { name: 'site', kind: 'web', url: `${base}/`, maxDepth: 3, timeoutMs: 4000, maxFileBytes: 200_000 },
      ],
    };
    cfgFile = join(t.dir, 'ragsync.json');
    writeFileSync(cfgFile, JSON.stringify(raw));
    config = parseConfig(raw);
    // In a child process that does not block this one: the site is served from here.
    const run = await runNode(['--import', 'tsx', join(old, 'src', 'cli', 'run.ts')], ['index', '-c', cfgFile, '--json']);
    const result = JSON.parse(run.stdout) as { status: string };
    expect(result.status, run.stderr.slice(-2000)).toBe('partial'); // the site's slow, huge and binary pages
  }, 600_000);
  afterAll(async () => {
    await site?.stop();
    t.cleanup();
  });

  it('the first run after the upgrade embeds nothing and reads nothing again (the site answers 304s)', async () => {
    const before = snapshotDb(config.db);
    const mark = site.requests.length;
    const r = await index(config);
    expect(r.sent).toEqual([]);
    for (const s of r.sources) expect(s.planned.documents, s.name).toMatchObject({ added: 0, changed: 0, deleted: 0, renamed: 0 });
    expect(snapshotDb(config.db).chunks).toEqual(before.chunks);
    const pages = site.since(mark).filter((q) => q.path.startsWith('/b/'));
    expect(pages.length).toBeGreaterThan(0);
    expect(pages.every((q) => q.status === 304)).toBe(true);
  }, 300_000);

  it('re-chunking every document (--force) gives the same chunk texts, and records the media types', async () => {
    const before = snapshotDb(config.db);
    const pagesBefore = pageTexts(config.db);
    const r = await index(config, { force: true });
    // (The site's slow, huge and binary pages are not asked for again: no unchanged page is parsed for links.)
    expect(r.sources.map((s) => s.status)).toEqual(['ok', 'ok', 'ok']);
    const web = (c: { path: string }) => c.path.startsWith('http');
    expect(snapshotDb(config.db).chunks.filter((c) => !web(c))).toEqual(before.chunks.filter((c) => !web(c)));
    // Pages are converted again (html@2): the same texts, but an underscore is no longer written \_.
    expect(Object.values(pagesBefore).some((t) => t.includes('\\_'))).toBe(true);
    const normalized = Object.fromEntries(Object.entries(pagesBefore).map(([p, t]) => [p, t.replace(/(?<!\\)\\_/g, '_')]));
    expect(pageTexts(config.db)).toEqual(normalized);
    const types = Object.entries(mediaTypes(config.db));
    const pageTypes = new Set(types.filter(([p]) => p.startsWith('http')).map(([, v]) => v));
    expect(pageTypes).toEqual(new Set(['text/html']));
    expect(new Set(types.filter(([p]) => !p.startsWith('http')).map(([, v]) => v))).toEqual(new Set(['text/markdown']));
  }, 300_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parseConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import { sha256 } from '../../src/core/hash.ts';
import { Searcher } from '../../src/search/search.ts';
import { indexExists, openIndex } from '../../src/storage/open.ts';
import { index } from '../helpers/index-fixture.ts';
import { BACKENDS, snapshotIndex } from '../helpers/backends.ts';
import { tempDir } from '../helpers/tmp.ts';
import { Website, type SitePage } from '../helpers/website.ts';
import { openSearcher } from '../../src/engine/library.ts';

const topics = ['backoff and jitter for retries', 'consistent hashing rings', 'bloom filters and false positives', 'write-ahead logs', 'vector clocks', 'token bucket rate limits'];
const pages: SitePage[] = topics.map((t, i) => ({
  slug: `note-${i}`,
  month: i < 3 ? '202401' : '202402',
  title: `Notes on ${t}`,
  markdown: `# Notes on ${t}\n\n## TL;DR\n\nA short note about ${t}, written for the crawler test.\n\n## Summary\n\n- first point about ${t}\n- second point, with \`code\`\n`,
}));

// On every storage backend: the same body, a Postgres schema instead of a file.
describe.each(BACKENDS)('$name', (backend) => {
describe.skipIf(!backend.ok)(backend.title('a web source through ragsync index runs'), () => {
  const t = tempDir('ragsync-websrc-');
  const site = new Website(pages, 10_000);
  const at = backend.fresh();
  let config: Config;
  let fp = '';
  const snapshot = async () => {
    const s = await snapshotIndex(config.db, fp);
    return { ...s, vectorHashes: new Set(s.vectors.map(([h]) => h)) };
  };
  beforeAll(async () => {
    const base = await site.start();
    config = parseConfig({
      db: at.db,
      embedder: { provider: 'hash', dims: 128 },
      sources: [{ name: 'site', kind: 'web', url: `${base}/`, maxDepth: 3, timeoutMs: 4000, maxFileBytes: 200_000 }],
    });
  });
  afterAll(async () => {
    await site.stop();
    t.cleanup();
    await at.cleanup();
  });

  const NOT_PAGES = new Set(['/robots.txt', '/sitemap.xml', '/llms.txt']);

  it('--dry-run on an empty index names the pages it would fetch, requests none and writes nothing', async () => {
    const mark = site.requests.length;
    const r = await index(config, { dryRun: true });
    expect(r.sources[0]!.status).toBe('ok');
    // robots.txt, the sitemap and llms.txt only: no page GET, conditional or not.
    expect(site.since(mark).map((q) => q.path)).toEqual(['/robots.txt', '/sitemap.xml', '/llms.txt']);
    const w = r.sources[0]!.wouldFetch!;
    const sitemapPages = pages.filter((p) => p.month === site.sitemapOnly).map((p) => site.pageUrl(p));
    expect(w.new.sort()).toEqual([`${site.base}/`, ...sitemapPages].sort());
    expect(w).toMatchObject({ revalidate: [], drop: [] });
    expect(await indexExists({ db: config.db })).toBe(false);
  }, 60_000);

  it('indexes every page, reports the ones it could not take, and the results carry the URL and title', async () => {
    const r = await index(config);
    fp = r.fingerprint;
    expect(r.status).toBe('partial');
    const s = r.sources[0]!;
    expect(s.skippedFiles.filter((f) => !f.intended).map((f) => f.path.slice(site.base.length)).sort()).toEqual(['/binary', '/huge.html', '/slow.html']);
    // What robots.txt disallows is listed too, as left out on purpose (not what makes the run partial).
    expect(s.skippedFiles.filter((f) => f.intended).map((f) => f.reason).sort()).toEqual([
      `${site.base}/private/admin.html: disallowed by robots.txt`,
      `${site.base}/private/secret.html: disallowed by robots.txt`,
    ]);
    // Each failure names its page and says why, in the run's result and in its record (status).
    const reasons = s.skippedFiles.filter((f) => !f.intended).map((f) => f.reason).sort();
    expect(reasons).toEqual([
      `${site.base}/binary: not HTML, Markdown or text (image/png)`,
      expect.stringMatching(new RegExp(`^${site.base}/huge\\.html: over maxBytes`)),
      `${site.base}/slow.html: no complete response within 4000 ms`,
    ]);
    const store = openIndex({ db: config.db }, 'admin', { readOnly: true });
    try {
      const [run] = (await store.status()).runs;
      expect(run!.sources[0]!.skippedFiles.filter((f) => !f.reason.endsWith('disallowed by robots.txt')).map((f) => f.reason).sort()).toEqual(reasons);
    } finally {
      await store.close();
    }
    for (const p of pages) expect(s.plan!.write.some((w) => w.doc.path === site.pageUrl(p)), p.slug).toBe(true);
    expect(site.requests.filter((q) => q.path.startsWith('/private/'))).toEqual([]);
    const searcher = openSearcher(config);
    try {
      const [hit] = await searcher.search('bloom filters false positives', { k: 1 });
      expect(hit).toMatchObject({ source: 'site', path: site.pageUrl(pages[2]!), title: 'Notes on bloom filters and false positives' });
      // A page's result carries its URL, and its title as the title (no book or chapter).
      expect(hit!.fields).toMatchObject({ url: site.pageUrl(pages[2]!), book: null, chapter: null });
      // The chunk's line range comes back from the store (recorded at write time).
      expect(hit!.startLine).toBeGreaterThan(0);
      expect(hit!.endLine).toBeGreaterThanOrEqual(hit!.startLine!);
    } finally {
      await searcher.close();
    }
  }, 60_000);

  it('re-crawls an unchanged site with 304s and embeds nothing', async () => {
    const mark = site.requests.length;
    const r = await index(config);
    expect(r.sent).toEqual([]);
    const docs = r.sources[0]!.planned.documents;
    expect(docs).toMatchObject({ added: 0, changed: 0, deleted: 0 });
    const pageRequests = site.since(mark).filter((q) => q.path.startsWith('/b/'));
    expect(pageRequests.length).toBe(pages.length);
    expect(pageRequests.every((q) => q.status === 304 && q.headers['if-none-match'] && q.headers['if-modified-since'])).toBe(true);
  }, 60_000);

  it('--dry-run on an indexed site: every indexed page to revalidate, pages now excluded to drop; no page requested, the index unchanged', async () => {
    site.version = 2;
    const narrowed = { ...config, sources: [{ ...config.sources[0]!, exclude: ['/loop/**'] }] };
    const before = await snapshotIndex(config.db, fp);
    const mark = site.requests.length;
    try {
      const r = await index(narrowed, { dryRun: true });
      expect(site.since(mark).filter((q) => !NOT_PAGES.has(q.path))).toEqual([]);
      const w = r.sources[0]!.wouldFetch!;
      const indexed = [...new Set(before.chunks.map((c) => c.path))];
      expect(w.drop.sort()).toEqual([`${site.base}/loop/a.html`, `${site.base}/loop/b.html`]);
      expect(w.revalidate.sort()).toEqual(indexed.filter((p) => !p.includes('/loop/')).sort());
      expect(w.new).toEqual([]);
      expect(r.sources[0]!.planned.documents).toMatchObject({ deleted: 2, added: 0, changed: 0 });
      expect(r.sent).toEqual([]);
      expect(await snapshotIndex(config.db, fp)).toEqual(before);
    } finally {
      site.version = 1;
    }
  }, 60_000);

  it('after a change embeds exactly the new distinct texts, removes the deleted page and adds the new one', async () => {
    site.version = 2;
    const before = (await snapshot());
    const r = await index(config);
    const after = (await snapshot());
    const fresh = [...after.distinct].filter((h) => !before.vectorHashes.has(h)).sort();
    expect(r.sent.map(sha256).sort()).toEqual(fresh);
    expect(fresh.length).toBeGreaterThan(0);
    const docs = r.sources[0]!.written.documents;
    expect(docs.deleted).toBe(1);
    expect(docs.added).toBe(1);
    const paths = new Set(after.chunks.map((c) => c.path));
    expect(paths.has(`${site.base}/deleted.html`)).toBe(false);
    expect(paths.has(`${site.base}/added.html`)).toBe(true);
  }, 60_000);

  it('a site that answers 404 everywhere is refused by the delete guard and keeps every page', async () => {
    const before = (await snapshot()).chunks.length;
    site.allGone = true;
    try {
      const r = await index(config);
      expect(r.sources[0]!.status).toBe('failed');
      expect(r.sources[0]!.error).toMatch(/source "site"/);
      expect((await snapshot()).chunks.length).toBe(before);
    } finally {
      site.allGone = false;
    }
  }, 60_000);
});
});

describe('a full crawl through ragsync index parses each HTML page once', () => {
  it('the document parsed for its links is the one the content step converts: one parse per page fetched', async () => {
    const t = tempDir('ragsync-webparse-');
    const site = new Website(pages, 10_000);
    // domino's own module object, as every caller loads it: its parses counted, each still done.
    const domino = createRequire(import.meta.url)('@mixmark-io/domino') as { createDocument: (html: string, force?: boolean) => unknown };
    const parse = domino.createDocument;
    let parses = 0;
    domino.createDocument = (html, force) => (parses++, parse.call(domino, html, force));
    try {
      const base = await site.start();
      const config = parseConfig({
        db: join(t.dir, 'index.db'),
        embedder: { provider: 'hash', dims: 64 },
        sources: [{ name: 'site', kind: 'web', url: `${base}/`, maxDepth: 3, timeoutMs: 1000, maxFileBytes: 200_000 }],
      });
      const r = await index(config);
      expect(r.sources[0]!.status).toBe('partial');
      // Pages answered 200 and parsed: all but robots.txt, the sitemap, the image, the page over
      // maxFileBytes and the one answered after the crawl gave up on it.
      const notParsed = new Set(['/robots.txt', '/sitemap.xml', '/binary', '/huge.html', '/slow.html']);
      const htmlPages = site.requests.filter((q) => q.status === 200 && !notParsed.has(q.path)).length;
      expect(htmlPages).toBeGreaterThan(pages.length);
      expect(parses).toBe(htmlPages);
      const written = r.sources[0]!.plan!.write.map((w) => w.doc.path);
      expect(written.length).toBe(htmlPages);
    } finally {
      domino.createDocument = parse;
      await site.stop();
      t.cleanup();
    }
  }, 60_000);
});

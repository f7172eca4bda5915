import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DEFAULT_CONTENT, htmlPreparer, prepareContent } from '../../src/chunking/content/index.ts';
import { crawlSite, type WebSnapshot } from '../../src/sources/web/crawl.ts';
import type { ReadFile } from '../../src/sources/types.ts';
import { WEB_DEFAULTS, type WebOptions } from '../../src/sources/web/types.ts';
import { needCorpora } from '../helpers/corpora.ts';
import { CORPORA, tempDir } from '../helpers/tmp.ts';
import { bookmarkPages, Website } from '../helpers/website.ts';

const corpora = needCorpora('bookmarks.bundle');

/** The pages as their chunker reads them: through the content step of their media type (HTML → Markdown). */
async function texts(s: WebSnapshot, paths = s.files.map((f) => f.path)): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const { path, bytes, mediaType } of s.read(paths)) {
    out.set(path, prepareContent({ path, text: bytes.toString('utf8'), mediaType: mediaType! }, false, DEFAULT_CONTENT).text);
  }
  return out;
}

describe.runIf(corpora.ok)(corpora.title('web crawl of a loopback site rendered from bookmarks.bundle'), () => {
  const t = tempDir('ragsync-web-');
  let site: Website;
  let opts: WebOptions;
  let first: WebSnapshot;
  let firstMark = 0;
  beforeAll(async () => {
    site = new Website(bookmarkPages(join(CORPORA, 'bookmarks.bundle'), join(t.dir, 'bm'), 3), 10_000);
    const base = await site.start();
    opts = { ...WEB_DEFAULTS, url: `${base}/`, maxDepth: 4, timeoutMs: 4000, maxBytes: 500_000, concurrency: 4 };
    firstMark = site.requests.length;
    first = await crawlSite(opts, new Map());
  }, 60_000);
  afterAll(async () => {
    await site.stop();
    t.cleanup();
  });

  it('indexes every linked page and the sitemap-only month, each once, under its canonical URL', () => {
    const paths = new Set(first.files.map((f) => f.path));
    for (const p of site.pages) expect(paths.has(site.pageUrl(p)), `${p.slug} ${JSON.stringify(first.skipped)}`).toBe(true);
    expect(site.pages.filter((p) => p.month === site.sitemapOnly).length).toBeGreaterThan(0);
    // The redirect chain ends in one page, known by its final URL.
    expect(paths.has(`${site.base}/redirected.html`)).toBe(true);
    expect(paths.has(`${site.base}/old`)).toBe(false);
    expect([...paths].filter((p) => p.includes('/loop/')).sort()).toEqual([`${site.base}/loop/a.html`, `${site.base}/loop/b.html`]);
    // Link loop: each page requested once.
    const loopRequests = site.since(firstMark).filter((r) => r.path.startsWith('/loop/'));
    expect(loopRequests).toHaveLength(2);
    // The endless chain stops at maxDepth (home is depth 0, /deep/1 depth 1, /deep/4 depth 4).
    expect(Math.max(...[...paths].filter((p) => p.includes('/deep/')).map((p) => Number(/(\d+)\.html$/.exec(p)![1])))).toBe(opts.maxDepth);
    expect(first.stats.fetched, JSON.stringify(first.files.map((f) => f.path).filter((p) => !p.includes('/b/')))).toBe(first.files.length);
  });

  it('reads robots.txt first and never requests a path it disallows', () => {
    const reqs = site.since(firstMark);
    expect(reqs[0]!.path).toBe('/robots.txt');
    expect(reqs.filter((r) => r.path.startsWith('/private/'))).toEqual([]);
    expect(first.stats.disallowed).toBeGreaterThan(0);
    for (const r of reqs) expect(r.headers['user-agent']).toBe('ragsync');
  });

  it('leaves out 404s, slow, huge and binary responses, each with its reason', () => {
    const paths = new Set(first.files.map((f) => f.path));
    for (const p of ['/missing.html', '/slow.html', '/huge.html', '/binary']) expect(paths.has(`${site.base}${p}`), p).toBe(false);
    const why = (p: string) => first.skipped.find((s) => s.url === `${site.base}${p}`)?.reason;
    expect(why('/slow.html')).toMatch(/no complete response within 4000 ms/);
    expect(why('/huge.html')).toMatch(/over maxBytes/);
    expect(why('/binary')).toMatch(/not HTML, Markdown or text \(image\/png\)/);
    expect(why('/missing.html')).toBeUndefined(); // a broken link is not a failure of the source
    expect(first.stats.gone).toBe(1);
  });

  it('lists pages as text/html, and the content step converts them to Markdown: title, no navigation or footer, headings, tables, fenced code, absolute links', async () => {
    expect(new Set(first.files.map((f) => f.mediaType))).toEqual(new Set(['text/html']));
    const all = await texts(first);
    const p = site.pages.find((x) => x.markdown.includes('## TL;DR'))!;
    const md = all.get(site.pageUrl(p))!;
    expect(md.startsWith(`---\ntitle: ${p.title}\nurl: ${site.pageUrl(p)}\n---\n`)).toBe(true);
    expect(md).toContain('## TL;DR');
    expect(md).not.toContain('Site chrome');
    expect(md).not.toContain('Admin');
    const about = all.get(`${site.base}/about.html`)!;
    expect(about).toContain('| `--mode` | hybrid \\| keyword |');
    expect(about).toContain('```ts\nconst x: number = 1;\n```');
    const hub = [...all].find(([k]) => k.includes('/months/'))![1];
    expect(hub).toMatch(new RegExp(`\\]\\(${site.base.replace(/[.]/g, '\\.')}/b/`));
  });

  it('given the content step, hands each HTML page on converted from the document it parsed for the links: the text converting the page anew gives', async () => {
    const mark = site.requests.length;
    const s = await crawlSite(opts, new Map(), { prepareHtml: htmlPreparer(false, DEFAULT_CONTENT) });
    expect(site.since(mark).filter((r) => r.status === 304)).toEqual([]);
    const anew = await texts(s);
    for await (const r of s.read(s.files.map((f) => f.path))) {
      expect(r.prepared, r.path).toBeDefined();
      expect(r.prepared!.mediaType).toBe('text/markdown');
      expect(r.prepared!.text, r.path).toBe(anew.get(r.path));
    }
    expect(anew.size).toBe(s.files.length);
  }, 60_000);

  it('a second crawl asks with both validators: unchanged pages cost one 304 each, changed, added and deleted pages follow', async () => {
    site.version = 2;
    const known = new Map(first.files.map((f) => [f.path, f.stamp]));
    const mark = site.requests.length;
    const second = await crawlSite(opts, known);
    const reqs = site.since(mark);
    const paths = new Set(second.files.map((f) => f.path));
    expect(paths.has(`${site.base}/deleted.html`)).toBe(false);
    expect(paths.has(`${site.base}/added.html`)).toBe(true);
    const unchanged = second.files.filter((f) => known.get(f.path) === f.stamp).map((f) => f.path);
    // Home (new link), changing, added; every other page unchanged.
    const moved = second.files.filter((f) => known.get(f.path) !== f.stamp).map((f) => f.path.slice(site.base.length)).sort();
    expect(moved, JSON.stringify(second.skipped)).toEqual(['/', '/added.html', '/changing.html']);
    expect(second.stats.notModified).toBe(unchanged.length);
    expect(second.stats.fetched).toBe(3);
    for (const r of reqs.filter((r) => r.status === 304)) {
      expect(r.headers['if-none-match']).toBeTruthy();
      expect(r.headers['if-modified-since']).toBeTruthy();
    }
    expect(reqs.filter((r) => r.status === 304)).toHaveLength(unchanged.length);
    // A 304 carries no body, so nothing of an unchanged page is downloaded or parsed.
    const bookmarkRequests = reqs.filter((r) => r.path.startsWith('/b/'));
    expect(bookmarkRequests.every((r) => r.status === 304)).toBe(true);
    expect(second.stats.bytes).toBeLessThan(first.stats.bytes / 10);
    // Deleted: asked for again (it was known), answered 404, left out.
    expect(reqs.some((r) => r.path === '/deleted.html' && r.status === 404)).toBe(true);
    // The changed page's new text is read.
    expect((await texts(second, [`${site.base}/changing.html`])).get(`${site.base}/changing.html`)).toContain('something new about caching');
    site.version = 1;
  }, 60_000);

  it('a known page listed unchanged is fetched again in full when the run asks to read it', async () => {
    const known = new Map(first.files.map((f) => [f.path, f.stamp]));
    const again = await crawlSite(opts, known);
    const p = site.pageUrl(site.pages[0]!);
    expect(again.files.find((f) => f.path === p)!.stamp).toBe(known.get(p));
    expect((await texts(again, [p])).get(p)).toContain(site.pages[0]!.title);
  }, 60_000);
});

describe('web crawl: a page whose canonical URL names a page that is not there', () => {
  it('stays under the URL it was fetched from (a canonical link is a hint), its links resolving there, in the text handed on as in the text converted anew', async () => {
    const body = (canonical: string) =>
      `<!doctype html><html><head><title>Moved</title><link rel="canonical" href="${canonical}"></head><body><main><h1>Moved</h1><p>See <a href="next.html">the next page</a>.</p></main></body></html>`;
    const server = createServer((req, res) => {
      const html = (text: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(text);
      if (req.url === '/') html('<html><body><a href="/old/page.html">old</a></body></html>');
      else if (req.url === '/old/page.html') html(body('/new/page.html'));
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const s = await crawlSite({ ...WEB_DEFAULTS, url: `${base}/`, maxDepth: 1 }, new Map(), { prepareHtml: htmlPreparer(false, DEFAULT_CONTENT) });
      expect(s.files.map((f) => f.path).sort()).toEqual([`${base}/`, `${base}/old/page.html`]);
      const anew = await texts(s);
      const read = new Map<string, ReadFile>();
      for await (const r of s.read([`${base}/old/page.html`])) read.set(r.path, r);
      const page = read.get(`${base}/old/page.html`)!;
      expect(page.prepared!.text).toBe(anew.get(`${base}/old/page.html`));
      expect(page.prepared!.text).toBe(`---\ntitle: Moved\nurl: ${base}/old/page.html\n---\n\n# Moved\n\nSee [the next page](${base}/old/next.html).\n`);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('web crawl: robots.txt crawl-delay and a failing robots.txt', () => {
  it('spaces requests by Crawl-delay when longer than delayMs', async () => {
    const site = new Website([{ slug: 'a', month: '202401', title: 'A', markdown: '# A\n\ntext\n' }]);
    const base = await site.start();
    try {
      site.crawlDelay = 0.2;
      const opts = { ...WEB_DEFAULTS, url: `${base}/about.html`, maxDepth: 0, concurrency: 4 };
      const started = Date.now();
      const s = await crawlSite(opts, new Map());
      expect(s.files.map((f) => f.path)).toEqual([`${base}/about.html`, `${base}/b/a.html`]);
      // robots.txt, then sitemap.xml, llms.txt and the two pages, each at least 200 ms after the one before.
      expect(site.requests.map((r) => r.path)).toEqual(['/robots.txt', '/sitemap.xml', '/llms.txt', '/about.html', '/b/a.html']);
      expect(Date.now() - started).toBeGreaterThanOrEqual(4 * 200 - 20);
    } finally {
      await site.stop();
    }
  });
});

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A bookmark of the corpus, as the site shows it. */
export interface SitePage {
  slug: string;
  month: string;
  title: string;
  markdown: string;
}

/** The bookmarks of the corpus at its tip, month by month (months: how many, oldest first). */
export function bookmarkPages(bundle: string, into: string, months: number): SitePage[] {
  execFileSync('git', ['clone', '--quiet', '--branch', 'main', bundle, into]);
  const files = execFileSync('git', ['-C', into, 'ls-files'], { encoding: 'utf8' }).split('\n').filter((p) => /^\d{6}\/\d{4}-\d\d-\d\d-.+\.md$/.test(p));
  const wanted = [...new Set(files.map((p) => p.slice(0, 6)))].sort().slice(0, months);
  return files
    .filter((p) => wanted.includes(p.slice(0, 6)))
    .map((p) => {
      const markdown = readFileSync(join(into, p), 'utf8');
      const slug = p.slice(7, -3).replace(/[^\w.-]+/g, '-');
      return { slug, month: p.slice(0, 6), title: /^#\s+(.+)$/m.exec(markdown)?.[1]?.trim() ?? slug, markdown };
    });
}

/** A book of the classics corpus as the site shows it: a contents page, then one page per `##` section. */
export interface SiteBook {
  title: string;
  /** The text before the first section (often only the title). */
  intro: string;
  sections: { title: string; markdown: string }[];
}

/** The books of classics.bundle at its tip (content/命), each cut at its `##` headings. */
export function classicBooks(bundle: string, into: string): SiteBook[] {
  execFileSync('git', ['clone', '--quiet', '--branch', 'main', bundle, into]);
  const files = execFileSync('git', ['-C', into, 'ls-files', '-z', 'content/命'], { encoding: 'utf8' }).split('\0').filter((p) => p.endsWith('.md')).sort();
  return files.map((p) => {
    const md = readFileSync(join(into, p), 'utf8').replace(/\r/g, '');
    const [intro, ...parts] = md.split(/^(?=## )/m);
    const title = /^#\s+(.+)$/m.exec(md)?.[1]?.trim() ?? p.slice(p.lastIndexOf('/') + 1, -3);
    return { title, intro: intro ?? '', sections: parts.map((s) => ({ title: /^##\s+(.+)$/m.exec(s)![1]!.trim(), markdown: s })) };
  });
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Just enough Markdown → HTML for the site: headings, lists, code fences, paragraphs, **bold**, `code`. */
export function renderMarkdown(md: string): string {
  const out: string[] = [];
  const lines = md.replace(/\r/g, '').split('\n');
  const inline = (s: string) => esc(s).replace(/\*\*(.+?)\*\*/g, '<strong>$1</strong>').replace(/`([^`]+)`/g, '<code>$1</code>');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    const fence = /^```(\w*)/.exec(l);
    if (fence) {
      const body: string[] = [];
      for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) body.push(lines[i]!);
      out.push(`<pre><code${fence[1] ? ` class="language-${fence[1]}"` : ''}>${esc(body.join('\n'))}\n</code></pre>`);
      continue;
    }
    const h = /^(#{1,6})\s+(.*)$/.exec(l);
    if (h) out.push(`<h${h[1]!.length}>${inline(h[2]!)}</h${h[1]!.length}>`);
    else if (/^\s*([-*]|\d+\.)\s+/.test(l)) out.push(`<ul><li>${inline(l.replace(/^\s*([-*]|\d+\.)\s+/, ''))}</li></ul>`);
    else if (l.trim()) out.push(`<p>${inline(l)}</p>`);
  }
  return out.join('\n');
}

const NAV = (base: string) =>
  `<header><a href="${base}/">Bookmarks</a></header><nav class="site-nav"><a href="/">Home</a> · <a href="/about.html">About</a> · <a href="/private/admin.html">Admin</a></nav>`;
const FOOTER = '<footer>Site chrome: © 2026 the loopback bookmark site · <a href="/">home</a></footer>';

function html(title: string, body: string, extraHead = ''): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${esc(title)}</title>${extraHead}</head><body>${NAV('')}<main>${body}</main>${FOOTER}</body></html>`;
}

/** Listens on a free loopback port; the server's base URL. */
export async function listenLoopback(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes a server and every connection it holds. */
export async function closeServer(server: Server | null): Promise<void> {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
}

export interface RequestRecord {
  path: string;
  headers: IncomingHttpHeaders;
  status: number;
  /** Body bytes sent (0 for a 304). */
  bytes: number;
}

/**
 * The loopback site: a home page linking to monthly hubs, each linking to its bookmarks; one
 * month reachable only through sitemap.xml; robots.txt disallowing /private/; and edge pages: a
 * redirect chain, a 404, a page that changes between versions, one deleted and one added in
 * version 2, a slow page, a huge page, a binary response, a link loop and an endless chain of
 * links. Pages answer ETag and Last-Modified and honour both conditionals.
 */
export class Website {
  readonly requests: RequestRecord[] = [];
  version = 1;
  crawlDelay: number | null = null;
  /** Every page answers 404 (a site taken down, or a wrong URL): only robots.txt is left. */
  allGone = false;
  private server: Server | null = null;
  base = '';
  private readonly months: string[];
  private readonly byMonth = new Map<string, SitePage[]>();
  /** The last month is listed in the sitemap only, not linked from the home page. */
  readonly sitemapOnly: string;

  /**
   * books: a second collection under /classics/ (a contents page per book, a page per section),
   * linked from the home page; none by default.
   */
  constructor(
    readonly pages: SitePage[],
    readonly slowMs = 3000,
    readonly books: SiteBook[] = [],
  ) {
    for (const p of pages) this.byMonth.set(p.month, [...(this.byMonth.get(p.month) ?? []), p]);
    this.months = [...this.byMonth.keys()].sort();
    this.sitemapOnly = this.months[this.months.length - 1]!;
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      const reply = this.route(path);
      const record: RequestRecord = { path, headers: req.headers, status: reply.status, bytes: 0 };
      this.requests.push(record);
      const send = () => {
        if (reply.status === 200 && reply.validators) {
          const { etag, lastModified } = reply.validators;
          if (req.headers['if-none-match'] === etag || (!req.headers['if-none-match'] && req.headers['if-modified-since'] === lastModified)) {
            record.status = 304;
            res.writeHead(304, { etag, 'last-modified': lastModified }).end();
            return;
          }
          res.setHeader('etag', etag);
          res.setHeader('last-modified', lastModified);
        }
        res.writeHead(reply.status, reply.headers ?? {});
        record.bytes = Buffer.byteLength(reply.body ?? '');
        res.end(reply.body ?? '');
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs).unref();
      else send();
    });
    this.base = await listenLoopback(this.server);
    return this.base;
  }

  async stop(): Promise<void> {
    await closeServer(this.server);
  }

  /** Requests since the mark, by path. */
  since(mark: number): RequestRecord[] {
    return this.requests.slice(mark);
  }

  pageUrl(p: SitePage): string {
    return `${this.base}/b/${p.slug}.html`;
  }

  private page(title: string, body: string, extraHead = ''): Reply {
    const text = html(title, body, extraHead);
    const etag = `"${createHash('sha1').update(text).digest('hex').slice(0, 16)}"`;
    return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: text, validators: { etag, lastModified: 'Tue, 24 Nov 2026 10:00:00 GMT' } };
  }

  /** /classics/ (the books), /classics/N/ (a book's contents and intro), /classics/N/M.html (a section). */
  private classicsRoute(rest: string): Reply | null {
    if (rest === '') {
      return this.page('Classics', `<h1>Classics</h1><ul>${this.books.map((b, i) => `<li><a href="${i}/">${esc(b.title)}</a></li>`).join('')}</ul>`);
    }
    const m = /^(\d+)\/(?:(\d+)\.html)?$/.exec(rest);
    const book = m ? this.books[Number(m[1])] : undefined;
    if (!book) return null;
    if (m![2] === undefined) {
      const toc = book.sections.map((s, j) => `<li><a href="${j}.html">${esc(s.title)}</a></li>`).join('');
      return this.page(book.title, `${renderMarkdown(book.intro)}<ol>${toc}</ol>`);
    }
    const section = book.sections[Number(m![2])];
    return section ? this.page(`${section.title} · ${book.title}`, renderMarkdown(section.markdown)) : null;
  }

  private route(path: string): Reply {
    const v2 = this.version >= 2;
    if (this.allGone && path !== '/robots.txt') return { status: 404, body: 'gone' };
    if (path === '/robots.txt') {
      return {
        status: 200,
        headers: { 'content-type': 'text/plain' },
        body: `User-agent: *\nDisallow: /private/\n${this.crawlDelay !== null ? `Crawl-delay: ${this.crawlDelay}\n` : ''}\nSitemap: ${this.base}/sitemap.xml\n`,
      };
    }
    if (path === '/sitemap.xml') {
      const urls = (this.byMonth.get(this.sitemapOnly) ?? []).map((p) => `<url><loc>${this.pageUrl(p)}</loc></url>`).join('');
      return { status: 200, headers: { 'content-type': 'application/xml' }, body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>` };
    }
    if (path === '/' || path === '/index.html') {
      const hubs = this.months.filter((m) => m !== this.sitemapOnly).map((m) => `<li><a href="/months/${m}/">${m}</a></li>`).join('');
      const edges = ['/old', '/missing.html', '/changing.html', v2 ? '/added.html' : '/deleted.html', '/slow.html', '/huge.html', '/binary', '/loop/a.html', '/deep/1.html', '/private/secret.html', '/about.html']
        .map((h) => `<li><a href="${h}">${h}</a></li>`)
        .join('');
      const classics = this.books.length ? '<h2>Classics</h2><p><a href="/classics/">The classics, book by book</a></p>' : '';
      return this.page('Loopback bookmarks', `<h1>Bookmarks</h1><ul>${hubs}</ul>${classics}<h2>Other pages</h2><ul>${edges}</ul>`);
    }
    if (this.books.length && path.startsWith('/classics/')) {
      const r = this.classicsRoute(path.slice('/classics/'.length));
      if (r) return r;
    }
    const hub = /^\/months\/(\d{6})\/$/.exec(path);
    if (hub && this.byMonth.has(hub[1]!)) {
      const list = this.byMonth.get(hub[1]!)!.map((p) => `<li><a href="../../b/${p.slug}.html">${esc(p.title)}</a></li>`).join('');
      return this.page(`Bookmarks of ${hub[1]}`, `<h1>${hub[1]}</h1><ul>${list}</ul>`);
    }
    const b = /^\/b\/(.+)\.html$/.exec(path);
    const bookmark = b ? this.pages.find((p) => p.slug === b[1]) : undefined;
    if (bookmark) {
      return this.page(bookmark.title, renderMarkdown(bookmark.markdown), `<link rel="canonical" href="${this.pageUrl(bookmark)}">`);
    }
    switch (path) {
      case '/about.html':
        return this.page('About', '<h1>About</h1><p>A site for crawler tests, with a table:</p><table><tr><th>flag</th><th>meaning</th></tr><tr><td><code>--mode</code></td><td>hybrid | keyword</td></tr></table><pre><code class="language-ts">const x: number = 1;</code></pre>');
      case '/old':
        return { status: 301, headers: { location: '/older' } };
      case '/older':
        return { status: 302, headers: { location: `${this.base}/redirected.html` } };
      case '/redirected.html':
        return this.page('Redirect target', '<h1>Redirect target</h1><p>Reached through two redirects.</p>');
      case '/changing.html':
        return this.page('Changing', `<h1>Changing</h1><p>${v2 ? 'The second version of this page says something new about caching.' : 'The first version of this page.'}</p>`);
      case '/deleted.html':
        return v2 ? { status: 404, body: 'gone' } : this.page('Deleted soon', '<h1>Deleted soon</h1><p>This page is removed in version two.</p>');
      case '/added.html':
        return v2 ? this.page('Added', '<h1>Added</h1><p>A page that appears in version two.</p>') : { status: 404 };
      case '/slow.html':
        return { ...this.page('Slow', '<p>slow</p>'), delayMs: this.slowMs };
      case '/huge.html':
        return this.page('Huge', `<p>${'big '.repeat(300_000)}</p>`);
      case '/binary':
        return { status: 200, headers: { 'content-type': 'image/png' }, body: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]) };
      case '/loop/a.html':
        return this.page('Loop A', '<h1>Loop A</h1><p><a href="/loop/b.html">to B</a></p>');
      case '/loop/b.html':
        return this.page('Loop B', '<h1>Loop B</h1><p><a href="/loop/a.html">to A</a> <a href="/loop/b.html">self</a></p>');
      case '/private/secret.html':
      case '/private/admin.html':
        return this.page('Secret', '<p>never to be requested</p>');
    }
    const deep = /^\/deep\/(\d+)\.html$/.exec(path);
    if (deep) return this.page(`Deep ${deep[1]}`, `<p>Level ${deep[1]} <a href="/deep/${Number(deep[1]) + 1}.html">deeper</a></p>`);
    return { status: 404, body: 'not found' };
  }
}

interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  validators?: { etag: string; lastModified: string };
  delayMs?: number;
}

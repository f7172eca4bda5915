import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import BetterSqlite3 from 'better-sqlite3';
import { parseConfig } from '../../src/builtin.ts';
import type { ConfigInput } from '../../src/config/schema.ts';
import { index } from '../helpers/index-fixture.ts';
import { tempDir } from '../helpers/tmp.ts';
import { closeServer, listenLoopback } from '../helpers/website.ts';

/** One request as the loopback site saw it: when it arrived (ms), what it asked, what it got. */
interface Seen {
  path: string;
  at: number;
  headers: IncomingHttpHeaders;
  status: number;
}
interface Reply {
  status?: number;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
  /** Drop the connection without an answer. */
  hangUp?: boolean;
}

/** A loopback site answering from a route function and recording every request. */
class Site {
  readonly requests: Seen[] = [];
  base = '';
  private server: Server | null = null;
  constructor(private readonly route: (path: string, req: IncomingMessage, site: Site) => Reply) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const reply = this.route(path, req, this);
      const seen: Seen = { path, at: Date.now(), headers: req.headers, status: reply.status ?? 200 };
      this.requests.push(seen);
      if (reply.hangUp) return req.socket.destroy();
      const etag = reply.headers?.etag;
      if (etag && req.headers['if-none-match'] === etag) {
        seen.status = 304;
        return res.writeHead(304, { etag }).end();
      }
      res.writeHead(reply.status ?? 200, { 'content-type': 'text/html', ...reply.headers }).end(reply.body ?? '');
    });
    this.base = await listenLoopback(this.server);
    return this.base;
  }

  stop = () => closeServer(this.server);

  paths = () => this.requests.map((r) => r.path);
}

const page = (title: string, body: string, head = '') =>
  `<!doctype html><html><head><title>${title}</title>${head}</head><body><main><h1>${title}</h1>${body}</main></body></html>`;
const links = (...hrefs: string[]) => hrefs.map((h) => `<a href="${h}">${h}</a>`).join(' ');

const t = tempDir('ragsync-polite-');
const running: Site[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});
afterAll(() => t.cleanup());
async function site(route: (path: string, req: IncomingMessage, site: Site) => Reply): Promise<Site> {
  const s = new Site(route);
  running.push(s);
  await s.start();
  return s;
}

let n = 0;
/**
 * One `ragsync index` run over the site's web source (a fresh SQLite index unless `db` is
 * given): the run's result, and the documents the index then holds, path → text of its chunks.
 */
async function crawl(s: Site, extra: Partial<ConfigInput['sources'][number]> = {}, db = join(t.dir, `i${n++}.db`)) {
  const config = parseConfig({
    db,
    embedder: { provider: 'hash', dims: 64 },
    sources: [{ name: 'site', kind: 'web', url: `${s.base}/`, timeoutMs: 4000, maxFileBytes: 200_000, allowEmpty: true, ...extra }],
  });
  const result = await index(config);
  const sql = new BetterSqlite3(db, { readonly: true });
  try {
    const rows = sql
      .prepare(`SELECT d.path, group_concat(c.content, char(10)) AS text FROM documents d LEFT JOIN chunks c ON c.document_id = d.id GROUP BY d.id ORDER BY d.path`)
      .all() as { path: string; text: string | null }[];
    const docs = new Map(rows.map((r) => [r.path.slice(s.base.length), r.text ?? '']));
    const skipped = result.sources[0]!.skippedFiles.map((f) => ({ path: f.path.slice(s.base.length), reason: f.reason.slice(f.path.length + 2), intended: !!f.intended }));
    return { result, docs, skipped, db };
  } finally {
    sql.close();
  }
}

describe('a polite crawler: robots.txt', () => {
  it('follows robots.txt redirects (its rules apply to the origin asked for), matched by the product token ragsync; the User-Agent names ragsync and its version', async () => {
    const s = await site((path): Reply => {
      if (path === '/robots.txt') return { status: 301, headers: { location: '/moved/robots' } };
      if (path === '/moved/robots') return { status: 302, headers: { location: '/rules.txt' } };
      if (path === '/rules.txt') return { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nDisallow: /\n\nUser-agent: ragsync\nDisallow: /private/\n' };
      if (path === '/') return { body: page('Home', links('/private/secret.html', '/public.html')) };
      if (path === '/public.html') return { body: page('Public', '<p>anyone may read this</p>') };
      if (path === '/private/secret.html') return { body: page('Secret', '<p>never to be requested</p>') };
      return { status: 404 };
    });
    const { docs, skipped, result } = await crawl(s);
    expect(s.paths().slice(0, 3)).toEqual(['/robots.txt', '/moved/robots', '/rules.txt']);
    expect(s.paths()).not.toContain('/private/secret.html');
    expect([...docs.keys()]).toEqual(['/', '/public.html']);
    expect(skipped).toEqual([{ path: '/private/secret.html', reason: 'disallowed by robots.txt', intended: true }]);
    // Left out as the site asks: listed, and the run is not partial for it.
    expect(result.status).toBe('ok');
    for (const r of s.requests) expect(r.headers['user-agent']).toMatch(/^ragsync\/0\.1\.0\b/);
  });

  it('a robots.txt answering 5xx, or not at all, allows nothing this run and says so; a 404 allows everything', async () => {
    for (const failure of [{ status: 500 }, { hangUp: true }] as Reply[]) {
      const s = await site((path) => (path === '/robots.txt' ? failure : { body: page('Home', links('/a.html')) }));
      const { docs, skipped } = await crawl(s);
      expect(s.paths()).toEqual(['/robots.txt']);
      expect(docs.size).toBe(0);
      expect(skipped).toEqual([{ path: '/robots.txt', reason: expect.stringMatching(/^robots\.txt unreachable \((HTTP 500|.+)\): nothing crawled on http:\/\/127\.0\.0\.1:\d+ this run$/), intended: false }]);
    }
    const s = await site((path) => (path === '/' ? { body: page('Home', links('/a.html')) } : path === '/a.html' ? { body: page('A', '<p>a</p>') } : { status: 404 }));
    const { docs } = await crawl(s);
    expect(s.paths()).toEqual(['/robots.txt', '/sitemap.xml', '/llms.txt', '/', '/a.html']);
    expect([...docs.keys()]).toEqual(['/', '/a.html']);
  });
});

describe('a polite crawler: robots.txt redirecting more than five times', () => {
  it('is taken as unavailable (RFC 9309): everything allowed', async () => {
    const s = await site((path): Reply => {
      const hop = /^\/(?:robots\.txt|r(\d+))$/.exec(path);
      if (hop) return { status: 302, headers: { location: `/r${Number(hop[1] ?? 0) + 1}` } };
      if (path === '/') return { body: page('Home', links('/a.html')) };
      if (path === '/a.html') return { body: page('A', '<p>a</p>') };
      return { status: 404 };
    });
    const { docs } = await crawl(s);
    expect(s.paths().slice(0, 6)).toEqual(['/robots.txt', '/r1', '/r2', '/r3', '/r4', '/r5']);
    expect(s.paths()).not.toContain('/r6');
    expect([...docs.keys()]).toEqual(['/', '/a.html']);
  });
});

describe('a polite crawler: the crawl’s deadline', () => {
  it('stops asking for pages once deadlineMs has passed, says how many it left, and asks nothing after', async () => {
    const pages = ['/1.html', '/2.html', '/3.html', '/4.html', '/5.html', '/6.html'];
    const s = await site((path) => (path === '/' ? { body: page('Home', links(...pages)) } : pages.includes(path) ? { body: page(path, '<p>a page</p>') } : { status: 404 }));
    const { skipped, result } = await crawl(s, { delayMs: 300, concurrency: 1, deadlineMs: 1000 });
    const asked = s.paths().filter((p) => pages.includes(p));
    expect(asked.length).toBeLessThan(pages.length);
    expect(skipped).toContainEqual({ path: '/', reason: expect.stringMatching(/^the crawl's deadline \(deadlineMs 1000\) passed: \d+ pages not asked for this run$/), intended: false });
    // The last request went out at most one crawl delay after the deadline (plus a little for the load).
    expect(s.requests.at(-1)!.at - s.requests[0]!.at).toBeLessThan(1000 + 300 + 500);
    expect(result.status).toBe('partial');
  });
});

describe('a polite crawler: compressed bodies', () => {
  it('asks for gzip, deflate and br and indexes each decoded; a body that decodes past maxFileBytes is skipped without being held', async () => {
    const coded: Record<string, [string, (b: Buffer) => Buffer]> = {
      '/gzip.html': ['gzip', gzipSync],
      '/br.html': ['br', brotliCompressSync],
      '/deflate.html': ['deflate', deflateSync],
    };
    // 20 MB of spaces in about 20 kB of gzip: under maxFileBytes on the wire, far over it decoded.
    const bomb = gzipSync(Buffer.alloc(20_000_000, 0x20));
    const s = await site((path) => {
      if (path === '/') return { body: page('Home', links(...Object.keys(coded), '/bomb.html')) };
      const c = coded[path];
      if (c) return { headers: { 'content-encoding': c[0] }, body: c[1](Buffer.from(page(`Coded ${c[0]}`, `<p>This page travelled as ${c[0]} and reads as plain words.</p>`))) };
      if (path === '/bomb.html') return { headers: { 'content-encoding': 'gzip' }, body: bomb };
      return { status: 404 };
    });
    const { docs, skipped } = await crawl(s);
    for (const r of s.requests) expect(r.headers['accept-encoding']).toBe('gzip, deflate, br');
    expect([...docs.keys()].sort()).toEqual(['/', '/br.html', '/deflate.html', '/gzip.html']);
    for (const c of ['gzip', 'br', 'deflate']) expect(docs.get(`/${c}.html`)).toContain(`This page travelled as ${c} and reads as plain words.`);
    expect(skipped).toEqual([{ path: '/bomb.html', reason: expect.stringMatching(/^over maxBytes \(\d+ > 200000 bytes\)$/), intended: false }]);
    // Decoding stopped at the cap (give or take one decoded chunk), not after the whole 20 MB.
    expect(Number(/\((\d+) >/.exec(skipped[0]!.reason)![1])).toBeLessThan(300_000);
  });
});

/** Text in a legacy encoding, byte pairs found by decoding every two-byte sequence (TextEncoder writes UTF-8 only). */
function encodeLegacy(text: string, encoding: string): Buffer {
  const table = new Map<string, number[]>();
  const dec = new TextDecoder(encoding);
  for (let a = 0x81; a <= 0xfe; a++) for (let b = 0x40; b <= 0xfe; b++) {
    const ch = dec.decode(Uint8Array.from([a, b]));
    if (ch.length === 1 && !table.has(ch)) table.set(ch, [a, b]);
  }
  return Buffer.from([...text].flatMap((ch) => (ch.charCodeAt(0) < 0x80 ? [ch.charCodeAt(0)] : table.get(ch) ?? [0x3f])));
}

describe('a polite crawler: character sets', () => {
  it('decodes by BOM, then the Content-Type charset, then <meta charset> / http-equiv in the first bytes: GBK, Big5, Shift_JIS', async () => {
    const zh = '天地玄黄，宇宙洪荒。日月盈昃，辰宿列张。';
    const tw = '寒來暑往，秋收冬藏。閏餘成歲，律呂調陽。';
    const ja = '吾輩は猫である。名前はまだ無い。';
    const s = await site((path) => {
      if (path === '/') return { body: page('Home', links('/gbk.html', '/big5.html', '/sjis.html', '/bom.html')) };
      // The meta tag alone names the encoding (the header has no charset).
      if (path === '/gbk.html') return { body: encodeLegacy(`<html><head><meta charset="gbk"><title>GBK</title></head><body><main><p>${zh}</p></main></body></html>`, 'gbk') };
      if (path === '/big5.html')
        return { body: encodeLegacy(`<html><head><!-- <meta charset="gbk"> --><meta http-equiv="Content-Type" content="text/html; charset=big5"><title>Big5</title></head><body><main><p>${tw}</p></main></body></html>`, 'big5') };
      // The header wins over a meta tag that names another encoding.
      if (path === '/sjis.html')
        return { headers: { 'content-type': 'text/html; charset=Shift_JIS' }, body: encodeLegacy(`<html><head><meta charset="gbk"><title>SJIS</title></head><body><main><p>${ja}</p></main></body></html>`, 'shift_jis') };
      // A byte-order mark wins over the header (as in browsers).
      if (path === '/bom.html')
        return { headers: { 'content-type': 'text/html; charset=gbk' }, body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`<html><body><main><p>${zh}</p></main></body></html>`)]) };
      return { status: 404 };
    });
    const { docs } = await crawl(s);
    expect(docs.get('/gbk.html')).toContain(zh);
    expect(docs.get('/big5.html')).toContain(tw);
    expect(docs.get('/sjis.html')).toContain(ja);
    expect(docs.get('/bom.html')).toContain(zh);
  });
});

describe('a polite crawler: 429 and 503 with Retry-After', () => {
  /** A site whose page /slow-down.html answers `first` once, then 200; the home links it and two others. */
  const throttling = (first: (req: IncomingMessage) => Reply) => {
    let asked = 0;
    return site((path, req) => {
      if (path === '/') return { body: page('Home', links('/slow-down.html', '/b.html', '/c.html')) };
      if (path === '/slow-down.html') return asked++ === 0 ? first(req) : { body: page('Slow down', '<p>answered after the wait</p>') };
      if (path === '/b.html' || path === '/c.html') return { body: page(path, `<p>page ${path}</p>`) };
      return { status: 404 };
    });
  };
  const after = (s: Site, status: number) => {
    const i = s.requests.findIndex((r) => r.status === status);
    return { at: s.requests[i]!.at, next: s.requests.slice(i + 1) };
  };

  it('Retry-After in seconds: no request to the host until it has passed, then the page is asked again and indexed', async () => {
    const s = await throttling(() => ({ status: 429, headers: { 'retry-after': '1' } }));
    // One request at a time, so none is in flight when the 429 comes: every later one must wait.
    const { docs, result } = await crawl(s, { concurrency: 1 });
    const { at, next } = after(s, 429);
    expect(next.length).toBeGreaterThan(0);
    for (const r of next) expect(r.at - at, r.path).toBeGreaterThanOrEqual(990);
    expect(next.map((r) => r.path)).toContain('/slow-down.html');
    expect([...docs.keys()].sort()).toEqual(['/', '/b.html', '/c.html', '/slow-down.html']);
    expect(result.status).toBe('ok');
  });

  it('Retry-After as an HTTP date, measured against the answer’s Date', async () => {
    const s = await throttling(() => {
      const now = Math.floor(Date.now() / 1000) * 1000;
      return { status: 503, headers: { date: new Date(now).toUTCString(), 'retry-after': new Date(now + 2000).toUTCString() } };
    });
    const { docs } = await crawl(s, { concurrency: 1 });
    const { at, next } = after(s, 503);
    for (const r of next) expect(r.at - at, r.path).toBeGreaterThanOrEqual(1990 - (at % 1000));
    expect(docs.has('/slow-down.html')).toBe(true);
  });

  it('a wait past the crawl’s deadline, or over maxRetryAfterMs, stops asking that host and says why; known pages keep their indexed copy', async () => {
    let throttle = false;
    const s = await site((path) => {
      if (throttle && path !== '/robots.txt') return { status: 429, headers: { 'retry-after': '30' } };
      if (path === '/') return { body: page('Home', links('/b.html')) };
      if (path === '/b.html') return { body: page('B', '<p>page b</p>') };
      return { status: 404 };
    });
    const first = await crawl(s);
    expect([...first.docs.keys()]).toEqual(['/', '/b.html']);
    throttle = true;
    const started = Date.now();
    const mark = s.requests.length;
    const again = await crawl(s, { deadlineMs: 5000 }, first.db);
    expect(Date.now() - started).toBeLessThan(4000);
    // The sitemap's 429 asks for 30 s, past the 5 s deadline: the host is asked nothing more.
    expect(s.requests.slice(mark).map((r) => r.path)).toEqual(['/robots.txt', '/sitemap.xml']);
    const why = `${s.base.slice(7)} answered 429 with Retry-After 30 s, past the crawl's deadline: no more requests to it this run`;
    expect(again.skipped).toEqual([
      { path: '/', reason: why, intended: false },
      { path: '/b.html', reason: why, intended: false },
    ]);
    expect([...again.docs.keys()]).toEqual(['/', '/b.html']);
    expect(again.result.status).toBe('partial');

    const capped = await site((path) => (path === '/robots.txt' ? { status: 404 } : { status: 429, headers: { 'retry-after': '600' } }));
    const c = await crawl(capped, { maxRetryAfterMs: 60_000 });
    // The first 429 (the sitemap) stops the host: nothing else is asked.
    expect(capped.paths()).toEqual(['/robots.txt', '/sitemap.xml']);
    expect(c.skipped.map((k) => k.reason)).toContain(`${capped.base.slice(7)} answered 429 with Retry-After 600 s, more than maxRetryAfterMs (60000 ms): no more requests to it this run`);
  });
});

describe('a polite crawler: sitemaps', () => {
  it('reads sitemap indexes (nested, bounded in depth) and .xml.gz sitemaps, gzipped as a file or by Content-Encoding, with an XML parser', async () => {
    const urlset = (base: string, ...paths: string[]) =>
      `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">${paths
        .map((p) => `<url><loc>\n  ${base}${p}\n</loc><image:image><image:loc>${base}/img/${p}.png</image:loc></image:image></url>`)
        .join('')}</urlset>`;
    const index = (base: string, ...paths: string[]) =>
      `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths.map((p) => `<sitemap><loc>${base}${p}</loc></sitemap>`).join('')}</sitemapindex>`;
    const xml = { 'content-type': 'application/xml' };
    const s = await site((path, _req, me) => {
      const b = me.base;
      switch (path) {
        case '/robots.txt':
          return { headers: { 'content-type': 'text/plain' }, body: `User-agent: *\nAllow: /\nSitemap: ${b}/sitemap_index.xml\n` };
        case '/sitemap_index.xml':
          return { headers: xml, body: index(b, '/file.xml.gz', '/coded.xml', '/nested.xml') };
        case '/file.xml.gz':
          return { headers: { 'content-type': 'application/x-gzip' }, body: gzipSync(urlset(b, '/from-gz.html')) };
        case '/coded.xml':
          return { headers: { ...xml, 'content-encoding': 'gzip' }, body: gzipSync(urlset(b, '/from-coded.html?a=1&amp;b=2')) };
        case '/nested.xml':
          return { headers: xml, body: index(b, '/deeper.xml') };
        case '/deeper.xml':
          return { headers: xml, body: `${index(b, '/too-deep.xml')}`.replace('</sitemapindex>', '') + '</sitemapindex>' };
        case '/too-deep.xml':
          return { headers: xml, body: urlset(b, '/never.html') };
        case '/':
          return { body: page('Home', '<p>no links</p>') };
        case '/from-gz.html':
        case '/from-coded.html':
          return { body: page(path, `<p>listed only in a sitemap: ${path}</p>`) };
      }
      return { status: 404 };
    });
    const { docs, skipped } = await crawl(s);
    expect([...docs.keys()].sort()).toEqual(['/', '/from-coded.html?a=1&b=2', '/from-gz.html']);
    // Three levels of sitemaps at most: the index, the nested index, and what it names; not the fourth.
    expect(s.paths()).toContain('/deeper.xml');
    expect(s.paths()).not.toContain('/too-deep.xml');
    expect(s.paths().filter((p) => p.startsWith('/img/'))).toEqual([]);
    expect(skipped).toEqual([]);
  });

  it('a named sitemap that is not XML is reported, not read as pages', async () => {
    const s = await site((path, _req, me) =>
      path === '/robots.txt'
        ? { headers: { 'content-type': 'text/plain' }, body: `Sitemap: ${me.base}/broken.xml\n` }
        : path === '/broken.xml'
          ? { body: '<html><body>Not found, but 200</body></html>' }
          : path === '/'
            ? { body: page('Home', '') }
            : { status: 404 },
    );
    const { skipped } = await crawl(s);
    expect(skipped).toEqual([{ path: '/broken.xml', reason: expect.stringMatching(/^sitemap: not a sitemap \(/), intended: false }]);
  });
});

describe('a polite crawler: noindex and nofollow', () => {
  it('by <meta name="robots"> and X-Robots-Tag (for ragsync or every crawler): noindex pages not indexed, their links followed; nofollow links not followed', async () => {
    const s = await site((path) => {
      const r = (title: string, body: string, head = '', headers: Record<string, string | string[]> = {}): Reply => ({ headers, body: page(title, body, head) });
      switch (path) {
        case '/':
          return r('Home', links('/noindex-meta.html', '/nofollow-meta.html', '/noindex-header.html', '/nofollow-header.html', '/other-bot.html', '/own-token.html', '/rel.html'));
        case '/noindex-meta.html':
          return r('Noindex meta', links('/via-noindex-meta.html'), '<meta name="robots" content="noindex">');
        case '/nofollow-meta.html':
          return r('Nofollow meta', links('/never-1.html'), '<meta name="ROBOTS" content="index, nofollow">');
        case '/noindex-header.html':
          return r('Noindex header', links('/via-noindex-header.html'), '', { 'x-robots-tag': 'noindex' });
        case '/nofollow-header.html':
          return r('Nofollow header', links('/never-2.html'), '', { 'x-robots-tag': ['unavailable_after: 25 Jun 2030 15:00:00 PST', 'ragsync: nofollow'] });
        case '/other-bot.html':
          return r('Other bot', '<p>another crawler is told noindex; ragsync is not</p>', '<meta name="otherbot" content="noindex">', { 'x-robots-tag': 'otherbot: noindex, nofollow' });
        case '/own-token.html':
          return r('Own token', links('/never-3.html'), '<meta name="ragsync" content="none">');
        case '/rel.html':
          return r('Rel', `<a rel="nofollow sponsored" href="/never-4.html">ad</a> ${links('/via-rel.html')}`);
        case '/via-noindex-meta.html':
        case '/via-noindex-header.html':
        case '/via-rel.html':
          return r(path, '<p>reached through a link</p>');
      }
      return path.startsWith('/never') ? r('Never', '<p>must not be requested</p>') : { status: 404 };
    });
    const { docs, skipped, result } = await crawl(s);
    expect(s.paths().filter((p) => p.startsWith('/never'))).toEqual([]);
    expect([...docs.keys()].sort()).toEqual(['/', '/nofollow-header.html', '/nofollow-meta.html', '/other-bot.html', '/rel.html', '/via-noindex-header.html', '/via-noindex-meta.html', '/via-rel.html']);
    expect(skipped.sort((a, b) => (a.path < b.path ? -1 : 1))).toEqual([
      { path: '/noindex-header.html', reason: 'noindex (X-Robots-Tag)', intended: true },
      { path: '/noindex-meta.html', reason: 'noindex (<meta name="robots">)', intended: true },
      { path: '/own-token.html', reason: 'noindex (<meta name="robots">)', intended: true },
    ]);
    expect(result.status).toBe('ok');
  });

  it('a page indexed before that now says noindex is removed from the index', async () => {
    let noindex = false;
    const s = await site((path) =>
      path === '/' ? { body: page('Home', links('/later.html')) } : path === '/later.html' ? { body: page('Later', '<p>soon noindex</p>', noindex ? '<meta name="robots" content="noindex">' : '') } : { status: 404 },
    );
    const first = await crawl(s);
    expect([...first.docs.keys()]).toEqual(['/', '/later.html']);
    noindex = true;
    const again = await crawl(s, {}, first.db);
    expect([...again.docs.keys()]).toEqual(['/']);
  });
});

describe('a polite crawler: canonical links are hints', () => {
  it('a page whose canonical page has the same text is left out as its duplicate; one whose text differs stays; so on a re-crawl answered with 304s', async () => {
    const text = '<p>The one text both URLs serve.</p>';
    const s = await site((path) => {
      const canonical = '<link rel="canonical" href="/c.html">';
      switch (path) {
        case '/':
          return { body: page('Home', links('/a.html?utm=x', '/b.html')) };
        case '/a.html':
          return { headers: { etag: '"a"' }, body: page('C', text, canonical) };
        case '/b.html':
          return { headers: { etag: '"b"' }, body: page('B', '<p>Different words on this page.</p>', canonical) };
        case '/c.html':
          return { headers: { etag: '"c"' }, body: page('C', text, canonical) };
      }
      return { status: 404 };
    });
    const first = await crawl(s);
    expect(s.paths()).toContain('/c.html');
    expect([...first.docs.keys()].sort()).toEqual(['/', '/b.html', '/c.html']);
    expect(first.skipped).toEqual([{ path: '/a.html?utm=x', reason: `duplicate of its canonical page ${s.base}/c.html (same text)`, intended: true }]);
    expect(first.result.status).toBe('ok');
    const mark = s.requests.length;
    const again = await crawl(s, {}, first.db);
    expect(s.requests.slice(mark).find((r) => r.path === '/c.html')!.status).toBe(304);
    expect([...again.docs.keys()].sort()).toEqual(['/', '/b.html', '/c.html']);
    expect(again.skipped.map((k) => k.path)).toEqual(['/a.html?utm=x']);

    // Stamps written before text hashes were kept: the canonical page answering 304 is fetched again in full, once.
    const sql = new BetterSqlite3(first.db);
    sql.prepare(`UPDATE documents SET stamp = json_remove(stamp, '$.x')`).run();
    sql.close();
    const mark2 = s.requests.length;
    const upgraded = await crawl(s, {}, first.db);
    expect(s.requests.slice(mark2).filter((r) => r.path === '/c.html').map((r) => r.status)).toEqual([304, 200]);
    expect([...upgraded.docs.keys()].sort()).toEqual(['/', '/b.html', '/c.html']);
    expect(upgraded.skipped.map((k) => k.path)).toEqual(['/a.html?utm=x']);
  });
});

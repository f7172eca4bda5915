import { describe, expect, it } from 'vitest';
import { decodePage } from '../../src/sources/web/charset.ts';
import { robotsDirectives } from '../../src/sources/web/directives.ts';
import { retryAfterMs } from '../../src/sources/web/http.ts';
import { readSitemap } from '../../src/sources/web/sitemap.ts';

describe('Retry-After', () => {
  it('reads delta-seconds and HTTP dates (against the answer’s Date when given); anything else is none', () => {
    expect(retryAfterMs('120', undefined)).toBe(120_000);
    expect(retryAfterMs(' 0 ', undefined)).toBe(0);
    // The server's clock is an hour behind ours: the wait is what it says, not an hour less.
    const served = 'Wed, 21 Oct 2026 07:28:00 GMT';
    expect(retryAfterMs('Wed, 21 Oct 2026 07:28:30 GMT', served, Date.parse(served) + 3_600_000)).toBe(30_000);
    expect(retryAfterMs('Wed, 21 Oct 2026 07:28:30 GMT', undefined, Date.parse('Wed, 21 Oct 2026 07:28:10 GMT'))).toBe(20_000);
    expect(retryAfterMs('Wed, 21 Oct 2026 07:27:00 GMT', served)).toBe(0);
    expect(retryAfterMs('soon', undefined)).toBeNull();
    expect(retryAfterMs('-5', undefined)).toBeNull();
    expect(retryAfterMs(undefined, undefined)).toBeNull();
  });
});

describe('a page’s character set', () => {
  const latin1 = (s: string) => Buffer.from(s, 'latin1');
  it('takes a UTF-16 or x-user-defined <meta> as the spec says (UTF-8, windows-1252), passes over unknown labels and comments', () => {
    expect(decodePage(Buffer.from('<meta charset="utf-16"><p>é</p>'), 'text/html', true)).toContain('é');
    expect(decodePage(latin1('<meta charset="x-user-defined"><p>\xe9</p>'), 'text/html', true)).toContain('é');
    expect(decodePage(latin1('<meta charset="no-such"><meta charset=latin1><p>\xe9</p>'), 'text/html', true)).toContain('é');
    expect(decodePage(latin1('<!-- <meta charset=latin1> --><p>\xe9</p>'), 'text/html', true)).toContain('\ufffd');
  });
  it('reads no <meta> past the first 1024 bytes, nor in a page that is not HTML', () => {
    expect(decodePage(latin1(`${' '.repeat(1100)}<meta charset=latin1><p>\xe9</p>`), 'text/html', true)).toContain('\ufffd');
    expect(decodePage(latin1('<meta charset=latin1> \xe9'), 'text/plain', false)).toContain('\ufffd');
  });
  it('a UTF-16 BOM wins over the header', () => {
    const body = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<p>ok</p>', 'utf16le')]);
    expect(decodePage(body, 'text/html; charset=utf-8', true)).toBe('<p>ok</p>');
  });
});

describe('robots directives', () => {
  it('applies headers unprefixed or prefixed with the token, and meta tags; none is both', () => {
    const r = (h: string[], m: string[] = []) => robotsDirectives(h, m, 'ragsync');
    expect(r(['noindex'])).toEqual({ header: { noindex: true, nofollow: false }, meta: { noindex: false, nofollow: false } });
    expect(r(['googlebot: noindex, nofollow']).header).toEqual({ noindex: false, nofollow: false });
    expect(r(['RagSync: none']).header).toEqual({ noindex: true, nofollow: true });
    expect(r(['unavailable_after: 25 Jun 2010 15:00:00 PST']).header).toEqual({ noindex: false, nofollow: false });
    expect(r([], ['index, follow', 'NOFOLLOW']).meta).toEqual({ noindex: false, nofollow: true });
  });
});

describe('sitemaps read with an XML parser', () => {
  it('takes the <loc> of each <url>, entities and CDATA decoded, an image’s <loc> left out', async () => {
    const xml = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
      <url><loc>https://a.example/p?x=1&amp;y=2</loc><image:image><image:loc>https://a.example/i.png</image:loc></image:image></url>
      <url><loc><![CDATA[https://a.example/q]]></loc></url><url><loc>/relative</loc></url></urlset>`;
    expect(await readSitemap(xml, 'https://a.example/sitemap.xml')).toEqual({ pages: ['https://a.example/p?x=1&y=2', 'https://a.example/q', 'https://a.example/relative'], sitemaps: [] });
  });
  it('reads a sitemap index as sitemaps, no DTD entity expanded; a bare & as the & it means; a malformed one on past its error', async () => {
    const index = `<!DOCTYPE x [<!ENTITY e "https://evil.example/">]><sitemapindex><sitemap><loc>&e;s.xml</loc></sitemap><sitemap><loc>https://a.example/s2.xml</loc></sitemap></sitemapindex>`;
    const r = await readSitemap(index, 'https://a.example/');
    expect(r.sitemaps.some((u) => u.includes('evil'))).toBe(false);
    expect(r.sitemaps).toContain('https://a.example/s2.xml');
    const broken = await readSitemap('<urlset><url><loc>https://a.example/?a=1&b=2</loc></url></urlset>', 'https://a.example/');
    expect(broken).toEqual({ pages: ['https://a.example/?a=1&b=2'], sitemaps: [] });
    const unclosed = await readSitemap('<urlset><url><loc>https://a.example/1</loc></url><url><loc>https://a.example/2</loc></urlset>', 'https://a.example/');
    expect(unclosed.pages).toEqual(['https://a.example/1', 'https://a.example/2']);
    expect(unclosed.error).toBeTruthy();
    expect((await readSitemap('<html><body>oops</body></html>', 'https://a.example/')).error).toMatch(/<html> where <urlset> or <sitemapindex> was expected/);
  });
});

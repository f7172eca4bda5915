import { createHash } from 'node:crypto';
import { parseHtml, type HtmlPreparer, type PreparedText } from '../../core/html-page.ts';
import { frontMatter, HTML, MARKDOWN, PLAIN } from '../../core/media-type.ts';
import type { ReadFile, Snapshot, SourceFile } from '../types.ts';
import { fetchOnce, type Fetched } from './http.ts';
import { pageLinks } from './links.ts';
import { ALLOW_ALL, DISALLOW_ALL, parseRobots, type RobotsRules } from './robots.ts';
import { markdownLinks, readSitemap } from './sitemap.ts';
import { decodeStamp, encodeStamp } from './stamp.ts';
import type { WebOptions } from './types.ts';
import { looksLikeFile, normalizeUrl, urlMatcher } from './url.ts';

/** A page not indexed this run, and why (a page already indexed keeps its stored copy). */
export interface SkippedPage {
  url: string;
  reason: string;
}

export interface CrawlStats {
  /** HTTP requests made: robots.txt, sitemaps, llms.txt, pages and redirect hops. */
  requests: number;
  /** Body bytes received. */
  bytes: number;
  /** Pages answered 304 Not Modified: nothing downloaded, nothing parsed. */
  notModified: number;
  /** Pages downloaded and converted. */
  fetched: number;
  /** Links never requested because robots.txt disallows them. */
  disallowed: number;
  /** Pages answered 404 or 410. */
  gone: number;
}

/**
 * What a dry run would fetch, found without requesting a page (robots.txt, sitemaps and llms.txt
 * are read): pages linked only from other pages are found when those are fetched, so not here.
 */
export interface CrawlPreview {
  /** Not indexed yet: the start page, and pages of the sitemaps and llms.txt. */
  new: string[];
  /** Indexed: each would be asked for with its validators (a 304 costs nothing). */
  revalidate: string[];
  /** Indexed but now outside what the source crawls (include/exclude, robots.txt, origins): removed. */
  drop: string[];
}

export interface WebSnapshot extends Snapshot {
  skipped: SkippedPage[];
  stats: CrawlStats;
  /** A dry run's answer (the snapshot then lists the indexed pages it keeps, and reads none). */
  preview?: CrawlPreview;
}

const MARKDOWN_TYPES = /^(text\/markdown|text\/x-markdown|text\/plain)\b/;
const MARKDOWN_ONLY = /^(text\/markdown|text\/x-markdown)\b/;
const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)\b/;
const MAX_SITEMAPS = 50;

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Page {
  bytes?: Buffer;
  /** An HTML page through the content step, from the document parsed for its links. */
  prepared?: PreparedText;
  stamp: string;
  /** 'text/html', 'text/markdown' or 'text/plain': the content step converts HTML before chunking. */
  mediaType: string;
}

/** What a crawl is asked to do besides the source's settings. */
export interface CrawlRun {
  signal?: AbortSignal;
  /** Request no page (see CrawlPreview). */
  dryRun?: boolean;
  /**
   * The content step for HTML pages: each page is parsed once, for its links, and that document
   * converted here, so the page is not parsed again when it is read (none: read as served).
   */
  prepareHtml?: HtmlPreparer;
}

/** A page indexed before media types were recorded was stored converted: Markdown. */
const mediaTypeOfStamp = (stamp: string) => decodeStamp(stamp)?.mediaType ?? MARKDOWN;

/**
 * Crawls a site into a snapshot whose files are its pages: the path is the page's canonical URL,
 * the content the page as served (in UTF-8; HTML is converted to Markdown by the content step
 * before chunking, a Markdown page gets its URL as front matter), the media type the
 * Content-Type's, the stamp the content hash with the server's validators and the media type.
 * `known` (URL → stamp, from the index) makes the crawl incremental: each known page is asked for
 * with If-None-Match and If-Modified-Since, and a 304 lists it unchanged with nothing read; a
 * 404 or 410 leaves it out (the run removes it, through the delete guard); any other failure keeps
 * it listed as it was. robots.txt is read first and a path it disallows is never requested; its
 * Crawl-delay, when longer than delayMs, spaces the requests. See CrawlRun for `run`.
 */
export async function crawlSite(o: WebOptions, known: ReadonlyMap<string, string>, run: CrawlRun = {}): Promise<WebSnapshot> {
  const { signal, dryRun = false, prepareHtml } = run;
  const start = normalizeUrl(o.url ?? o.sitemap ?? '');
  if (!start) throw new Error(`not an http(s) URL: ${o.url ?? o.sitemap}`);
  const origins = new Set([new URL(start).origin, ...o.allowOrigins.flatMap((a) => normalizeUrl(a) ?? []).map((a) => new URL(a).origin)]);
  const inScope = urlMatcher(o.include, o.exclude);
  const stats: CrawlStats = { requests: 0, bytes: 0, notModified: 0, fetched: 0, disallowed: 0, gone: 0 };
  const skipped: SkippedPage[] = [];
  const pages = new Map<string, Page>();
  const robots = new Map<string, RobotsRules>();
  let lastSlot = 0;
  let delay = o.delayMs;

  /** One request, spaced by the crawl delay: each takes the next free slot, delay after the one before. */
  const get = async (url: string, validators: { etag?: string; lastModified?: string } = {}): Promise<Fetched> => {
    const slot = Math.max(Date.now(), lastSlot + delay);
    lastSlot = slot;
    if (slot > Date.now()) await sleep(slot - Date.now());
    stats.requests++;
    const f = await fetchOnce(url, { headers: o.headers, userAgent: o.userAgent, timeoutMs: o.timeoutMs, maxBytes: o.maxBytes, ...validators });
    if (f.kind === 'body') stats.bytes += f.body.length;
    return f;
  };

  const robotsOf = async (origin: string): Promise<RobotsRules> => {
    let r = robots.get(origin);
    if (r) return r;
    const f = await get(`${origin}/robots.txt`);
    if (f.kind === 'body') r = parseRobots(`${origin}/robots.txt`, f.body.toString('utf8'), o.userAgent);
    // RFC 9309: unreachable (5xx, no answer) means crawl nothing; not there (4xx) means crawl anything.
    else if ((f.kind === 'status' && f.status >= 500) || f.kind === 'error') {
      r = DISALLOW_ALL;
      skipped.push({ url: `${origin}/robots.txt`, reason: `robots.txt unreachable (${f.kind === 'error' ? f.reason : `HTTP ${f.status}`}): nothing crawled on ${origin}` });
    } else r = ALLOW_ALL;
    robots.set(origin, r);
    delay = Math.max(delay, r.delayMs);
    return r;
  };

  /** Whether a URL may be requested at all: an allowed origin, a page not a file, in scope, allowed by robots.txt. */
  const mayRequest = async (url: string): Promise<boolean> => {
    const origin = new URL(url).origin;
    if (!origins.has(origin) || looksLikeFile(url) || !inScope(url)) return false;
    if (!(await robotsOf(origin)).allowed(url)) {
      stats.disallowed++;
      return false;
    }
    return true;
  };

  /**
   * Requests a URL, following redirects (each hop checked like a link); the final URL and answer.
   * Conditional: every hop that is a known page is asked for with its validators.
   */
  const follow = async (url: string, conditional: boolean): Promise<{ url: string; f: Fetched } | null> => {
    let hop = url;
    for (let i = 0; i <= o.maxRedirects; i++) {
      const stamp = conditional ? known.get(hop) : undefined;
      const v = stamp ? decodeStamp(stamp) : null;
      const f = await get(hop, { etag: v?.etag, lastModified: v?.lastModified });
      if (f.kind !== 'redirect') return { url: hop, f };
      const next = f.location ? normalizeUrl(f.location, hop) : null;
      if (!next || !(await mayRequest(next))) {
        skipped.push({ url, reason: `redirects to ${f.location ?? '(no location)'}, outside what this source crawls` });
        return null;
      }
      hop = next;
    }
    skipped.push({ url, reason: `more than ${o.maxRedirects} redirects` });
    return null;
  };

  const seen = new Set<string>();
  const gone = new Set<string>();
  let budget = o.maxPages;

  /** Visits one page; returns the links to follow from it. */
  const visit = async (url: string, conditional = true): Promise<string[]> => {
    const stamp = known.get(url);
    const answer = await follow(url, conditional);
    if (!answer) return [];
    const { f } = answer;
    if (f.kind === 'not-modified') {
      stats.notModified++;
      seen.add(answer.url);
      const kept = known.get(answer.url)!;
      pages.set(answer.url, { stamp: kept, mediaType: mediaTypeOfStamp(kept) });
      return [];
    }
    const keep = (reason: string) => {
      // A page already indexed stays as it was when the site fails to answer for it.
      if (stamp) pages.set(url, { stamp, mediaType: mediaTypeOfStamp(stamp) });
      skipped.push({ url, reason });
    };
    switch (f.kind) {
      case 'status':
        if (f.status === 404 || f.status === 410) {
          stats.gone++;
          gone.add(url);
        } else keep(`HTTP ${f.status}`);
        return [];
      case 'error':
        keep(f.reason);
        return [];
      case 'too-large':
        keep(`over maxBytes (${f.bytes} > ${o.maxBytes} bytes)`);
        return [];
      case 'redirect':
        return [];
      case 'body':
        break;
    }
    const isHtml = HTML_TYPES.test(f.contentType);
    if (!isHtml && !MARKDOWN_TYPES.test(f.contentType)) {
      keep(`not HTML, Markdown or text (${f.contentType || 'no content type'})`);
      return [];
    }
    let text = new TextDecoder(charsetOf(f.contentType)).decode(f.body);
    stats.fetched++;
    let links: string[];
    let id = answer.url;
    let dom: Document | undefined;
    if (isHtml) {
      dom = parseHtml(text);
      const page = pageLinks(dom, answer.url);
      links = page.links;
      if (page.canonical && page.canonical !== answer.url && origins.has(new URL(page.canonical).origin) && inScope(page.canonical)) {
        id = page.canonical;
        // Known by its canonical URL, its relative links still resolve against where it was fetched
        // (the document gets the <base> the stored text starts with, where parsing puts it).
        if (!page.hasBase) {
          const href = answer.url.replace(/"/g, '%22');
          text = `<base href="${href}">${text}`;
          const base = dom.createElement('base');
          base.setAttribute('href', href);
          dom.head.insertBefore(base, dom.head.firstChild);
        }
      }
    } else {
      links = markdownLinks(text, answer.url);
      text = frontMatter(null, id) + text + '\n';
    }
    // One document per page: a second URL (a redirect's target, a canonical) already indexed adds nothing.
    if (id !== url && pages.has(id)) return links;
    seen.add(id);
    const doc = Buffer.from(text);
    const mediaType = isHtml ? HTML : MARKDOWN_ONLY.test(f.contentType) ? MARKDOWN : PLAIN;
    const fresh = encodeStamp({ hash: sha256(doc), etag: f.etag, lastModified: f.lastModified, mediaType });
    // A page served again as it was indexed (a server without validators) is not read unless the
    // run asks for it (then it is fetched again, unconditionally): not converted until then.
    const prepared = dom && prepareHtml && (!conditional || known.get(id) !== fresh) ? prepareHtml(dom, id) : undefined;
    pages.set(id, { bytes: doc, mediaType, prepared, stamp: fresh });
    return links;
  };

  // Level by level (breadth first), so maxDepth and maxPages cut the farthest pages first.
  let level: string[] = [];
  const enqueue = (url: string, into: string[]) => {
    if (seen.has(url)) return;
    seen.add(url);
    into.push(url);
  };
  const seeds: string[] = [];
  if (o.url) enqueue(start, seeds);
  const origin = new URL(start).origin;
  const rules = await robotsOf(origin);
  for (const u of await sitemapPages(o.sitemap ? [normalizeUrl(o.sitemap)!] : rules.sitemaps.length ? rules.sitemaps : [`${origin}/sitemap.xml`]))
    enqueue(u, seeds);
  for (const u of await llmsPages(origin)) enqueue(u, seeds);
  level = seeds;
  if (dryRun) return preview(seeds);

  /** What a crawl would fetch, with no page requested: the indexed pages are listed as they are. */
  async function preview(found: string[]): Promise<WebSnapshot> {
    const p: CrawlPreview = { new: [], revalidate: [], drop: [] };
    for (const url of found) if (!known.has(url) && (await mayRequest(url))) p.new.push(url);
    for (const [url, stamp] of known) {
      if (await mayRequest(url)) {
        p.revalidate.push(url);
        pages.set(url, { stamp, mediaType: mediaTypeOfStamp(stamp) });
      } else p.drop.push(url);
    }
    const files = [...pages].map(([path, pg]) => ({ path, size: 0, stamp: pg.stamp, mediaType: pg.mediaType })).sort((a, b) => (a.path < b.path ? -1 : 1));
    // A dry run reads no page: a document the plan would re-chunk is left as it is.
    return { commit: null, files, skipped, stats, preview: p, async *read() {} };
  }

  async function sitemapPages(roots: string[]): Promise<string[]> {
    const out: string[] = [];
    const queue = [...roots];
    for (let n = 0; queue.length && n < MAX_SITEMAPS; n++) {
      const url = queue.shift()!;
      if (!origins.has(new URL(url).origin) || !(await robotsOf(new URL(url).origin)).allowed(url)) continue;
      const f = await get(url);
      if (f.kind !== 'body') continue;
      const s = readSitemap(f.body.toString('utf8'), url);
      out.push(...s.pages);
      queue.push(...s.sitemaps);
    }
    return out;
  }

  async function llmsPages(at: string): Promise<string[]> {
    const url = `${at}/llms.txt`;
    if (!(await robotsOf(at)).allowed(url)) return [];
    const f = await get(url);
    return f.kind === 'body' && MARKDOWN_TYPES.test(f.contentType) ? markdownLinks(f.body.toString('utf8'), url) : [];
  }

  const runLevel = async (urls: string[], followLinks: boolean): Promise<string[]> => {
    const next: string[] = [];
    let i = 0;
    const worker = async () => {
      while (i < urls.length && budget > 0 && !signal?.aborted) {
        const url = urls[i++]!;
        if (!(await mayRequest(url))) continue;
        budget--;
        const links = await visit(url);
        if (followLinks) for (const l of links) enqueue(l, next);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, o.concurrency) }, worker));
    return next;
  };
  for (let depth = 0; level.length && budget > 0; depth++) level = await runLevel(level, depth < o.maxDepth);
  // Pages indexed before and not reached by links this time are asked for again (a 404 removes them).
  await runLevel([...known.keys()].filter((u) => !seen.has(u) && (seen.add(u), true)), false);
  if (signal?.aborted) throw new Error('stopped');
  // Known pages the budget left unvisited keep their stored copy.
  for (const [url, stamp] of known) if (!pages.has(url) && !gone.has(url) && !visitedOrOut(url)) pages.set(url, { stamp, mediaType: mediaTypeOfStamp(stamp) });
  function visitedOrOut(url: string): boolean {
    return !origins.has(new URL(url).origin) || !inScope(url) || (robots.get(new URL(url).origin)?.allowed(url) === false);
  }

  const files: SourceFile[] = [...pages].map(([path, p]) => ({ path, size: p.bytes?.length ?? 0, stamp: p.stamp, mediaType: p.mediaType }));
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    commit: null,
    files,
    skipped,
    stats,
    async *read(paths) {
      const asRead = (path: string, p: Page): ReadFile => ({ path, bytes: p.bytes!, mediaType: p.mediaType, ...(p.prepared ? { prepared: p.prepared } : {}) });
      for (const path of paths) {
        const held = pages.get(path);
        if (held?.bytes) {
          yield asRead(path, held);
          continue;
        }
        // Listed unchanged (a 304) and asked for after all (--force, a new chunker): fetched again in full.
        await visit(path, false);
        const page = pages.get(path);
        if (!page?.bytes) throw new Error(`${path}: could not fetch the page again`);
        yield asRead(path, page);
      }
    },
  };
}

function charsetOf(contentType: string): string {
  const m = /charset=["']?([\w-]+)/i.exec(contentType);
  try {
    return new TextDecoder(m?.[1] ?? 'utf-8').encoding;
  } catch {
    return 'utf-8';
  }
}

import { createHash } from 'node:crypto';
import { parseHtml, type HtmlPreparer, type PreparedText } from '../../core/html-page.ts';
import { frontMatter, HTML, MARKDOWN, PLAIN } from '../../core/media-type.ts';
import type { ReadFile, Snapshot, SourceFile } from '../types.ts';
import { decodePage } from './charset.ts';
import { gunzipCapped, isGzip } from './content-encoding.ts';
import { robotsDirectives } from './directives.ts';
import { fetchOnce, type Fetched } from './http.ts';
import { pageLinks, pageText } from './links.ts';
import { ALLOW_ALL, DISALLOW_ALL, parseRobots, type RobotsRules } from './robots.ts';
import { markdownLinks, readSitemap } from './sitemap.ts';
import { decodeStamp, encodeStamp } from './stamp.ts';
import { RequestGate } from './throttle.ts';
import type { WebOptions } from './types.ts';
import { looksLikeFile, normalizeUrl, urlMatcher } from './url.ts';

/**
 * A page not indexed this run, and why (a page already indexed keeps its stored copy, unless the
 * site asked for it to go: noindex, a duplicate of its canonical page, disallowed by robots.txt).
 */
export interface SkippedPage {
  url: string;
  reason: string;
  /** Left out as the site asks (robots.txt, noindex, a duplicate of its canonical): not a failure. */
  intended?: boolean;
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
  /** 429 and 503 answers (each waited out before the host was asked again). */
  throttled: number;
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
/** Sitemaps read at most per crawl, and how deep sitemap indexes may nest. */
const MAX_SITEMAPS = 50;
const MAX_SITEMAP_DEPTH = 3;
/** A 429/503 page is asked for again at most this many times. */
const MAX_RETRIES = 3;

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

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
/** A page indexed before media types were recorded was stored converted: Markdown. */
const mediaTypeOfStamp = (stamp: string) => decodeStamp(stamp)?.mediaType ?? MARKDOWN;

/**
 * Crawls a site into a snapshot whose files are its pages: the path is the page's URL (where it
 * was fetched, after redirects), the content the page as served (decoded to UTF-8; HTML is
 * converted to Markdown by the content step before chunking, a Markdown page gets its URL as
 * front matter), the media type the Content-Type's, the stamp the content hash with the server's
 * validators and the media type. `known` (URL → stamp, from the index) makes the crawl
 * incremental: each known page is asked for with If-None-Match and If-Modified-Since, and a 304
 * lists it unchanged with nothing read; a 404 or 410 leaves it out (the run removes it, through
 * the delete guard); any other failure keeps it listed as it was.
 *
 * Polite as a search engine's crawler: robots.txt is read first (redirects followed; 4xx allows
 * everything, 5xx or no answer nothing) and a path it disallows is never requested; its
 * Crawl-delay, when longer than delayMs, spaces the requests; a 429 or 503 holds every request to
 * that host for its Retry-After (with backoff, capped, within the deadline); noindex pages are not
 * indexed and nofollow pages' links not followed; a page whose canonical page has the same text is
 * left out as its duplicate. Every page not indexed is in `skipped` with why. See CrawlRun for `run`.
 */
export async function crawlSite(o: WebOptions, known: ReadonlyMap<string, string>, run: CrawlRun = {}): Promise<WebSnapshot> {
  const { signal, dryRun = false, prepareHtml } = run;
  const start = normalizeUrl(o.url ?? o.sitemap ?? '');
  if (!start) throw new Error(`not an http(s) URL: ${o.url ?? o.sitemap}`);
  const origins = new Set([new URL(start).origin, ...o.allowOrigins.flatMap((a) => normalizeUrl(a) ?? []).map((a) => new URL(a).origin)]);
  const inScope = urlMatcher(o.include, o.exclude);
  const stats: CrawlStats = { requests: 0, bytes: 0, notModified: 0, fetched: 0, disallowed: 0, gone: 0, throttled: 0 };
  const skipped: SkippedPage[] = [];
  const pages = new Map<string, Page>();
  const robots = new Map<string, RobotsRules>();
  const deadlineAt = o.deadlineMs ? Date.now() + o.deadlineMs : Number.POSITIVE_INFINITY;
  let delay = o.delayMs;
  const gate = new RequestGate({ delayMs: () => delay, maxWaitMs: o.maxRetryAfterMs, deadlineAt, signal });

  /**
   * One request, spaced by the crawl delay and held while its host asked to be left alone; a 429
   * or 503 is asked again after the wait (a few times). A host stopped for the run answers an
   * error without a request.
   */
  const get = async (url: string, validators: { etag?: string; lastModified?: string } = {}, retries = MAX_RETRIES): Promise<Fetched> => {
    const host = new URL(url).host;
    for (let attempt = 0; ; attempt++) {
      if (!(await gate.acquire(host))) return { kind: 'error', reason: gate.stoppedWhy(host) ?? 'stopped' };
      stats.requests++;
      const f = await fetchOnce(url, { headers: o.headers, userAgent: o.userAgent, timeoutMs: o.timeoutMs, maxBytes: o.maxBytes, ...validators });
      if (f.kind === 'body') stats.bytes += f.wireBytes;
      if (f.kind !== 'status' || (f.status !== 429 && f.status !== 503)) {
        gate.answered(host);
        return f;
      }
      stats.throttled++;
      if (!gate.throttled(host, f.retryAfterMs, f.status)) return { kind: 'error', reason: gate.stoppedWhy(host)! };
      if (attempt >= retries) return f;
    }
  };

  /**
   * robots.txt as RFC 9309 reads it: redirects followed (five at most; its rules apply to the
   * origin asked for), 4xx (or more redirects) allows everything, 5xx, 429 or no answer allows
   * nothing this run. Matched by the product token (`ragsync`), not the whole User-Agent.
   */
  const robotsOf = async (origin: string): Promise<RobotsRules> => {
    let r = robots.get(origin);
    if (r) return r;
    const url = `${origin}/robots.txt`;
    let at = url;
    // Not asked again on a 429/503 (that host's wait still holds): robots.txt is unreachable this run.
    let f = await get(at, {}, 0);
    for (let hops = 0; f.kind === 'redirect' && hops < 5; hops++) {
      const next = f.location ? normalizeUrl(f.location, at) : null;
      if (!next) break;
      f = await get((at = next), {}, 0);
    }
    const failed = f.kind === 'error' ? f.reason : f.kind === 'too-large' ? `over maxBytes (${f.bytes} bytes)` : f.kind === 'status' && (f.status >= 500 || f.status === 429) ? `HTTP ${f.status}` : null;
    if (f.kind === 'body') r = parseRobots(url, f.body.toString('utf8'), o.robotsToken);
    else if (failed !== null) {
      r = DISALLOW_ALL;
      skipped.push({ url, reason: `robots.txt unreachable (${failed}): nothing crawled on ${origin} this run` });
    } else r = ALLOW_ALL;
    robots.set(origin, r);
    delay = Math.max(delay, r.delayMs);
    return r;
  };

  const disallowed = new Set<string>();
  /** Whether a URL may be requested at all: an allowed origin, a page not a file, in scope, allowed by robots.txt. */
  const mayRequest = async (url: string): Promise<boolean> => {
    const origin = new URL(url).origin;
    if (!origins.has(origin) || looksLikeFile(url) || !inScope(url)) return false;
    const rules = await robotsOf(origin);
    if (!rules.allowed(url)) {
      // An unreachable robots.txt is reported once, not with every page it keeps out.
      if (rules !== DISALLOW_ALL && !disallowed.has(url)) {
        disallowed.add(url);
        stats.disallowed++;
        skipped.push({ url, reason: 'disallowed by robots.txt', intended: true });
      }
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
  /** Pages the site asked not to index (noindex, a duplicate of its canonical): removed if indexed. */
  const dropped = new Set<string>();
  /** HTML pages fetched: the hash of their text, and the canonical URL each names (other than itself). */
  const textHashes = new Map<string, string>();
  const canonicalOf = new Map<string, string>();
  let budget = o.maxPages;
  const drop = (url: string, reason: string) => {
    dropped.add(url);
    pages.delete(url);
    skipped.push({ url, reason, intended: true });
  };

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
      const th = decodeStamp(kept)?.textHash;
      if (th) textHashes.set(answer.url, th);
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
    let text = decodePage(f.body, f.contentType, isHtml);
    stats.fetched++;
    let links: string[];
    let dom: Document | undefined;
    let textHash: string | undefined;
    let metaRobots: string[] = [];
    if (isHtml) {
      dom = parseHtml(text);
      const page = pageLinks(dom, answer.url, o.robotsToken);
      links = page.links;
      metaRobots = page.robots;
      textHash = sha256(pageText(dom));
      textHashes.set(answer.url, textHash);
      if (answer.url !== url) textHashes.set(url, textHash);
      // The canonical page is asked for too (if in scope), to tell whether this one duplicates it.
      if (page.canonical && page.canonical !== answer.url) {
        canonicalOf.set(answer.url, page.canonical);
        links.push(page.canonical);
      }
    } else {
      links = markdownLinks(text, answer.url);
      text = frontMatter(null, answer.url) + text + '\n';
    }
    const said = robotsDirectives(f.robotsTags, metaRobots, o.robotsToken);
    const nofollow = said.header.nofollow || said.meta.nofollow;
    // A nofollow page's canonical is still asked for: it says where the page's own text lives, not a link.
    if (nofollow) links = links.filter((l) => l === canonicalOf.get(answer.url));
    seen.add(answer.url);
    if (said.header.noindex || said.meta.noindex) {
      drop(answer.url, `noindex (${said.header.noindex ? 'X-Robots-Tag' : '<meta name="robots">'})`);
      return links;
    }
    // One document per page: a redirect's target already indexed adds nothing.
    if (answer.url !== url && pages.has(answer.url)) return links;
    const doc = Buffer.from(text);
    const mediaType = isHtml ? HTML : MARKDOWN_ONLY.test(f.contentType) ? MARKDOWN : PLAIN;
    const fresh = encodeStamp({ hash: sha256(doc), etag: f.etag, lastModified: f.lastModified, mediaType, textHash });
    // A page served again as it was indexed (a server without validators) is not read unless the
    // run asks for it (then it is fetched again, unconditionally): not converted until then.
    const prepared = dom && prepareHtml && (!conditional || known.get(answer.url) !== fresh) ? prepareHtml(dom, answer.url) : undefined;
    pages.set(answer.url, { bytes: doc, mediaType, prepared, stamp: fresh });
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
  for (const u of await sitemapPages(o.sitemap ? [normalizeUrl(o.sitemap)!] : rules.sitemaps.length ? rules.sitemaps : [`${origin}/sitemap.xml`], !!o.sitemap || rules.sitemaps.length > 0))
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

  /**
   * The pages of the sitemaps (sitemap indexes followed, MAX_SITEMAP_DEPTH deep, MAX_SITEMAPS in
   * all), read with an XML parser; a .xml.gz sitemap is gunzipped (whether the server says so with
   * Content-Encoding or serves the file as is), capped at maxBytes decoded. A sitemap that was
   * named (config, robots.txt, an index) and fails (other than missing: 404, 410) or is not a
   * sitemap is in `skipped`.
   */
  async function sitemapPages(roots: string[], named: boolean): Promise<string[]> {
    const out: string[] = [];
    const queue = roots.map((url) => ({ url, depth: 0, named }));
    for (let n = 0; queue.length && n < MAX_SITEMAPS; n++) {
      const { url, depth, named: wanted } = queue.shift()!;
      if (!origins.has(new URL(url).origin) || !(await robotsOf(new URL(url).origin)).allowed(url)) continue;
      const f = await get(url);
      const fail = (why: string) => wanted && skipped.push({ url, reason: `sitemap: ${why}` });
      if (f.kind !== 'body') {
        if (!(f.kind === 'status' && (f.status === 404 || f.status === 410))) fail(f.kind === 'status' ? `HTTP ${f.status}` : f.kind === 'error' ? f.reason : f.kind);
        continue;
      }
      let body = f.body;
      if (isGzip(body)) {
        try {
          body = gunzipCapped(body, o.maxBytes);
        } catch (err) {
          fail(`could not gunzip (${err instanceof Error ? err.message : String(err)})`);
          continue;
        }
      }
      const s = await readSitemap(body.toString('utf8'), url);
      if (s.error && !s.pages.length && !s.sitemaps.length) fail(`not a sitemap (${s.error})`);
      out.push(...s.pages);
      if (depth + 1 < MAX_SITEMAP_DEPTH) queue.push(...s.sitemaps.map((u) => ({ url: u, depth: depth + 1, named: true })));
    }
    return out;
  }

  async function llmsPages(at: string): Promise<string[]> {
    const url = `${at}/llms.txt`;
    if (!(await robotsOf(at)).allowed(url)) return [];
    const f = await get(url);
    return f.kind === 'body' && MARKDOWN_TYPES.test(f.contentType) ? markdownLinks(decodePage(f.body, f.contentType, false), url) : [];
  }

  let unvisited = 0;
  const runLevel = async (urls: string[], followLinks: boolean): Promise<string[]> => {
    const next: string[] = [];
    let i = 0;
    const worker = async () => {
      while (i < urls.length && budget > 0 && !signal?.aborted) {
        // Past the deadline the crawl stops where it is: what is not asked for keeps its indexed copy.
        if (Date.now() >= deadlineAt) {
          unvisited += urls.length - i;
          i = urls.length;
          break;
        }
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
  if (unvisited) skipped.push({ url: start, reason: `the crawl's deadline (deadlineMs ${o.deadlineMs}) passed: ${unvisited} pages not asked for this run` });
  // A canonical page that answered 304 with a stamp from before text hashes were kept is fetched
  // again in full, once, to tell.
  for (const canonical of new Set(canonicalOf.values())) {
    if (!textHashes.has(canonical) && pages.has(canonical) && !pages.get(canonical)!.bytes && !signal?.aborted && Date.now() < deadlineAt) await visit(canonical, false);
  }
  // A page whose canonical page has the same text is that page's duplicate; one whose text differs stays.
  for (const [url, canonical] of canonicalOf) {
    const mine = textHashes.get(url);
    if (mine && !dropped.has(url) && textHashes.get(canonical) === mine) drop(url, `duplicate of its canonical page ${canonical} (same text)`);
  }
  // Known pages the budget left unvisited keep their stored copy.
  for (const [url, stamp] of known) if (!pages.has(url) && !gone.has(url) && !dropped.has(url) && !visitedOrOut(url)) pages.set(url, { stamp, mediaType: mediaTypeOfStamp(stamp) });
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

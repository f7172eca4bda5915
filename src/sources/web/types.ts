/** A web source's settings, as the crawler takes them (config/schema.ts validates the JSON form). */
export interface WebOptions {
  /** Where the crawl starts (one of url and sitemap is required). */
  url?: string;
  /** A sitemap.xml to read pages from. */
  sitemap?: string;
  /** Pages fetched at most per run. */
  maxPages: number;
  /** Links followed from the start page at most this deep (sitemap and llms.txt pages are depth 0). */
  maxDepth: number;
  /** Globs on a URL's path and query ("/docs/**"); none: every page of the origin. */
  include: string[];
  exclude: string[];
  /** Pause between requests (robots.txt's Crawl-delay, when longer, wins). */
  delayMs: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** Per request: no complete response within this long is a failure (the page keeps what is indexed). */
  timeoutMs: number;
  /** Sent with every request (Authorization, cookies); never logged. */
  headers: Record<string, string>;
  /** CSS selector of the part of a page to index (default: main, article, [role=main], else body). */
  contentSelector?: string;
  /** CSS selectors removed before conversion, besides nav, header, footer, aside, script, style, form. */
  excludeSelectors: string[];
  /** Responses over this many bytes are skipped. */
  maxBytes: number;
  /** Redirects followed per request at most. */
  maxRedirects: number;
  /** Other origins whose pages may be crawled (default: the start URL's only). */
  allowOrigins: string[];
  /** The User-Agent header sent (`ragsync/VERSION`). */
  userAgent: string;
  /** The product token robots.txt groups (and `<meta name=…>`, X-Robots-Tag prefixes) are matched by. */
  robotsToken: string;
  /** A host that answers 429/503 asking for a longer wait than this is asked nothing more this run. */
  maxRetryAfterMs: number;
  /** The crawl stops asking for pages this long after it started (none: no limit). */
  deadlineMs?: number;
}

export const WEB_DEFAULTS: Omit<WebOptions, 'url' | 'sitemap'> = {
  maxPages: 1000,
  maxDepth: 5,
  include: [],
  exclude: [],
  delayMs: 0,
  concurrency: 4,
  timeoutMs: 15_000,
  headers: {},
  excludeSelectors: [],
  maxBytes: 5_000_000,
  maxRedirects: 5,
  allowOrigins: [],
  userAgent: 'ragsync',
  robotsToken: 'ragsync',
  maxRetryAfterMs: 300_000,
};

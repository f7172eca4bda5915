import type { SourceConfig } from '../../config/load.ts';
import { crawlSite, type CrawlRun, type WebSnapshot } from './crawl.ts';
import { WEB_DEFAULTS, type WebOptions } from './types.ts';

export type { WebSnapshot, SkippedPage, CrawlStats, CrawlPreview } from './crawl.ts';

/** A web source's crawl settings: its config fields over the defaults (maxFileBytes caps a page). */
export function webOptions(s: SourceConfig): WebOptions {
  const d = WEB_DEFAULTS;
  return {
    url: s.url,
    sitemap: s.sitemap,
    maxPages: s.maxPages ?? d.maxPages,
    maxDepth: s.maxDepth ?? d.maxDepth,
    include: s.include,
    exclude: s.exclude,
    delayMs: s.delayMs ?? d.delayMs,
    concurrency: s.concurrency ?? d.concurrency,
    timeoutMs: s.timeoutMs ?? d.timeoutMs,
    headers: s.headers ?? d.headers,
    contentSelector: s.contentSelector,
    excludeSelectors: s.excludeSelectors ?? d.excludeSelectors,
    maxBytes: s.maxFileBytes,
    maxRedirects: d.maxRedirects,
    allowOrigins: s.allowOrigins ?? d.allowOrigins,
    userAgent: d.userAgent,
  };
}

/** Crawls a web source; `known` is what the index holds of it (URL → stamp). */
export const webSnapshot = (s: SourceConfig, known: ReadonlyMap<string, string>, run: CrawlRun = {}): Promise<WebSnapshot> =>
  crawlSite(webOptions(s), known, run);

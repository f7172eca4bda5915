import type { SourceConfig } from '../../config/load.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../core/package-root.ts';
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
    userAgent: userAgent(),
    robotsToken: d.robotsToken,
    maxRetryAfterMs: s.maxRetryAfterMs ?? d.maxRetryAfterMs,
    deadlineMs: s.deadlineMs,
  };
}

let ua: string | undefined;
/**
 * `ragsync/VERSION (+HOMEPAGE)`, from package.json (the comment only when it names a homepage):
 * names the crawler and its version to site operators; robots.txt addresses it as `ragsync`.
 */
function userAgent(): string {
  if (ua) return ua;
  const pkg = JSON.parse(readFileSync(join(packageRoot(import.meta.url), 'package.json'), 'utf8')) as { version: string; homepage?: string };
  return (ua = `ragsync/${pkg.version}${pkg.homepage ? ` (+${pkg.homepage})` : ''}`);
}


/** Crawls a web source; `known` is what the index holds of it (URL → stamp). */
export const webSnapshot = (s: SourceConfig, known: ReadonlyMap<string, string>, run: CrawlRun = {}): Promise<WebSnapshot> =>
  crawlSite(webOptions(s), known, run);

import { createRequire } from 'node:module';

interface Robots {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
  getSitemaps(): string[];
}
type RobotsParser = (url: string, contents: string) => Robots;
// Required on first use: a run without a web source never reads a robots.txt.
let robotsParser: RobotsParser | undefined;

/** What robots.txt allows one user agent on one origin; a missing robots.txt allows everything. */
export interface RobotsRules {
  allowed(url: string): boolean;
  /** Crawl-delay in ms (0 when none). */
  delayMs: number;
  sitemaps: string[];
}

export function parseRobots(robotsUrl: string, text: string, userAgent: string): RobotsRules {
  robotsParser ??= createRequire(import.meta.url)('robots-parser') as RobotsParser;
  const r = robotsParser(robotsUrl, text);
  return {
    allowed: (url) => r.isAllowed(url, userAgent) !== false,
    delayMs: Math.max(0, (r.getCrawlDelay(userAgent) ?? 0) * 1000),
    sitemaps: r.getSitemaps(),
  };
}

export const ALLOW_ALL: RobotsRules = { allowed: () => true, delayMs: 0, sitemaps: [] };
/** A robots.txt that failed with 5xx (RFC 9309): crawl nothing this run. */
export const DISALLOW_ALL: RobotsRules = { allowed: () => false, delayMs: 0, sitemaps: [] };

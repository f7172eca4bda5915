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

/**
 * The rules of robots.txt for the crawler whose product token is `token` (its group, else `*`'s).
 * robotsUrl is the origin's own /robots.txt even when the file was reached by a redirect: its
 * rules apply to the origin asked for (RFC 9309 §2.3.1.2).
 */
export function parseRobots(robotsUrl: string, text: string, token: string): RobotsRules {
  robotsParser ??= createRequire(import.meta.url)('robots-parser') as RobotsParser;
  const r = robotsParser(robotsUrl, text);
  return {
    allowed: (url) => r.isAllowed(url, token) !== false,
    delayMs: Math.max(0, (r.getCrawlDelay(token) ?? 0) * 1000),
    sitemaps: r.getSitemaps(),
  };
}

export const ALLOW_ALL: RobotsRules = { allowed: () => true, delayMs: 0, sitemaps: [] };
/** A robots.txt that failed with 5xx or did not answer (RFC 9309): crawl nothing this run. */
export const DISALLOW_ALL: RobotsRules = { allowed: () => false, delayMs: 0, sitemaps: [] };

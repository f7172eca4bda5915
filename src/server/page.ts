import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { packageRoot } from '../core/package-root.ts';

/** The page's files (web/ in the package), by the path they are served at. */
const FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/assets/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/assets/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
};

const cache = new Map<string, Buffer>();

/** Nothing but the server itself: the page works offline and loads no third-party code. */
const HEADERS = {
  'content-security-policy': "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

/** A browser navigating (HTML first in Accept) rather than an API client asking for JSON. */
export const wantsHtml = (req: IncomingMessage): boolean => /^text\/html\b/i.test(req.headers.accept ?? '');

/**
 * Serves the page at / (and /status for a browser) and its assets; false when `pathname` is not
 * one of them. Static and public: the data it shows comes from the API, which checks the token.
 */
export function servePage(pathname: string, req: IncomingMessage, res: ServerResponse): boolean {
  const entry = FILES[pathname === '/status' && wantsHtml(req) ? '/' : pathname];
  if (!entry) return false;
  let body = cache.get(entry.file);
  if (!body) cache.set(entry.file, (body = readFileSync(join(packageRoot(import.meta.url), 'web', entry.file))));
  res.writeHead(200, { ...HEADERS, 'content-type': entry.type, 'content-length': body.length });
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}

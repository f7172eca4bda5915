import { createServer } from 'node:http';
import { listen } from '../../src/server/http.ts';

/** A small documentation site on 127.0.0.1: these HTML pages by path, 404 for any other. */
export const DOCS_PAGES: Record<string, string> = {
  '/docs/': '<html><head><title>Guide</title></head><body><main><h1>Guide</h1><p>Start with <a href="/docs/retry.html">retries</a>.</p></main></body></html>',
  '/docs/retry.html': '<html><head><title>Retries</title></head><body><main><h1>Retries</h1><p>Back off exponentially with jitter between attempts.</p></main></body></html>',
  '/other.html': '<html><head><title>Elsewhere</title></head><body><main><p>A page fetched, never stored: pelicans.</p></main></body></html>',
};

export async function startDocsSite(pages: Record<string, string> = DOCS_PAGES): Promise<{ url: string; close(): Promise<void> }> {
  const site = createServer((req, res) => {
    const page = pages[req.url ?? ''];
    if (!page) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  const url = await listen(site, 0);
  return { url, close: () => new Promise<void>((r) => site.close(() => r())) };
}

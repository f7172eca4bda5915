/**
 * A crawl of the loopback site rendered from every bookmark of bookmarks.bundle (≥ 1,300 pages,
 * monthly hubs, a sitemap, robots.txt: tests/helpers/website.ts), then its no-op re-crawl.
 *
 *   npx tsx bench/web.bench.ts
 *
 * Prints requests, bytes and seconds of each; the no-op re-crawl against the first crawl of the
 * same site in the same run (the baseline).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crawlSite } from '../src/sources/web/crawl.ts';
import { WEB_DEFAULTS } from '../src/sources/web/types.ts';
import { bookmarkPages, Website } from '../tests/helpers/website.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const corpora = process.env.RAGSYNC_CORPORA ?? join(root, '..', '..', 'shared', 'corpora');
const work = mkdtempSync(join(tmpdir(), 'ragsync-web-bench-'));
const site = new Website(bookmarkPages(join(corpora, 'bookmarks.bundle'), join(work, 'bm'), 1000), 100);
const base = await site.start();
const opts = { ...WEB_DEFAULTS, url: `${base}/`, maxPages: 5000, maxDepth: 3, timeoutMs: 5000, concurrency: 8 };
try {
  let t = performance.now();
  const first = await crawlSite(opts, new Map());
  const firstS = (performance.now() - t) / 1000;
  console.log(`site: ${site.pages.length} bookmark pages (+ hubs and edge pages)`);
  console.log(`first crawl: ${first.files.length} pages, ${first.stats.requests} requests, ${(first.stats.bytes / 1e6).toFixed(1)} MB, ${firstS.toFixed(2)} s (${(first.files.length / firstS).toFixed(0)} pages/s)`);
  const known = new Map(first.files.map((f) => [f.path, f.stamp]));
  t = performance.now();
  const again = await crawlSite(opts, known);
  const againS = (performance.now() - t) / 1000;
  const changed = again.files.filter((f) => known.get(f.path) !== f.stamp).length;
  console.log(
    `no-op re-crawl: ${again.files.length} pages, ${again.stats.requests} requests (${again.stats.notModified} answered 304), ` +
      `${(again.stats.bytes / 1e3).toFixed(1)} kB, ${againS.toFixed(2)} s; ${changed} pages changed; ` +
      `${(againS / firstS).toFixed(2)}× the first crawl's time, ${((again.stats.bytes / first.stats.bytes) * 100).toFixed(2)} % of its bytes`,
  );
} finally {
  await site.stop();
  rmSync(work, { recursive: true, force: true });
}

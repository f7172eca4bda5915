/**
 * A web source indexed from the loopback site of tests/helpers/website.ts, rendered at run time
 * from every bookmark of bookmarks.bundle (monthly hubs) and every book of classics.bundle under
 * /classics/ (a contents page per book, a page per section): ≥ 1,300 pages. Two `ragsync index`
 * runs through the library (hash embedder): the full crawl, then the no-op re-crawl.
 *
 *   npx tsx bench/web.bench.ts
 *
 * Prints pages, requests, bytes, 304s, texts embedded, wall and CPU seconds of each run, and the
 * HTML parses made (domino's createDocument, counted and its CPU timed where every caller loads
 * it); the no-op re-crawl against the full crawl of the same site in the same run (the baseline).
 * CPU time is the process's, the loopback server's included.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { parseConfig } from '../src/builtin.ts';

import { bookmarkPages, classicBooks, Website } from '../tests/helpers/website.ts';
import { runIndex } from '../src/engine/library.ts';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const corpora = process.env.RAGSYNC_CORPORA ?? join(root, '..', '..', 'shared', 'corpora');
const work = mkdtempSync(join(tmpdir(), 'ragsync-web-bench-'));
const books = classicBooks(join(corpora, 'classics.bundle'), join(work, 'cl'));
const site = new Website(bookmarkPages(join(corpora, 'bookmarks.bundle'), join(work, 'bm'), 1000), 100, books);
const base = await site.start();
const config = parseConfig({
  db: join(work, 'index.db'),
  embedder: { provider: 'hash', dims: 256 },
  sources: [{ name: 'site', kind: 'web', url: `${base}/`, maxPages: 5000, maxDepth: 3, timeoutMs: 5000, concurrency: 8, maxFileBytes: 500_000 }],
});

// The parser every HTML page goes through: each call counted and its CPU time summed (a parse is
// synchronous: the process's CPU while it runs, not the wall time a loaded machine stretches).
const domino = createRequire(import.meta.url)('@mixmark-io/domino') as { createDocument: (html: string, force?: boolean) => unknown };
const parse = domino.createDocument;
const parsing = { calls: 0, us: 0 };
domino.createDocument = (html, force) => {
  const c0 = process.cpuUsage();
  try {
    return parse.call(domino, html, force);
  } finally {
    const c = process.cpuUsage(c0);
    parsing.calls++;
    parsing.us += c.user + c.system;
  }
};

interface Figures {
  parses: number;
  parseSeconds: number;
  wall: number;
  cpu: number;
  requests: number;
  pageRequests: number;
  notModified: number;
  bytes: number;
  texts: number;
  pages: number;
  status: string;
}

async function run(): Promise<Figures> {
  const mark = site.requests.length;
  const parsed0 = { ...parsing };
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await runIndex(config);
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const reqs = site.since(mark);
  const db = new BetterSqlite3(config.db, { readonly: true });
  const pages = (db.prepare('SELECT count(*) AS n FROM documents').get() as { n: number }).n;
  db.close();
  return {
    parses: parsing.calls - parsed0.calls,
    parseSeconds: (parsing.us - parsed0.us) / 1e6,
    wall,
    cpu: (cpu.user + cpu.system) / 1e6,
    requests: reqs.length,
    pageRequests: reqs.filter((q) => !['/robots.txt', '/sitemap.xml', '/llms.txt'].includes(q.path)).length,
    notModified: reqs.filter((q) => q.status === 304).length,
    bytes: reqs.reduce((n, q) => n + q.bytes, 0),
    texts: r.textsEmbedded,
    pages,
    status: r.status,
  };
}

const line = (what: string, f: Figures) =>
  `${what}: ${f.status}, ${f.pages} pages indexed, ${f.requests} requests (${f.pageRequests} for pages, ${f.notModified} answered 304), ` +
  `${(f.bytes / 1e6).toFixed(2)} MB, ${f.texts} texts embedded, ${f.wall.toFixed(2)} s wall, ${f.cpu.toFixed(2)} s CPU, ` +
  `${f.parses} HTML parses (${f.parseSeconds.toFixed(2)} s CPU)`;

try {
  const sections = books.reduce((n, b) => n + b.sections.length, 0);
  console.log(`site: ${site.pages.length} bookmark pages, ${books.length} classics books with ${sections} section pages (+ hubs, contents and edge pages)`);
  const first = await run();
  console.log(line('full crawl + index', first));
  const again = await run();
  console.log(line('no-op re-crawl', again));
  console.log(
    `no-op vs full: ${(again.wall / first.wall).toFixed(3)}× wall, ${(again.cpu / first.cpu).toFixed(3)}× CPU, ` +
      `${((again.bytes / first.bytes) * 100).toFixed(3)} % of the bytes, ${again.texts} texts embedded`,
  );
} finally {
  await site.stop();
  rmSync(work, { recursive: true, force: true });
}

/**
 * The web page's first load in a real browser (chromium-headless-shell through playwright-core):
 * bytes transferred and the time from navigation to rendered results for `/?q=…&source=…`, in a
 * fresh browser context each time (nothing cached). The baseline, measured in the same run on the
 * same server, is the POST /search the page makes, timed on its own from the same page.
 *
 *   npx tsx bench/page.bench.ts -c CONFIG [--runs 20] [--browser /usr/bin/chromium-headless-shell] FILE.jsonl [FILE.jsonl ...]
 */
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { loadConfig } from '../src/builtin.ts';
import { readEvalFile } from '../src/search/eval.ts';
import { Searcher } from '../src/search/search.ts';
import { createHttpServer, listen } from '../src/server/http.ts';
import { takeOption } from './serve-process.ts';
import { openSearcher } from '../src/engine/library.ts';

const args = process.argv.slice(2);
const configFile = resolve(takeOption(args, '-c', ''));
const runs = Number(takeOption(args, '--runs', '20'));
const executablePath = takeOption(args, '--browser', '/usr/bin/chromium-headless-shell');
if (!configFile || !args.length) throw new Error('usage: page.bench.ts -c CONFIG [--runs N] FILE.jsonl ...');
const cases = args.flatMap((f) => readEvalFile(f));

const searcher = openSearcher(loadConfig(configFile));
const server = createHttpServer(searcher);
const base = await listen(server, 0);
const browser = await chromium.launch({
  executablePath,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const toResults: number[] = [];
const apiAlone: number[] = [];
const bytes: number[] = [];
for (let i = 0; i < runs + 2; i++) {
  const c = cases[i % cases.length]!;
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const t0 = Date.now();
  await page.goto(`${base}/?${new URLSearchParams({ q: c.query, ...(c.source ? { source: c.source } : {}) })}`);
  await page.locator('#results > li').first().waitFor({ timeout: 30_000 });
  const shown = Date.now() - t0;
  // What came over the wire for the page itself (document, script, style) and its API calls.
  const transferred = await page.evaluate(() =>
    [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')].reduce((n, e) => n + ((e as PerformanceResourceTiming).encodedBodySize || 0), 0),
  );
  const api = await page.evaluate(async ({ q, source }) => {
    const t = performance.now();
    await (await fetch('/search', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: q, k: 10, ...(source ? { sources: [source] } : {}) }) })).json();
    return performance.now() - t;
  }, { q: c.query, source: c.source });
  await ctx.close();
  if (i < 2) continue; // warm-up: the server's vectors and the browser's start
  toResults.push(shown);
  apiAlone.push(api);
  bytes.push(transferred);
}
console.log(`${runs} first loads, load average ${loadavg()[0]!.toFixed(1)}`);
console.log(`bytes over the wire (page + its API calls), p50: ${p50(bytes)}`);
console.log(`navigation → first result rendered, p50: ${p50(toResults).toFixed(0)} ms`);
console.log(`POST /search from the page alone (baseline), p50: ${p50(apiAlone).toFixed(1)} ms`);
console.log(`first load / search alone, p50: ${(p50(toResults) / p50(apiAlone)).toFixed(1)}×`);
await browser.close();
server.closeAllConnections();
server.close();
await searcher.close();

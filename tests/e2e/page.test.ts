/**
 * The web page in a real browser: Debian's chromium-headless-shell driven by playwright-core. CI
 * installs it (.ci/run); elsewhere the suite skips without it, and fails under CI=true. Screenshots
 * land in test-artifacts/page/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { chromium, type Browser, type Page } from 'playwright-core';
import { loadConfig } from '../../src/builtin.ts';
import { Answerer } from '../../src/answer/answer.ts';
import { chatSchema } from '../../src/config/schema.ts';
import { Searcher } from '../../src/search/search.ts';
import { SqliteIndex } from '../../src/storage/sqlite/index.ts';
import { createHttpServer, listen } from '../../src/server/http.ts';
import { makeFixture, type Fixture } from '../helpers/search-fixture.ts';
import { ModelServer, chatJson, chatStream } from '../helpers/model-server.ts';
import { REPO_ROOT } from '../helpers/tmp.ts';
import { openSearcher } from '../../src/engine/library.ts';

const BROWSER = process.env.RAGSYNC_BROWSER ?? '/usr/bin/chromium-headless-shell';
const present = existsSync(BROWSER);
if (!present && process.env.CI) throw new Error(`${BROWSER} is missing: apt-get install chromium-headless-shell (.ci/run does)`);
const ARTIFACTS = join(REPO_ROOT, 'test-artifacts', 'page');
const TOKEN = 'page-token';

let fx: Fixture;
let m: ModelServer;
let server: Server;
let searcher: Searcher;
let base: string;
let browser: Browser;

beforeAll(async () => {
  if (!present) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  fx = await makeFixture();
  // Three runs for the chart.
  const store = new SqliteIndex(fx.db);
  for (const texts of [40, 3, 0]) {
    const id = await store.startRun({ trigger: 'schedule', fingerprint: 'hash:256', forced: false });
    await store.finishRun(id, { status: 'ok', textsEmbedded: texts, requests: 1, tokens: texts * 10, error: null, sources: [] });
  }
  await store.close();
  m = await ModelServer.start();
  // The rewrite calls hello small talk; everything else is a question for the library.
  m.behave = (c, res) => {
    const prompt = JSON.stringify(c.body.messages);
    if (!c.body.stream) return chatJson(res, JSON.stringify({ isRelevant: !/hello/.test(prompt), query: '伤官配印' }));
    return chatStream(res, /Passages:/.test(prompt) ? ['伤官配印，', '贵不可言 [1]'] : ['Hi!'], { delayMs: 30 });
  };
  searcher = openSearcher(loadConfig(fx.configFile));
  const chat = chatSchema.parse({ provider: 'openai-compatible', baseUrl: m.url, model: 'fake', maxRetries: 0 });
  server = createHttpServer(searcher, { token: TOKEN, chat: new Answerer(searcher, chat) });
  base = await listen(server, 0);
  browser = await chromium.launch({
    executablePath: BROWSER,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  if (server) await new Promise((r) => server.close(r));
  await searcher?.close();
  await m?.close();
  fx?.cleanup();
});

/** A fresh tab (empty profile, so no token kept) in the given language; the token asked once. */
async function openPage(path: string, locale = 'en-US'): Promise<Page> {
  const ctx = await browser.newContext({ locale, viewport: { width: 1000, height: 800 } });
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (msg) => msg.type() === 'error' && !/401/.test(msg.text()) && errors.push(msg.text()));
  (page as Page & { errors: string[] }).errors = errors;
  await page.goto(base + path);
  await page.getByLabel(/Bearer token|访问令牌/).fill(TOKEN);
  await page.getByRole('button', { name: /Use for this tab|在此标签页使用/ }).click();
  await expect.poll(() => page.locator('#token-form').isVisible()).toBe(false);
  return page;
}

describe.skipIf(!present)('the web page', () => {
  it('/?q=&source= opens with highlighted results, scores and related links', async () => {
    const page = await openPage(`/?q=${encodeURIComponent('伤官配印')}&source=classics`);
    const first = page.locator('#results > li').first();
    await expect.poll(() => first.locator('h3').textContent(), { timeout: 10_000 }).toMatch(/子平真诠|三命通会/);
    expect(await page.locator('#results mark').first().textContent()).toMatch(/伤官|官配|配印/);
    expect(await first.locator('.meta').textContent()).toMatch(/score 0\.\d{4}/);
    expect(await page.locator('#source').inputValue()).toBe('classics');
    await first.getByRole('link', { name: 'related' }).click();
    await expect.poll(() => first.locator('.related li').count()).toBeGreaterThan(0);
    // Keyboard: a new query typed and submitted with Enter updates the linkable URL.
    await page.locator('#q').fill('SQLite WAL');
    await page.locator('#source').selectOption('');
    await page.locator('#q').press('Enter');
    await expect.poll(() => page.url()).toContain('q=SQLite+WAL');
    await expect.poll(() => page.locator('#results h3').first().textContent()).toBe('SQLite Is Enough');
    // Snippets are Markdown built as nodes: emphasis, code and http links render; HTML stays text.
    const html = await page.evaluate(() => {
      const d = document.createElement('div');
      d.append((window as unknown as { markdown: (t: string) => Node }).markdown('**b** *i* `c` <img src=x onerror=alert(1)> [l](https://e.x/) [j](javascript:alert(1))'));
      return d.innerHTML;
    });
    expect(html).toBe('<strong>b</strong> <em>i</em> <code>c</code> &lt;img src=x onerror=alert(1)&gt; <a href="https://e.x/" rel="noopener">l</a> [j](javascript:alert(1))');
    await page.screenshot({ path: join(ARTIFACTS, 'search.png'), fullPage: true });
    expect((page as Page & { errors: string[] }).errors).toEqual([]);
  });

  it('chat streams the answer with a card per source; 暂无参考资料 in Chinese when none', async () => {
    const page = await openPage('/#chat', 'zh-CN');
    await page.getByLabel('消息').fill('伤官配印是什么意思');
    await page.getByRole('button', { name: '发送' }).click();
    const turn = page.locator('.assistant-turn').last();
    await expect.poll(() => turn.locator('.answer').textContent(), { timeout: 10_000 }).toBe('伤官配印，贵不可言 [1]');
    expect(await turn.locator('.card').count()).toBeGreaterThan(0);
    expect(await turn.locator('.card').first().textContent()).toContain('[1]');
    // The answer comes first, inside the first screen; the cards follow it.
    const answerBox = (await turn.locator('.answer').boundingBox())!;
    const cardBox = (await turn.locator('.card').first().boundingBox())!;
    expect(answerBox.y + answerBox.height).toBeLessThanOrEqual(cardBox.y);
    expect(answerBox.y + answerBox.height).toBeLessThanOrEqual(800);
    // [1] is a link to its card, which says where the passage is.
    const cite = turn.locator('.answer a.cite');
    expect(await cite.textContent()).toBe('[1]');
    const target = (await cite.getAttribute('href'))!.slice(1);
    expect(await turn.locator('.card').first().getAttribute('id')).toBe(target);
    await cite.click();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe(`#${target}`);
    expect(await turn.locator('.card').first().locator('.title').textContent()).toMatch(/\S/);
    expect(await turn.locator('.card').first().locator('.meta').textContent()).toMatch(/classics:|bookmarks:/);
    // The same question through search ranks the passages in the chat's order.
    const ids = await turn.locator('.card').evaluateAll((cards) => cards.map((c) => c.querySelector('.meta')!.textContent));
    const searched = await page.evaluate(async (k) => {
      const res = await fetch('/search', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${sessionStorage.getItem('ragsync-token')}` },
        body: JSON.stringify({ query: '伤官配印', k }),
      });
      return ((await res.json()) as { results: { source: string; path: string }[] }).results.map((r) => `${r.source}:${r.path}`);
    }, 10); // what the page's search asks for
    expect(ids.map((m) => m!.replace(/^.*· /, ''))).toEqual(searched.slice(0, ids.length));
    await page.getByLabel('消息').fill('hello');
    await page.getByLabel('消息').press('Enter');
    await expect.poll(() => page.locator('.assistant-turn').last().locator('.answer').textContent()).toBe('Hi!');
    expect(await page.locator('.assistant-turn').last().locator('.none').textContent()).toBe('暂无参考资料');
    await page.screenshot({ path: join(ARTIFACTS, 'chat.png'), fullPage: true });
    expect((page as Page & { errors: string[] }).errors).toEqual([]);
  });

  it('/status shows the sources, the health in words and a chart of the runs', async () => {
    const page = await openPage('/status');
    await expect.poll(() => page.locator('#sources-table tbody tr').count(), { timeout: 10_000 }).toBe(2);
    expect(await page.locator('#sources-table tbody').textContent()).toContain('classics');
    // Names unbroken: each source name on one line (its cell as tall as one line of text).
    const name = page.locator('#sources-table tbody th').first();
    expect(await name.evaluate((e) => getComputedStyle(e).whiteSpace)).toBe('nowrap');
    // Times in the reader's terms: a local date and an age, the ISO form only on hover.
    const time = page.locator('#health time');
    expect(await time.textContent()).toMatch(/ago|now/);
    expect(await time.getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await page.locator('#runs-chart svg rect.bar').count()).toBe(3);
    // The chart's axes are labelled: texts embedded on one side, duration on the other, runs below.
    const labels = await page.locator('#runs-chart svg .axis-title').allTextContents();
    expect(labels).toEqual(['texts embedded', 'duration (s)', 'run #']);
    expect(await page.locator('#runs-chart svg .tick').count()).toBeGreaterThanOrEqual(6);
    expect(await page.locator('#health').textContent()).toMatch(/^healthy · last run: ok · #\d+ · /);
    await page.screenshot({ path: join(ARTIFACTS, 'status.png'), fullPage: true });
    // In Chinese, the health line and the chart speak Chinese too.
    const zhPage = await openPage('/status', 'zh-CN');
    await expect.poll(() => zhPage.locator('#health').textContent(), { timeout: 10_000 }).toMatch(/^健康 · 上次运行：成功 · #\d+ · /);
    expect(await zhPage.locator('#runs-chart svg .axis-title').allTextContents()).toEqual(['嵌入文本', '耗时（秒）', '运行 #']);
    await zhPage.screenshot({ path: join(ARTIFACTS, 'status-zh.png'), fullPage: true });
    // An API client still gets JSON from /status.
    const api = await fetch(`${base}/status`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(api.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect((page as Page & { errors: string[] }).errors).toEqual([]);
  });
});

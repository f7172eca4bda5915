// A real `ragsync serve` (no token: the default) in a real Chromium: its own page searches and
// chats, while a page on another site — by DNS rebinding (a name resolved to 127.0.0.1), a
// cross-site fetch or a form post — reads nothing and never makes the model answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { chromium, type Browser, type Page } from 'playwright-core';
import { listen } from '../../src/server/http.ts';
import { makeFixture, type Fixture } from '../helpers/search-fixture.ts';
import { ModelServer, chatJson, chatStream } from '../helpers/model-server.ts';
import { startServe, type Served } from '../helpers/serve.ts';

const BROWSER = process.env.RAGSYNC_BROWSER ?? '/usr/bin/chromium-headless-shell';
const present = existsSync(BROWSER);
if (!present && process.env.CI) throw new Error(`${BROWSER} is missing: apt-get install chromium-headless-shell (.ci/run does)`);

let fx: Fixture;
let m: ModelServer;
let srv: Served;
let port: number;
let attacker: Server;
let attackerPort: number;
let browser: Browser;

/** The attacker's page: it only needs an origin of its own. */
const ATTACK_PAGE = '<!doctype html><title>cats</title><p>cute cats</p>';

beforeAll(async () => {
  if (!present) return;
  fx = await makeFixture();
  m = await ModelServer.start();
  m.behave = (c, res) => (c.body?.stream ? chatStream(res, ['伤官配印，', '贵不可言 [1]']) : chatJson(res, JSON.stringify({ isRelevant: true, query: '伤官配印' })));
  const cfg = JSON.parse(readFileSync(fx.configFile, 'utf8'));
  cfg.chat = { provider: 'openai-compatible', baseUrl: m.url, model: 'fake', maxRetries: 0 };
  writeFileSync(fx.configFile, JSON.stringify(cfg));
  srv = await startServe(fx.configFile, { RAGSYNC_HTTP_TOKEN: '' });
  port = Number(new URL(srv.url).port);
  attacker = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(ATTACK_PAGE));
  attackerPort = Number(new URL(await listen(attacker, 0)).port);
  browser = await chromium.launch({
    executablePath: BROWSER,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
      // The attacker's names resolve to this machine, as a rebinding DNS server would make them.
      '--host-resolver-rules=MAP rebind.attacker.example 127.0.0.1, MAP attacker.example 127.0.0.1',
    ],
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await srv?.stop();
  if (attacker) await new Promise((r) => attacker.close(r));
  await m?.close();
  fx?.cleanup();
});

/** A fresh tab, with every response from the ragsync server recorded (status by path). */
async function tab(): Promise<{ page: Page; seen: { path: string; status: number }[] }> {
  const page = await (await browser.newContext({ locale: 'en-US' })).newPage();
  const seen: { path: string; status: number }[] = [];
  page.on('response', (r) => {
    const u = new URL(r.url());
    if (Number(u.port) === port) seen.push({ path: u.pathname, status: r.status() });
  });
  return { page, seen };
}
const CHAT = JSON.stringify({ messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: '伤官配印?' }] }] });

describe.skipIf(!present)('the page and other sites, in Chromium', () => {
  it('its own page searches and chats', async () => {
    const { page } = await tab();
    await page.goto(`${srv.url}/?q=${encodeURIComponent('伤官配印')}&source=classics`);
    await expect.poll(() => page.locator('#results > li h3').first().textContent(), { timeout: 15_000 }).toMatch(/子平真诠|三命通会/);
    await page.goto(`${srv.url}/#chat`);
    await page.getByLabel('Message').fill('伤官配印是什么意思');
    await page.getByLabel('Message').press('Enter');
    await expect.poll(() => page.locator('.assistant-turn').last().locator('.answer').textContent(), { timeout: 15_000 }).toBe('伤官配印，贵不可言 [1]');
    // The same page opened as http://localhost:PORT works too.
    await page.goto(`http://localhost:${port}/?q=SQLite`);
    await expect.poll(() => page.locator('#results h3').first().textContent(), { timeout: 15_000 }).toBe('SQLite Is Enough');
  });

  it('a rebinding name gets 421 for the page and for every API call it makes', async () => {
    const { page } = await tab();
    const res = await page.goto(`http://rebind.attacker.example:${port}/`);
    expect(res!.status()).toBe(421);
    const statuses = await page.evaluate(async (chat) => {
      const search = await fetch('/search?q=%E4%BC%A4%E5%AE%98');
      const status = await fetch('/status');
      const post = await fetch('/api/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: chat });
      return [search.status, status.status, post.status, (await search.json()).results ?? null];
    }, CHAT);
    expect(statuses).toEqual([421, 421, 421, null]);
  });

  it('a page on another site: its fetches and a form post are refused before the index is read or the model called', async () => {
    const before = m.calls.length;
    const { page, seen } = await tab();
    await page.goto(`http://attacker.example:${attackerPort}/`);
    await page.evaluate(
      async ({ base, chat }) => {
        // "Simple" requests: no preflight, so the server must refuse them itself.
        await fetch(`${base}/api/chat`, { method: 'POST', mode: 'no-cors', body: chat }).catch(() => null);
        await fetch(`${base}/api/chat`, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain;charset=utf-8' }, body: chat }).catch(() => null);
        await fetch(`${base}/search?q=x`, { mode: 'no-cors' }).catch(() => null);
        await fetch(`${base}/search`, { method: 'POST', mode: 'no-cors', body: '{"query":"x"}' }).catch(() => null);
      },
      { base: srv.url, chat: CHAT },
    );
    await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(4);
    expect(seen.map((s) => s.status)).toEqual([403, 403, 403, 403]);
    // A form posting a JSON-looking body as text/plain, submitted by the attacker's page.
    await page.setContent(
      `<form method="post" enctype="text/plain" action="${srv.url}/api/chat"><input name='{"messages":[],"x":"' value='"}'></form>`,
    );
    const [nav] = await Promise.all([page.waitForResponse((r) => r.url().includes('/api/chat')), page.evaluate(() => document.forms[0]!.submit())]);
    expect(nav.status()).toBe(403);
    expect(m.calls.length).toBe(before);
  });
});

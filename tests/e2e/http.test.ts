import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import { loadConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import { Searcher } from '../../src/search/search.ts';
import { createHttpServer, listen } from '../../src/server/http.ts';
import { healthReport, storeHealth } from '../../src/daemon/health.ts';
import { healthIntervalMs } from '../../src/daemon/schedule.ts';
import { SqliteIndex } from '../../src/storage/sqlite/index.ts';
import { makeFixture, type Fixture } from '../helpers/search-fixture.ts';
import { startServe } from '../helpers/serve.ts';
import { openSearcher } from '../../src/engine/library.ts';

let fx: Fixture;
let searcher: Searcher;
let server: Server;
let base: string;

beforeAll(async () => {
  fx = await makeFixture();
  searcher = openSearcher(loadConfig(fx.configFile));
  server = createHttpServer(searcher, { token: 's3cret' });
  base = await listen(server, 0);
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await searcher.close();
  fx.cleanup();
});

const auth = { authorization: 'Bearer s3cret' };
const get = async (path: string, headers: Record<string, string> = auth) => {
  const res = await fetch(base + path, { headers });
  return { status: res.status, body: (await res.json()) as any };
};

describe('HTTP API', () => {
  it('binds to 127.0.0.1', () => {
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('/search answers {results} with the library fields', async () => {
    const r = await get(`/search?q=${encodeURIComponent('甲木寅月用神')}&book=qiongtong&k=2&mode=hybrid`);
    expect(r.status).toBe(200);
    expect(r.body.results[0]).toMatchObject({ source: 'classics', path: 'qiongtong/jiamu.md', book: '穷通宝鉴' });
    expect(r.body.results.length).toBeLessThanOrEqual(2);
    expect(JSON.stringify(r.body)).not.toMatch(/embedding|vector"/);
  });

  it('perDoc caps the results of one document ahead of the others', async () => {
    const paths = async (q: string) => (await get(q)).body.results.map((x: any) => x.path) as string[];
    const three = await paths(`/search?q=${encodeURIComponent('甲木')}&source=classics&k=3&perDoc=1`);
    expect(new Set(three).size).toBe(3);
    // One document is all the filter leaves: its chunks still fill the places.
    expect(await paths(`/search?q=${encodeURIComponent('甲木')}&book=qiongtong&perDoc=1`)).toEqual(['qiongtong/jiamu.md', 'qiongtong/jiamu.md']);
  });

  it('format=sourceItem gives the chat app shape', async () => {
    const r = await get(`/search?q=SQLite&source=bookmarks&format=sourceItem&k=1`);
    expect(r.status).toBe(200);
    const item = r.body.results[0];
    expect(Object.keys(item).sort()).toEqual(['id', 'metadata', 'score', 'title', 'transcript', 'url']);
    expect(item).toMatchObject({ title: 'SQLite Is Enough', url: 'https://example.com/sqlite' });
    expect(Array.from(item.transcript as string).length).toBeLessThanOrEqual(200);
  });

  it('/related takes path as search prints it (source:path:lines); a miss suggests the closest', async () => {
    const r = await get(`/related?path=${encodeURIComponent('bookmarks:202401/2024-01-05-sqlite.md:1-9')}&k=2`);
    expect(r.status).toBe(200);
    expect(r.body.results.length).toBe(2);
    const miss = await get(`/related?path=${encodeURIComponent('bookmarks:202401/2024-01-05-sqlit.md')}`);
    expect(miss.status).toBe(400);
    expect(JSON.stringify(miss.body)).toContain('did you mean bookmarks:202401/2024-01-05-sqlite.md?');
  });

  it('/related excludes the document itself', async () => {
    const r = await get(`/related?source=bookmarks&path=${encodeURIComponent('202401/2024-01-05-sqlite.md')}&k=2`);
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: any) => x.path)).not.toContain('202401/2024-01-05-sqlite.md');
    expect(r.body.results.length).toBe(2);
  });

  it('invalid parameters → 400 with a message; caps on k and q', async () => {
    const cases: [string, RegExp][] = [
      ['/search', /q is required/],
      ['/search?q=x&k=101', /k must be an integer from 1 to 100/],
      ['/search?q=x&k=abc', /k must be/],
      [`/search?q=${'x'.repeat(1001)}`, /longer than 1000/],
      ['/search?q=x&mode=fuzzy', /mode must be/],
      ['/search?q=x&book=No%21', /book must be one of .*qiongtong/],
      ['/search?q=x&tag=nosuchtag', /^tag "nosuchtag" is not a known value and no indexed chunk has it \(known: database\|distributed\|search\|sqlite\)$/],
      ['/search?q=x&month=1999-01', /^month "1999-01" is not a known value and no indexed chunk has it \(known: 2024-01\|2024-03\)$/],
      ['/search?q=x&source=nope', /unknown source "nope"/],
      ['/search?q=x&color=red', /unknown parameter "color"/],
      ['/search?q=x&format=xml', /format must be/],
      ['/search?q=x&weights=1', /weights must be/],
      ['/search?q=x&perDoc=-1', /perDoc must be ≥ 0/],
      ['/related?source=bookmarks', /path or id is required/],
      ['/related?source=bookmarks&path=missing.md', /not in the index/],
    ];
    for (const [path, msg] of cases) {
      const r = await get(path);
      expect(r.status, path).toBe(400);
      expect(r.body.error, path).toMatch(msg);
    }
  });

  it('bearer token: 401 without it, /healthz open; /status and 404', async () => {
    expect((await get('/search?q=x', {})).status).toBe(401);
    expect((await get('/search?q=x', { authorization: 'Bearer wrong' })).status).toBe(401);
    const h = await get('/healthz', {});
    expect(h).toMatchObject({ status: 200, body: { ok: true, lastRun: null } });
    const s = await get('/status');
    expect(s.status).toBe(200);
    expect(s.body.sources.map((x: any) => x.name).sort()).toEqual(['bookmarks', 'classics']);
    expect((await get('/nope')).status).toBe(404);
    const post = await fetch(base + '/related?id=x', { method: 'POST', headers: auth });
    expect(post.status).toBe(405);
  });
});

describe('ragsync serve (CLI)', () => {
  it('listens on an ephemeral port, requires the env token, stops on SIGTERM', async () => {
    const served = await startServe(fx.configFile, { RAGSYNC_HTTP_TOKEN: 'tok-123' });
    const { url } = served;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${url}/search?q=SQLite`)).status).toBe(401);
    const ok = await fetch(`${url}/search?q=SQLite&k=1`, { headers: { authorization: 'Bearer tok-123' } });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as any).results).toHaveLength(1);
    expect(served.stderr()).not.toContain('tok-123');
    // /healthz: the run-history rules, no token needed; this index never ran a sync.
    const h = await fetch(`${url}/healthz`);
    expect(h.status).toBe(503);
    expect(await h.json()).toMatchObject({ ok: false, status: 'stale', lastRun: null });
    expect(await served.stop()).toBe(0);
  });
});

describe('/healthz with the schedule health', () => {
  it('answers 503 once the last runs failed', async () => {
    const own = await makeFixture();
    const cfg = loadConfig(own.configFile);
    const writer = new SqliteIndex(own.db);
    for (let i = 0; i < 2; i++) {
      const id = await writer.startRun({ trigger: 'cron', fingerprint: 'f', forced: false });
      await writer.finishRun(id, { status: 'failed', textsEmbedded: 0, requests: 0, tokens: 0, error: 'boom', sources: [] });
    }
    await writer.close();
    const s = openSearcher(cfg);
    const intervalMs = healthIntervalMs(cfg);
    const srv = createHttpServer(s, { health: async () => healthReport(await storeHealth(s.store, { intervalMs })) });
    const url = await listen(srv, 0);
    const res = await fetch(`${url}/healthz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ ok: false, status: 'failing', consecutiveFailures: 2 });
    await new Promise((r) => srv.close(r));
    await s.close();
    own.cleanup();
  });
});

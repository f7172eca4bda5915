// A real `ragsync serve` process as a web page on another site would reach it: a rebinding Host,
// a cross-site Origin or Sec-Fetch-Site, a preflight-free ("simple") POST, and a bind beyond the
// loopback without a token are each refused before the index is read or the model is called.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { connect } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { makeFixture, type Fixture } from '../helpers/search-fixture.ts';
import { ModelServer, chatJson, chatStream } from '../helpers/model-server.ts';
import { startServe, type Served } from '../helpers/serve.ts';
import { runCli } from '../helpers/cli.ts';

let fx: Fixture;
let m: ModelServer;
let srv: Served;
let port: number;

beforeAll(async () => {
  fx = await makeFixture();
  m = await ModelServer.start();
  m.behave = (c, res) => (c.body?.stream ? chatStream(res, ['ok']) : chatJson(res, JSON.stringify({ isRelevant: true, query: '伤官' })));
  const cfg = JSON.parse(readFileSync(fx.configFile, 'utf8'));
  cfg.chat = { provider: 'openai-compatible', baseUrl: m.url, model: 'fake', maxRetries: 0 };
  cfg.serve = { allowedHosts: ['rag.example.lan', 'proxy.example.lan:8443'] };
  writeFileSync(fx.configFile, JSON.stringify(cfg));
  srv = await startServe(fx.configFile);
  port = Number(new URL(srv.url).port);
}, 60_000);
afterAll(async () => {
  await srv?.stop();
  await m?.close();
  fx?.cleanup();
});

interface Reply {
  status: number;
  body: string;
}
/** A request with exactly these headers (fetch would set Host and Origin itself). */
function send(path: string, headers: Record<string, string>, opts: { method?: string; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers, setHost: false }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}
const own = () => `127.0.0.1:${port}`;
const SEARCH = `/search?q=${encodeURIComponent('伤官')}&k=1`;
const CHAT = JSON.stringify({ messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: '伤官配印?' }] }] });

/** The refusal is one line of JSON naming what was refused. */
function refused(r: Reply, status: number, says: RegExp): void {
  expect(r.status, r.body).toBe(status);
  expect(r.body).not.toContain('\n');
  const j = JSON.parse(r.body) as { error: string; results?: unknown };
  expect(j.results).toBeUndefined();
  expect(j.error).toMatch(says);
}

describe('serve: Host', () => {
  it('answers the loopback names with its port, in any case and spelling', async () => {
    for (const host of [own(), `localhost:${port}`, `LOCALHOST:${port}`, `localhost.:${port}`, `[::1]:${port}`, `[0:0:0:0:0:0:0:1]:${port}`, `127.1.2.3:${port}`, `[::ffff:127.0.0.1]:${port}`]) {
      const r = await send(SEARCH, { host });
      expect(r.status, `${host}: ${r.body}`).toBe(200);
      expect(JSON.parse(r.body).results.length).toBe(1);
    }
  });

  it('refuses a rebinding name, another port, and malformed hosts with 421 (page and API alike)', async () => {
    const hosts = [
      `rebind.attacker.example:${port}`,
      'rebind.attacker.example',
      `REBIND.Attacker.Example.:${port}`,
      `localhost.attacker.example:${port}`,
      `127.0.0.1.nip.io:${port}`,
      `localhost:${port + 1}`,
      'localhost',
      `evil@127.0.0.1:${port}`,
      `127.0.0.1:${port}@evil`,
      `[::2]:${port}`,
      `10.0.0.1:${port}`,
      `0.0.0.0:${port}`,
      `rag.example.lan.evil:${port}`,
      `proxy.example.lan:${port}`,
      '',
    ];
    for (const host of hosts) {
      refused(await send(SEARCH, { host }), 421, /host .* is not this server's/);
      refused(await send('/', { host, accept: 'text/html' }), 421, /not this server's/);
    }
    // No Host at all (HTTP/1.0).
    const raw = await new Promise<string>((resolve) => {
      const s = connect(port, '127.0.0.1', () => s.end(`GET ${SEARCH} HTTP/1.0\r\n\r\n`));
      let out = '';
      s.on('data', (d: Buffer) => (out += d));
      s.on('end', () => resolve(out));
    });
    expect(raw).toMatch(/^HTTP\/1\.1 421/);
  });

  it('answers the names serve.allowedHosts lists (a port when the entry names one)', async () => {
    for (const host of ['rag.example.lan', `rag.example.lan:${port}`, 'RAG.example.lan.', 'proxy.example.lan:8443']) {
      expect((await send(SEARCH, { host })).status, host).toBe(200);
    }
  });
});

describe('serve: cross-site requests', () => {
  it('refuses another Origin, Origin null and a cross-site or same-site fetch on every route that reads the index or calls the model', async () => {
    const routes: [string, string?][] = [[SEARCH], ['/related?path=ziping/shishen.md'], ['/status'], ['/healthz'], ['/api/chat', CHAT], ['/search', JSON.stringify({ query: '伤官' })]];
    const before = m.calls.length;
    const attacks: Record<string, string>[] = [
      { origin: 'http://rebind.attacker.example' },
      { origin: `http://rebind.attacker.example:${port}` },
      { origin: 'null' },
      { origin: `https://localhost.attacker.example:${port}` },
      { origin: `http://127.0.0.1:${port + 1}` },
      { origin: `file://` },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'Cross-Site' },
    ];
    for (const [path, body] of routes) {
      for (const h of attacks) {
        const r = await send(path, { host: own(), ...h, ...(body ? { 'content-type': 'application/json' } : {}) }, body ? { method: 'POST', body } : {});
        refused(r, 403, /cross-(site|origin) request refused/);
      }
    }
    expect(m.calls.length).toBe(before);
  });

  it('answers its own origin, same-origin and direct (no Origin) requests; the page opens from a link anywhere', async () => {
    expect((await send(SEARCH, { host: own(), origin: `http://${own()}`, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect((await send(SEARCH, { host: `localhost:${port}`, origin: `http://localhost:${port}` })).status).toBe(200);
    expect((await send(SEARCH, { host: own(), 'sec-fetch-site': 'none' })).status).toBe(200);
    // A proxy forwarding https://rag.example.lan with Host rewritten to the loopback.
    expect((await send(SEARCH, { host: own(), origin: 'https://rag.example.lan' })).status).toBe(200);
    const page = await send('/', { host: own(), accept: 'text/html', 'sec-fetch-site': 'cross-site' });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<html');
  });
});

describe('serve: POST bodies must say JSON', () => {
  it('refuses a body with no or a form-like Content-Type with 415, before the model is called', async () => {
    const before = m.calls.length;
    for (const path of ['/api/chat', '/search']) {
      const body = path === '/search' ? JSON.stringify({ query: '伤官' }) : CHAT;
      for (const type of [null, 'text/plain', 'text/plain;charset=utf-8', 'text/plain; x=+json', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonp', 'text/json']) {
        const r = await send(path, { host: own(), ...(type ? { 'content-type': type } : {}) }, { method: 'POST', body });
        refused(r, 415, /application\/json/);
      }
    }
    expect(m.calls.length).toBe(before);
    const ok = await send('/search', { host: own(), 'content-type': 'Application/JSON; charset=utf-8' }, { method: 'POST', body: JSON.stringify({ query: '伤官' }) });
    expect(ok.status, ok.body).toBe(200);
    const chat = await send('/api/chat', { host: own(), 'content-type': 'application/json' }, { method: 'POST', body: CHAT });
    expect(chat.status, chat.body).toBe(200);
    expect(m.calls.length).toBeGreaterThan(before);
  });
});

describe('serve: binding beyond the loopback', () => {
  it('without a token: refuses to start, naming the way out', async () => {
    const r = await runCli(['serve', '-c', fx.configFile, '--port', '0', '--host', '0.0.0.0'], { RAGSYNC_HTTP_TOKEN: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--host 0\.0\.0\.0 is reachable from other machines and no token is set.*RAGSYNC_HTTP_TOKEN.*--insecure-no-token/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    const d = await runCli(['daemon', '-c', fx.configFile, '--serve', '--port', '0', '--host', '::', '--schedule', '0 0 0 1 1 *'], { RAGSYNC_HTTP_TOKEN: '' });
    expect(d.code).toBe(2);
    expect(d.stderr + d.stdout).toMatch(/--host :: is reachable from other machines/);
  });

  it('with --insecure-no-token: starts and says why it is dangerous; with a token: starts quietly', async () => {
    const insecure = await startServe(fx.configFile, { RAGSYNC_HTTP_TOKEN: '' }, ['--host', '0.0.0.0', '--insecure-no-token']);
    try {
      expect(insecure.stderr()).toMatch(/warning: --insecure-no-token: .*anyone who can reach this address can read every indexed document/);
    } finally {
      await insecure.stop();
    }
    const tokened = await startServe(fx.configFile, { RAGSYNC_HTTP_TOKEN: 'tok' }, ['--host', '0.0.0.0']);
    try {
      expect(tokened.stderr()).not.toMatch(/warning/);
      expect(tokened.stderr()).toMatch(/bearer token required/);
    } finally {
      await tokened.stop();
    }
  });
});

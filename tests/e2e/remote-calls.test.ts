import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, parseConfig } from '../../src/builtin.ts';
import { RemoteCall, type RemoteCallSettings } from '../../src/core/remote/call.ts';
import { RemoteReranker, rerankSettings } from '../../src/search/rerank.ts';
import { createReranker } from '../../src/search/create-reranker.ts';
import { rerankSchema } from '../../src/config/schema.ts';
import { Searcher } from '../../src/search/search.ts';
import { makeFixture, type Fixture } from '../helpers/search-fixture.ts';
import { ModelServer, chatStream } from '../helpers/model-server.ts';
import { openSearcher } from '../../src/engine/library.ts';

const KEY = 'sk-secret-123456789';
let m: ModelServer;
beforeAll(async () => {
  m = await ModelServer.start();
});
afterAll(() => m.close());
beforeEach(() => {
  m.calls.length = 0;
});

const call = (over: Partial<RemoteCallSettings> = {}) =>
  new RemoteCall(
    { block: 'chat', provider: 'openai-compatible', model: 'fake-model', url: m.url, apiKeyEnv: 'FAKE_KEY', timeoutMs: 2000, deadlineMs: 5000, maxRetries: 2, maxReplyBytes: 1 << 20, ...over },
    { apiKey: () => KEY, backoff: { baseMs: 5, maxMs: 20, random: () => 0.5 } },
  );

const base = { sources: [{ name: 'd', kind: 'dir', path: '.' }] };
const parse = (extra: Record<string, unknown>) => parseConfig({ ...base, ...extra });

describe('chat and rerank config blocks', () => {
  it('fill in their presets and refuse what is missing or secret, naming the field', () => {
    const c = parse({ chat: { provider: 'dashscope' }, rerank: { provider: 'siliconflow', topN: 8 } });
    expect(c.chat).toMatchObject({ provider: 'dashscope', timeoutMs: 60_000, deadlineMs: 180_000, maxRetries: 2, passages: 6 });
    const r = rerankSettings(c.rerank!);
    expect(r).toMatchObject({ url: 'https://api.siliconflow.cn/v1/rerank', model: 'BAAI/bge-reranker-v2-m3', apiKeyEnv: 'SILICONFLOW_API_KEY', wire: 'jina', topN: 8 });
    expect(rerankSettings(rerankSchema.parse({ provider: 'dashscope' })).url).toBe('https://dashscope.aliyuncs.com/api/v1/services/rerank/text-rerank/text-rerank');
    expect(() => parse({ chat: { provider: 'openai-compatible', model: 'x' } })).toThrow(/chat\.baseUrl: required for provider "openai-compatible"/);
    expect(() => parse({ chat: { provider: 'gpt' } })).toThrow(/chat\.provider: expected one of dashscope\|zhipu\|siliconflow\|openai\|ollama\|openai-compatible \(got "gpt"\)/);
    const secret = () => parse({ rerank: { provider: 'jina', apiKey: 'jina_abcdef' } });
    expect(secret).toThrow(/rerank\.apiKey: keys do not belong in config/);
    expect(() => secret()).not.toThrow(/jina_abcdef/);
  });
});

describe('RemoteCall', () => {
  it('postJson retries a 503 and a 429 (after its Retry-After), then returns the JSON', async () => {
    let n = 0;
    m.behave = (_c, res) => {
      n++;
      if (n === 1) return void res.writeHead(503).end('{"error":{"message":"busy"}}');
      if (n === 2) return void res.writeHead(429, { 'retry-after-ms': '30' }).end('{}');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":1}');
    };
    const started = Date.now();
    expect(await call({ url: `${m.url}/x` }).postJson({ a: 1 })).toEqual({ ok: 1 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(30);
    expect(m.calls.map((c) => [c.path, c.auth])).toEqual(Array(3).fill(['/x', `Bearer ${KEY}`]));
  });

  it('fails in one line naming block, provider, model and URL, never the key', async () => {
    m.behave = (_c, res) => void res.writeHead(401).end(JSON.stringify({ error: { message: `bad key ${KEY}` } }));
    const err = await call({ url: `${m.url}/x` }).postJson({}).catch((e: Error) => e);
    expect(String(err)).toContain(`chat openai-compatible fake-model at ${m.url}/x: HTTP 401: bad key [redacted] (check the API key in the environment variable named by chat.apiKeyEnv)`);
    expect(String(err)).not.toContain(KEY);
    expect(m.calls).toHaveLength(1); // 401 is not retried
  });

  it('a web page where the API belongs is said as such, for JSON calls and for the AI SDK fetch', async () => {
    m.behave = (_c, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Sign in</title>');
    const page = /got an HTML page instead of JSON \(HTTP 200, content-type text\/html\): "<!doctype html><title>Sign in<\/title>" \(check chat\.baseUrl: it should be the API, not a web page\)/;
    await expect(call({ url: `${m.url}/x` }).postJson({})).rejects.toThrow(page);
    await expect(call().fetch(`${m.url}/chat/completions`, { method: 'POST', body: '{}' })).rejects.toThrow(page);
    expect(m.calls).toHaveLength(2); // not retried: it is what that address serves
  });

  it('a missing key is a configuration error naming the block and variable', async () => {
    const c = new RemoteCall({ block: 'rerank', provider: 'jina', model: 'm', url: m.url, apiKeyEnv: 'RAGSYNC_TEST_UNSET_KEY', timeoutMs: 100, deadlineMs: 100, maxRetries: 0, maxReplyBytes: 100 });
    await expect(c.postJson({})).rejects.toThrow('rerank.apiKeyEnv: environment variable RAGSYNC_TEST_UNSET_KEY is not set');
  });

  it('fetch: a streamed reply is cut at the deadline, and at the size cap, each in one line', async () => {
    m.behave = (_c, res) => chatStream(res, Array(100).fill('x'), { delayMs: 40 });
    const slow = await call({ deadlineMs: 300 }).fetch(`${m.url}/chat/completions`, { method: 'POST', body: '{}' });
    await expect(slow.text()).rejects.toThrow(/chat openai-compatible fake-model at .*: timed out: no complete response within 300 ms \(chat\.deadlineMs\)/);
    m.behave = (_c, res) => chatStream(res, Array(200).fill('y'.repeat(100)));
    const big = await call({ maxReplyBytes: 4096 }).fetch(`${m.url}/chat/completions`, { method: 'POST', body: '{}' });
    await expect(big.text()).rejects.toThrow(/reply larger than 4096 bytes; cut off/);
  });

  it('fetch: headers that never come and a body that stalls each fail in one line naming timeoutMs', async () => {
    m.behave = () => {}; // never answers
    const silent = call({ timeoutMs: 150, maxRetries: 0 }).fetch(`${m.url}/chat/completions`, { method: 'POST', body: '{}' });
    await expect(silent).rejects.toThrow(/chat openai-compatible fake-model at .*: timed out: no response headers within 150 ms \(chat\.timeoutMs\)/);
    m.behave = (_c, res) => void res.writeHead(200, { 'content-type': 'text/event-stream' }).write('data: {}\n\n'); // then nothing
    const stalled = await call({ timeoutMs: 150 }).fetch(`${m.url}/chat/completions`, { method: 'POST', body: '{}' });
    await expect(stalled.text()).rejects.toThrow(/timed out: no reply bytes for 150 ms \(chat\.timeoutMs\)/);
  });

  it('close ends the kept-alive connections of fetch and postJson (the process need not exit for them to go)', async () => {
    const sockets = new Set<import('node:net').Socket>();
    m.behave = (_c, res, req) => {
      sockets.add(req.socket);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":1}');
    };
    const c = call({ url: `${m.url}/x` });
    await (await c.fetch(`${m.url}/chat/completions`, { method: 'POST', body: '{}' })).text();
    await c.postJson({});
    expect(sockets.size).toBe(2);
    expect([...sockets].every((s) => !s.destroyed)).toBe(true); // kept alive for the next call
    await c.close();
    await expect.poll(() => [...sockets].every((s) => s.destroyed), { timeout: 2000 }).toBe(true);
  });

  it('fetch: retries a 502 before any reply is used, sends the key, and aborts with the caller', async () => {
    let n = 0;
    m.behave = (_c, res) => (++n === 1 ? void res.writeHead(502).end('bad gateway') : chatStream(res, Array(50).fill('z'), { delayMs: 30 }));
    const ctl = new AbortController();
    const res = await call().fetch(`${m.url}/chat/completions`, { method: 'POST', body: '{}', signal: ctl.signal });
    expect(res.status).toBe(200);
    expect(m.calls.map((c) => c.auth)).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`]);
    const reader = res.body!.getReader();
    await reader.read();
    ctl.abort();
    await expect(reader.read()).rejects.toThrow();
    await expect.poll(() => m.calls[1]!.closedEarly).toBe(true);
  });
});

describe('rerank providers', () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await makeFixture();
  });
  afterAll(() => fx.cleanup());

  it('jina-style (SiliconFlow) and TEI wires: request shape, key, scores', async () => {
    m.behave = (c, res) => {
      const docs: string[] = c.body.documents ?? c.body.texts;
      const scores = docs.map((_, i) => ({ index: i, [c.path === '/rerank' && c.body.texts ? 'score' : 'relevance_score']: i / docs.length }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(c.body.texts ? scores : { results: scores }));
    };
    const sf = new RemoteReranker(rerankSettings(rerankSchema.parse({ provider: 'siliconflow', baseUrl: m.url })), { apiKey: () => KEY });
    expect(await sf.rerank('q', ['a', 'b'])).toEqual([{ index: 0, score: 0 }, { index: 1, score: 0.5 }]);
    expect(m.calls[0]).toMatchObject({ path: '/rerank', auth: `Bearer ${KEY}`, body: { model: 'BAAI/bge-reranker-v2-m3', query: 'q', documents: ['a', 'b'] } });
    const tei = new RemoteReranker(rerankSettings(rerankSchema.parse({ provider: 'tei', baseUrl: m.url })));
    expect(await tei.rerank('q', ['a', 'b', 'c'])).toHaveLength(3);
    expect(m.calls[1]).toMatchObject({ path: '/rerank', auth: undefined, body: { query: 'q', texts: ['a', 'b', 'c'] } });
    await sf.close();
    await tei.close();
  });

  it('a rerank block wins over the old variables, which still work without one', () => {
    const env = { DASHSCOPE_API_KEY: 'k', RAGSYNC_RERANK_MODEL: 'gte-rerank', RAGSYNC_RERANK_TOP_N: '7' };
    const legacy = createReranker({}, {}, env)!;
    expect([legacy.name, legacy.topN]).toEqual(['dashscope:gte-rerank', 7]);
    const block = createReranker({ rerank: rerankSchema.parse({ provider: 'jina', topN: 3 }) }, {}, env)!;
    expect([block.name, block.topN]).toEqual(['jina:jina-reranker-v2-base-multilingual', 3]);
    expect(createReranker({}, {}, {})).toBeNull();
  });

  it('a search through a configured reranker that fails keeps the fused order with a one-line reason', async () => {
    m.behave = (_c, res) => void res.writeHead(500).end('{"message":"boom"}');
    const cfg = loadConfig(fx.configFile);
    const rr = new RemoteReranker(rerankSettings(rerankSchema.parse({ provider: 'jina', baseUrl: m.url, maxRetries: 1 })), { apiKey: () => KEY, backoff: { baseMs: 1, maxMs: 2 } });
    const s = openSearcher(cfg, undefined, rr);
    const r = await s.searchDetailed('甲木', { k: 3 });
    await s.close();
    expect(r.reranked).toBe(false);
    expect(r.results.length).toBeGreaterThan(0);
    expect(r.rerankError).toBe(`rerank jina jina-reranker-v2-base-multilingual at ${m.url}/rerank: HTTP 500: boom (gave up after 2 attempts)`);
  });
});

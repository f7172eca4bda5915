import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { loadConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import { Searcher } from '../../src/search/search.ts';
import { DashScopeReranker, legacyRerankFromEnv, rerankerFromEnv } from '../../src/search/rerank.ts';
import { createHttpServer, listen } from '../../src/server/http.ts';
import { makeFixture, type Fixture } from '../helpers/search-fixture.ts';
import { openSearcher } from '../../src/engine/library.ts';

/** A loopback fake of DashScope's rerank endpoint; `behave` decides each answer. */
let behave: (body: any, req: IncomingMessage, res: ServerResponse) => void;
const seen: { body: any; auth: string | undefined }[] = [];
const hanging: ServerResponse[] = [];
let fake: Server;
let fakeUrl: string;
let fx: Fixture;

beforeAll(async () => {
  fx = await makeFixture();
  fake = createServer((req, res) => {
    let data = '';
    req.on('data', (d) => (data += d));
    req.on('end', () => {
      const body = JSON.parse(data);
      seen.push({ body, auth: req.headers.authorization });
      behave(body, req, res);
    });
  });
  fakeUrl = (await listen(fake, 0)) + '/rerank';
});
afterEach(() => {
  seen.length = 0;
  for (const r of hanging.splice(0)) r.destroy();
});
afterAll(async () => {
  fake.closeAllConnections();
  await new Promise((r) => fake.close(r));
  fx.cleanup();
});

/** Scores documents in reverse of the order they were sent. */
const reverse = (body: any, _req: IncomingMessage, res: ServerResponse) => {
  const n = body.input.documents.length;
  const results = Array.from({ length: n }, (_, i) => ({ index: i, relevance_score: (i + 1) / n }));
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ output: { results }, usage: { total_tokens: 1 }, request_id: 'r1' }));
};

const open = (timeoutMs = 2000) =>
  openSearcher(loadConfig(fx.configFile), undefined, new DashScopeReranker({ apiKey: 'sk-test', url: fakeUrl, model: 'gte-rerank-v2', topN: 5, timeoutMs }));

describe('rerank stage', () => {
  it('reorders the fused top N by the reranker and says so', async () => {
    behave = reverse;
    const s = open();
    const plain = await s.search('甲木', { k: 5, rerank: false });
    const r = await s.searchDetailed('甲木', { k: 5, explain: true });
    expect(r.reranked).toBe(true);
    expect(r.results.map((x) => x.id)).toEqual([...plain].reverse().map((x) => x.id));
    expect(r.results[0]!.explain!.rerank).toBe(1);
    expect(r.results[0]!.score).toBe(1);
    expect(seen[0]!.auth).toBe('Bearer sk-test');
    expect(seen[0]!.body).toMatchObject({ model: 'gte-rerank-v2', input: { query: '甲木' } });
    expect(seen[0]!.body.input.documents).toHaveLength(5);
    await s.close();
  });

  it('falls back to the fused order on HTTP errors, bad answers and timeouts', async () => {
    const s = open(300);
    const plain = (await s.search('甲木', { k: 5, rerank: false })).map((x) => x.id);
    const cases: [string, typeof behave][] = [
      ['HTTP 500', (_b, _q, res) => (res.writeHead(500), res.end('{"code":"InternalError"}'))],
      ['not JSON', (_b, _q, res) => (res.writeHead(200), res.end('<html>'))],
      ['bad index', (_b, _q, res) => (res.writeHead(200), res.end('{"output":{"results":[{"index":99,"relevance_score":1}]}}'))],
      ['timeout', (_b, _q, res) => void hanging.push(res)],
    ];
    for (const [name, fn] of cases) {
      behave = fn;
      const r = await s.searchDetailed('甲木', { k: 5 });
      expect(r.reranked, name).toBe(false);
      expect(r.rerankError, name).toBeTruthy();
      expect(r.rerankError, name).not.toContain('sk-test');
      expect(r.results.map((x) => x.id), name).toEqual(plain);
    }
    await s.close();
  });

  it('the HTTP API reports reranked and honours rerank=0', async () => {
    behave = reverse;
    const s = open();
    const server = createHttpServer(s);
    const base = await listen(server, 0);
    const a = (await (await fetch(`${base}/search?q=${encodeURIComponent('甲木')}&k=3`)).json()) as any;
    expect(a.reranked).toBe(true);
    const b = (await (await fetch(`${base}/search?q=${encodeURIComponent('甲木')}&k=3&rerank=0`)).json()) as any;
    expect(b.reranked).toBeUndefined();
    await new Promise((r) => server.close(r));
    await s.close();
  });

  it('is configured from the environment only when a key is present', () => {
    expect(rerankerFromEnv({})).toBeNull();
    expect(rerankerFromEnv({ DASHSCOPE_API_KEY: 'k', RAGSYNC_RERANK_TOP_N: '7' })!.topN).toBe(7);
    // What config check shows: the same settings, without the key and without building a client.
    expect(legacyRerankFromEnv({ RAGSYNC_RERANK_MODEL: 'gte-rerank' })).toBeNull();
    expect(legacyRerankFromEnv({ DASHSCOPE_API_KEY: 'k', RAGSYNC_RERANK_TOP_N: '7' })).toEqual({ url: undefined, model: 'gte-rerank-v2', topN: 7, timeoutMs: undefined });
    expect(rerankerFromEnv({ DASHSCOPE_API_KEY: 'k' })!.name).toBe('dashscope:gte-rerank-v2');
  });
});

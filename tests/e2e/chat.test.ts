import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import { DefaultChatTransport, readUIMessageStream, type UIMessageChunk } from 'ai';
import { loadConfig } from '../../src/builtin.ts';
import { Answerer, type AnswerMessage } from '../../src/answer/answer.ts';
import { chatSchema } from '../../src/config/schema.ts';
import { Searcher } from '../../src/search/search.ts';
import type { Reranker } from '../../src/search/rerank.ts';
import type { SourceItem } from '../../src/answer/sources.ts';
import { createHttpServer, listen } from '../../src/server/http.ts';
import { createChatHandler } from '../../src/ai/index.ts';
import { makeFixture, type Fixture } from '../helpers/search-fixture.ts';
import { ModelServer, chatJson, chatStream, defaultChat, promptOf } from '../helpers/model-server.ts';
import { openSearcher } from '../../src/engine/library.ts';

const KEY = 'sk-chat-secret-987654321';
let m: ModelServer;
let fx: Fixture;
const logs: string[] = [];
const servers: Server[] = [];

beforeAll(async () => {
  m = await ModelServer.start();
  fx = await makeFixture();
});
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  await m.close();
  fx.cleanup();
});
beforeEach(() => {
  m.calls.length = 0;
  logs.length = 0;
  m.behave = defaultChat;
});

/** A server with chat over the fixture index; the model is the loopback ModelServer. */
async function chatServer(opts: { reranker?: Reranker; chat?: Record<string, unknown>; token?: string; closeSearcher?: boolean } = {}) {
  const searcher = openSearcher(loadConfig(fx.configFile), undefined, opts.reranker ?? null);
  const chat = chatSchema.parse({ provider: 'openai-compatible', baseUrl: m.url, model: 'fake-chat', apiKeyEnv: 'FAKE_CHAT_KEY', maxRetries: 0, ...opts.chat });
  const answerer = new Answerer(searcher, chat, { apiKey: () => KEY, log: (l) => logs.push(l) });
  if (opts.closeSearcher) await searcher.store.close();
  const server = createHttpServer(searcher, { chat: answerer, token: opts.token ?? null, log: (l) => logs.push(l) });
  servers.push(server);
  return { base: await listen(server, 0), searcher };
}

const user = (text: string, id = 'u1') => ({ id, role: 'user' as const, parts: [{ type: 'text' as const, text }] });
const assistant = (text: string, id = 'a1') => ({ id, role: 'assistant' as const, parts: [{ type: 'text' as const, text }] });

/** Sends like useChat does (its own transport parses the SSE), returns every chunk and the final message. */
async function ask(base: string, messages: any[], body: Record<string, unknown> = {}, signal?: AbortSignal) {
  const transport = new DefaultChatTransport<AnswerMessage>({ api: `${base}/api/chat`, body });
  const stream = await transport.sendMessages({ trigger: 'submit-message', chatId: 'c1', messageId: undefined, messages, abortSignal: signal });
  const [forChunks, forMessage] = stream.tee();
  const chunks: UIMessageChunk[] = [];
  const reading = (async () => {
    for await (const c of forChunks as unknown as AsyncIterable<UIMessageChunk>) chunks.push(c);
  })();
  let message: AnswerMessage | undefined;
  for await (const msg of readUIMessageStream<AnswerMessage>({ stream: forMessage as ReadableStream<any>, terminateOnError: false })) message = msg;
  await reading;
  return { chunks, message: message! };
}

const sourcesOf = (chunks: UIMessageChunk[]) => (chunks.find((c) => c.type === 'data-sources') as { data: SourceItem[] } | undefined)?.data;
const textOf = (msg: AnswerMessage) => msg.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
const firstIndex = (chunks: UIMessageChunk[], type: string) => chunks.findIndex((c) => c.type === type);

describe('POST /api/chat', () => {
  it('a question about the library: sources before any text, source parts, grounded answer citing [1]', async () => {
    const { base } = await chatServer();
    const { chunks, message } = await ask(base, [user('伤官配印是什么意思')], { source: 'classics', k: 3 });
    const sources = sourcesOf(chunks)!;
    expect(sources.length).toBeGreaterThan(0);
    expect(sources.length).toBeLessThanOrEqual(3);
    expect(firstIndex(chunks, 'data-sources')).toBeLessThan(firstIndex(chunks, 'text-delta'));
    expect(firstIndex(chunks, 'data-sources')).toBeLessThan(firstIndex(chunks, 'text-start'));
    expect(chunks.filter((c) => c.type === 'source-document')).toHaveLength(sources.length);
    expect(sources[0]).toMatchObject({ title: '子平真诠 · 论伤官', url: 'ziping/shishen.md', metadata: { source: 'classics', path: 'ziping/shishen.md', book: '子平真诠' } });
    expect(sources[0]!.transcript).toContain('伤官配印');
    expect(Object.keys(sources[0]!).sort()).toEqual(['id', 'metadata', 'score', 'title', 'transcript', 'url']);
    expect(textOf(message)).toBe('ok [1]');
    expect(message.parts.find((p) => p.type === 'data-sources')).toBeTruthy();
    // One rewrite call (JSON, not streamed), one answer call (streamed) carrying the numbered passages.
    const [rewrite] = m.chats(false);
    const [answer] = m.chats(true);
    expect(m.calls).toHaveLength(2);
    expect(rewrite!.auth).toBe(`Bearer ${KEY}`);
    expect(rewrite!.body.response_format).toEqual({ type: 'json_object' });
    expect(promptOf(rewrite!)).toContain('伤官配印是什么意思');
    const system = answer!.body.messages[0].content as string;
    expect(system).toContain('命理');
    expect(system).toMatch(/\[1\] 子平真诠 · 论伤官\n伤官虽非吉神/);
    expect(system).not.toContain(`[${sources.length + 1}]`);
    expect(answer!.body.messages.at(-1)).toMatchObject({ role: 'user', content: '伤官配印是什么意思' });
  });

  it('a follow-up is searched as the rewrite says, with the conversation it refers to', async () => {
    const { base } = await chatServer();
    m.behave = (c, res) => (c.body.stream ? chatStream(res, ['印绶 [1]']) : chatJson(res, JSON.stringify({ isRelevant: true, query: '印绶 官星' })));
    const { chunks } = await ask(base, [user('伤官配印'), assistant('伤官配印，贵不可言 [1]'), user('那印绶呢？', 'u2')], { source: 'classics' });
    expect(promptOf(m.chats(false)[0]!)).toMatch(/伤官配印[\s\S]*贵不可言[\s\S]*那印绶呢/);
    expect(sourcesOf(chunks)![0]!.title).toBe('子平真诠 · 论印绶');
  });

  it('a message not about the library: no retrieval, sources [] first anyway, a general persona', async () => {
    const { base } = await chatServer();
    m.behave = (c, res) => (c.body.stream ? chatStream(res, ['Hello!']) : chatJson(res, '{"isRelevant": false, "query": "hello"}'));
    const { chunks, message } = await ask(base, [user('hello there')]);
    expect(sourcesOf(chunks)).toEqual([]);
    expect(firstIndex(chunks, 'data-sources')).toBeLessThan(firstIndex(chunks, 'text-delta'));
    expect(chunks.some((c) => c.type === 'source-url' || c.type === 'source-document')).toBe(false);
    const system = m.chats(true)[0]!.body.messages[0].content as string;
    expect(system).toContain('general assistant');
    expect(system).not.toContain('Passages:');
    expect(textOf(message)).toBe('Hello!');
  });

  it('bookmarks: the bookmark URL is the link (a source-url part), the reading-assistant persona', async () => {
    const { base } = await chatServer();
    const { chunks } = await ask(base, [user('SQLite WAL mode')], { source: 'bookmarks' });
    const sources = sourcesOf(chunks)!;
    expect(sources[0]).toMatchObject({ title: 'SQLite Is Enough', url: 'https://example.com/sqlite' });
    expect(chunks.find((c) => c.type === 'source-url')).toMatchObject({ url: 'https://example.com/sqlite', title: 'SQLite Is Enough' });
    expect(m.chats(true)[0]!.body.messages[0].content).toContain('reading assistant');
  });

  it('config overrides the persona and topic', async () => {
    const { base } = await chatServer({ chat: { systemPrompt: 'You are Ziwei, a terse tutor.', topic: 'Chinese metaphysics', names: { assistant: 'Ziwei' } } });
    await ask(base, [user('伤官')], { source: 'classics' });
    expect(m.chats(false)[0]!.body.messages[0].content).toContain('The library covers: Chinese metaphysics.');
    const system = m.chats(true)[0]!.body.messages[0].content as string;
    expect(system.startsWith('You are Ziwei, a terse tutor.')).toBe(true);
    expect(system).not.toContain('命理助手');
  });
});

describe('POST /api/chat when something fails', () => {
  it('rewrite fails (HTTP 500) or answers garbage: the user\'s own words are searched', async () => {
    const { base } = await chatServer();
    for (const bad of [(res: any) => res.writeHead(500).end('{"error":{"message":"overloaded"}}'), (res: any) => chatJson(res, 'sure! here you go')]) {
      m.calls.length = 0;
      m.behave = (c, res) => (c.body.stream ? chatStream(res, ['ok']) : bad(res));
      const { chunks } = await ask(base, [user('伤官配印')], { source: 'classics' });
      expect(sourcesOf(chunks)!.length).toBeGreaterThan(0);
      expect(m.chats(true)[0]!.body.messages[0].content).toContain('伤官虽非吉神');
    }
    expect(logs.filter((l) => l.startsWith('chat: rewrite failed, searching the message as written'))).toHaveLength(2);
    expect(logs.join('\n')).toContain('HTTP 500: overloaded');
    expect(logs.join('\n')).not.toContain(KEY);
  });

  it('the reranker fails: retrieval order kept, one log line, the answer still has sources', async () => {
    const failing: Reranker = { name: 'broken', topN: 10, rerank: async () => Promise.reject(new Error('rerank broken at http://r: HTTP 503')) };
    const { base } = await chatServer({ reranker: failing });
    const { chunks, message } = await ask(base, [user('伤官配印')], { source: 'classics' });
    expect(sourcesOf(chunks)!.length).toBeGreaterThan(0);
    expect(textOf(message)).toBe('ok [1]');
    expect(logs).toEqual(['chat: rerank failed, retrieval order kept: rerank broken at http://r: HTTP 503']);
  });

  it('search fails: the stream says so, with sources []', async () => {
    const { base } = await chatServer({ closeSearcher: true });
    const { chunks, message } = await ask(base, [user('伤官配印')]);
    expect(sourcesOf(chunks)).toEqual([]);
    expect(textOf(message)).toMatch(/^The library could not be searched: /);
    expect(m.chats(true)).toHaveLength(0);
    expect(logs.some((l) => l.startsWith('chat: search failed: '))).toBe(true);
  });

  it('the model fails mid-stream: an error part, and the stream closes', async () => {
    const { base } = await chatServer();
    m.behave = (c, res) => (c.body.stream ? chatStream(res, ['first ', 'second', 'third'], { failAfter: 1, delayMs: 30 }) : defaultChat(c, res));
    const started = Date.now();
    const { chunks } = await ask(base, [user('伤官配印')]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(sourcesOf(chunks)!.length).toBeGreaterThan(0);
    const error = chunks.find((c) => c.type === 'error') as { errorText: string } | undefined;
    expect(error?.errorText).toBeTruthy();
    expect(error!.errorText).not.toContain(KEY);
    expect(chunks.filter((c) => c.type === 'text-delta').map((c: any) => c.delta).join('')).toBe('first ');
  });

  it('the client disconnects: the model request is aborted upstream', async () => {
    const { base } = await chatServer();
    m.behave = (c, res) => (c.body.stream ? chatStream(res, Array(200).fill('x'), { delayMs: 50 }) : defaultChat(c, res));
    const ctl = new AbortController();
    const transport = new DefaultChatTransport<AnswerMessage>({ api: `${base}/api/chat` });
    const stream = await transport.sendMessages({ trigger: 'submit-message', chatId: 'c', messageId: undefined, messages: [user('伤官配印')], abortSignal: ctl.signal });
    const reader = stream.getReader();
    for (;;) {
      const { value } = await reader.read();
      if (value?.type === 'text-delta') break;
    }
    ctl.abort();
    await expect.poll(() => m.chats(true)[0]?.closedEarly, { timeout: 5000 }).toBe(true);
  });
});

describe('POST /api/chat limits and access', () => {
  const post = (base: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${base}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  it('refuses oversized bodies (413), too many or too long messages and bad requests (400, JSON errors)', async () => {
    const { base } = await chatServer({ chat: { maxMessages: 3, maxMessageChars: 100 } });
    const cases: [string, number, RegExp][] = [
      [JSON.stringify({ messages: [user('x'.repeat(5 * 2 ** 20))] }), 413, /request body larger than 4194304 bytes/],
      [JSON.stringify({ messages: [user('a'), assistant('b'), user('c'), assistant('d'), user('e')] }), 400, /messages: at most 3 per request \(got 5\)/],
      [JSON.stringify({ messages: [user('字'.repeat(101))] }), 400, /messages\[0\]: longer than 100 characters \(got 101\)/],
      ['{"messages": [', 400, /malformed JSON body/],
      [JSON.stringify({ messages: [assistant('hi')] }), 400, /last message must be a user message/],
      [JSON.stringify({ messages: [user('hi')], source: 'nope' }), 400, /nope/],
      [JSON.stringify({ messages: [user('hi')], k: 500 }), 400, /^k: /],
      [JSON.stringify({ messages: 'hi' }), 400, /^messages: /],
    ];
    for (const [body, status, error] of cases) {
      const res = await post(base, body);
      expect([res.status, res.headers.get('content-type')], body.slice(0, 60)).toEqual([status, 'application/json; charset=utf-8']);
      expect((await res.json()).error).toMatch(error);
    }
    expect(m.calls).toHaveLength(0);
  });

  it('the bearer token applies; without a chat block the route says so', async () => {
    const { base } = await chatServer({ token: 'tok' });
    expect((await post(base, JSON.stringify({ messages: [user('hi')] }))).status).toBe(401);
    const ok = await post(base, JSON.stringify({ messages: [user('伤官')] }), { authorization: 'Bearer tok' });
    expect([ok.status, ok.headers.get('x-vercel-ai-ui-message-stream')]).toEqual([200, 'v1']);
    await ok.text();
    const searcher = openSearcher(loadConfig(fx.configFile));
    const plain = createHttpServer(searcher);
    servers.push(plain);
    const res = await post(await listen(plain, 0), JSON.stringify({ messages: [user('hi')] }));
    expect([res.status, (await res.json()).error]).toEqual([404, 'chat is not configured: add a "chat" block to the config']);
  });
});

describe('createChatHandler (ragsync/ai) for web-standard servers', () => {
  it('answers a Request with the same stream, and a bad body with 400', async () => {
    const searcher = openSearcher(loadConfig(fx.configFile));
    const handle = createChatHandler(searcher, { provider: 'openai-compatible', baseUrl: m.url, model: 'fake', apiKeyEnv: 'FAKE_KEY' }, { apiKey: () => KEY });
    try {
      const res = await handle(new Request('http://x/api/chat', { method: 'POST', body: JSON.stringify({ messages: [user('伤官配印')], source: 'classics' }) }));
      expect(res.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
      const text = await res.text();
      expect(text.indexOf('"type":"data-sources"')).toBeGreaterThan(0);
      expect(text.indexOf('"type":"data-sources"')).toBeLessThan(text.indexOf('"type":"text-delta"'));
      const bad = await handle(new Request('http://x/api/chat', { method: 'POST', body: '{"messages": [' }));
      expect([bad.status, (await bad.json()).error]).toEqual([400, 'malformed JSON body']);
    } finally {
      await searcher.close();
    }
  });
});

describe('POST /search', () => {
  let base: string;
  beforeAll(async () => {
    ({ base } = await chatServer());
  });
  const postSearch = (body: string) => fetch(`${base}/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

  it('takes a 6,000-character CJK query in a JSON body with the contract\'s fields', async () => {
    const query = '伤官配印，贵不可言。'.repeat(600);
    expect(query.length).toBe(6000);
    const res = await postSearch(JSON.stringify({ query, sources: ['classics'], k: 3, format: 'sourceItem' }));
    expect(res.status).toBe(200);
    const { results } = await res.json();
    expect(results.length).toBeGreaterThan(0);
    expect(results[0].transcript).toContain('伤官配印');
    const explained = await (await postSearch(JSON.stringify({ query: '伤官', explain: true }))).json();
    expect(explained.stages.map((x: { stage: string }) => x.stage)).toEqual(['analyse', 'retrieve', 'weigh', 'fuse', 'collapse', 'rerank', 'present']);
    const byFilter = await (await postSearch(JSON.stringify({ q: '伤官', book: 'ziping', k: 5 }))).json();
    expect(byFilter.results.every((r: any) => r.book === '子平真诠')).toBe(true);
  });

  it('GET says "use POST /search" when the URL is too long; bad bodies get 400 or 413', async () => {
    const long = encodeURIComponent('伤'.repeat(6000));
    const tooBig = await fetch(`${base}/search?q=${long}`);
    expect(tooBig.status).toBe(431);
    expect((await tooBig.json()).error).toContain('use POST /search');
    const overLimit = await fetch(`${base}/search?q=${encodeURIComponent('伤'.repeat(1200))}`);
    expect([overLimit.status, (await overLimit.json()).error]).toEqual([400, expect.stringMatching(/^q: query longer than 1000 characters \(got /)]);
    const cases: [string, number, RegExp][] = [
      ['{"query": ', 400, /malformed JSON body/],
      [JSON.stringify({ query: 'x'.repeat(300 * 1024) }), 413, /request body larger than 262144 bytes/],
      [JSON.stringify({ query: '伤'.repeat(8001) }), 400, /query longer than 8000 characters/],
      [JSON.stringify({ query: '伤官', colour: 'red' }), 400, /unknown field "colour"/],
      ['[1]', 400, /JSON object/],
    ];
    for (const [body, status, error] of cases) {
      const res = await postSearch(body);
      expect(res.status, body.slice(0, 40)).toBe(status);
      expect((await res.json()).error).toMatch(error);
    }
    const put = await fetch(`${base}/search`, { method: 'PUT', body: '{}' });
    expect([put.status, put.headers.get('allow')]).toEqual([405, 'GET, POST']);
    const postStatus = await fetch(`${base}/status`, { method: 'POST', body: '{}' });
    expect(postStatus.status).toBe(405);
  });
});

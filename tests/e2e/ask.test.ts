import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Upstream } from '../helpers/upstream.ts';
import { tempDir } from '../helpers/tmp.ts';
import { runBin, runCli } from '../helpers/cli.ts';
import { startServe } from '../helpers/serve.ts';
import { ModelServer, chatStream, defaultChat, promptOf } from '../helpers/model-server.ts';
import { loadConfig } from '../../src/builtin.ts';
import { Searcher } from '../../src/search/search.ts';
import { Answerer } from '../../src/answer/answer.ts';
import { createMcpServer } from '../../src/mcp/server.ts';
import { openSearcher } from '../../src/engine/library.ts';

const KEY = 'sk-ask-secret-55555555';
const GITHUB = 'https://github.com/acme/notes.git';
let t: ReturnType<typeof tempDir>;
let m: ModelServer;
let cfgFile: string;
let sha: string;
/** git fetches the "GitHub" URL from the local upstream (url.<local>.insteadOf in $HOME/.gitconfig): permalinks see a GitHub source, no network needed. */
let env: Record<string, string>;

beforeAll(async () => {
  m = await ModelServer.start();
  t = tempDir();
  const up = new Upstream(join(t.dir, 'up'));
  sha = up
    .write('guide/甲木.md', '# 甲木\n\n## 正月\n\n正月甲木，初春尚有余寒，得丙火温暖，癸水滋润。\n寅月用神先丙后癸。\n')
    .write('notes/en.md', '# Retry\n\nRetry with exponential backoff and jitter; honour Retry-After.\n')
    .commit('init');
  const home = join(t.dir, 'home');
  mkdirSync(home);
  writeFileSync(join(home, '.gitconfig'), `[url "${up.bare}"]\n\tinsteadOf = ${GITHUB}\n`);
  env = { HOME: home, FAKE_ASK_KEY: KEY };
  cfgFile = join(t.dir, 'ragsync.json');
  const base = { db: 'idx/ragsync.db', sources: [{ name: 'docs', kind: 'git', url: GITHUB, include: ['**/*.md'] }] };
  writeFileSync(join(t.dir, 'nochat.json'), JSON.stringify(base));
  writeFileSync(cfgFile, JSON.stringify({ ...base, chat: { provider: 'openai-compatible', baseUrl: m.url, model: 'fake', apiKeyEnv: 'FAKE_ASK_KEY', maxRetries: 0 } }));
  const r = await runCli(['index', '-c', cfgFile], env);
  expect(r.code, r.stderr).toBe(0);
});
afterAll(async () => {
  await m.close();
  t.cleanup();
});
beforeEach(() => {
  m.calls.length = 0;
  m.behave = defaultChat;
});

describe('ragsync ask', () => {
  it('streams the answer, then numbered sources whose links open the lines at the indexed commit', async () => {
    m.behave = (c, res) => (c.body.stream ? chatStream(res, ['正月甲木', '先用丙火 [1]']) : defaultChat(c, res));
    const r = await runCli(['ask', '正月甲木用什么', '-c', cfgFile, '-k', '1'], env);
    expect(r.code, r.stderr).toBe(0);
    const link = `https://github.com/acme/notes/blob/${sha}/guide/${encodeURIComponent('甲木.md')}#L5-L6`;
    expect(r.stdout).toBe(`正月甲木先用丙火 [1]\n\n[1] 甲木 · 正月 · ${link}\n`);
    expect(promptOf(m.chats(true)[0]!)).toContain('[1] 甲木 · 正月\n正月甲木，初春尚有余寒');
    expect(r.stdout + r.stderr).not.toContain(KEY);
  });

  it('--json prints answer, sources and error', async () => {
    const r = await runCli(['ask', 'exponential backoff', '-c', cfgFile, '--json', '--source', 'docs'], env);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({ answer: 'ok [1]', error: null });
    expect(j.sources[0]).toMatchObject({ title: 'Retry', url: `https://github.com/acme/notes/blob/${sha}/notes/en.md#L3-L3`, metadata: { startLine: 3, endLine: 3 } });
  });

  it('works from the installed bin too (the AI SDK read from its vendor file)', async () => {
    const r = await runBin(['ask', 'exponential backoff', '-c', cfgFile, '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({ answer: 'ok [1]', error: null });
    expect(j.sources.map((s: { title: string }) => s.title)).toContain('Retry');
  });

  it('without a chat block: a clear error and exit 2; a model failing part way: exit 1 with one line', async () => {
    const none = await runCli(['ask', 'q', '-c', join(t.dir, 'nochat.json')], env);
    expect([none.code, none.stderr.trim()]).toEqual([2, 'ragsync: ask: no "chat" block in the config: add one (e.g. {"chat": {"provider": "dashscope"}}; see docs/answers.md)']);
    m.behave = (c, res) => (c.body.stream ? void res.writeHead(401).end(`{"error":{"message":"invalid key ${KEY}"}}`) : defaultChat(c, res));
    const bad = await runCli(['ask', '甲木', '-c', cfgFile], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`ragsync ask: the answer failed: chat openai-compatible fake at ${m.url}: HTTP 401: invalid key [redacted] (check the API key in the environment variable named by chat.apiKeyEnv)`);
    expect(bad.stdout + bad.stderr).not.toContain(KEY);
    const unset = await runCli(['ask', '甲木', '-c', cfgFile], { ...env, FAKE_ASK_KEY: '' });
    expect([unset.code, unset.stderr.trim()]).toEqual([2, 'ragsync: chat.apiKeyEnv: environment variable FAKE_ASK_KEY is not set (set it, or put it in .env)']);
  });
});

describe('ragsync serve with a chat block', () => {
  it('serves POST /api/chat and says so; refuses to start with the key variable unset', async () => {
    const served = await startServe(cfgFile, env);
    try {
      expect(served.stderr()).toContain(`with POST /api/chat (chat openai-compatible fake at ${m.url})`);
      const res = await fetch(`${served.url}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: '正月甲木' }] }] }),
      });
      const sse = await res.text();
      expect(sse).toContain(`/blob/${sha}/guide/`);
      expect(sse.indexOf('data-sources')).toBeLessThan(sse.indexOf('text-delta'));
      const page = await fetch(served.url, { headers: { accept: 'text/html' } });
      expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    } finally {
      await served.stop();
    }
    await expect(startServe(cfgFile, { ...env, FAKE_ASK_KEY: '' })).rejects.toThrow(/chat\.apiKeyEnv: environment variable FAKE_ASK_KEY is not set/);
  });
});

describe('MCP tool ask', () => {
  it('answers with the cited sources beside search and related', async () => {
    const cfg = loadConfig(cfgFile);
    const searcher = openSearcher(cfg);
    const answerer = new Answerer(searcher, cfg.chat!, { apiKey: () => KEY });
    const server = createMcpServer(searcher, undefined, answerer);
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    const client = new Client({ name: 't', version: '1' });
    await client.connect(a);
    try {
      expect((await client.listTools()).tools.map((x) => x.name).sort()).toEqual(['ask', 'docSearch', 'related', 'search']);
      const r = (await client.callTool({ name: 'ask', arguments: { question: '正月甲木', k: 2 } })) as { content: { text: string }[]; isError?: boolean };
      expect(r.isError).toBeFalsy();
      const j = JSON.parse(r.content[0]!.text);
      expect(j.answer).toBe('ok [1]');
      expect(j.sources[0].url).toContain(`/blob/${sha}/guide/`);
    } finally {
      await client.close();
      await searcher.close();
    }
  });
});

// A real `ragsync serve` whose chat model misbehaves: the stream's error part and serve's log say
// which deadline or idle timeout passed and which model, in one line, never a stack trace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { makeFixture, type Fixture } from '../helpers/search-fixture.ts';
import { ModelServer, chatJson, chatStream } from '../helpers/model-server.ts';
import { startServe, type Served } from '../helpers/serve.ts';

let fx: Fixture;
let m: ModelServer;
let srv: Served;

beforeAll(async () => {
  fx = await makeFixture();
  m = await ModelServer.start();
  const cfg = JSON.parse(readFileSync(fx.configFile, 'utf8'));
  cfg.chat = { provider: 'openai-compatible', baseUrl: m.url, model: 'slow-model', maxRetries: 0, timeoutMs: 400, deadlineMs: 1500 };
  writeFileSync(fx.configFile, JSON.stringify(cfg));
  srv = await startServe(fx.configFile);
}, 60_000);
afterAll(async () => {
  await srv?.stop();
  await m?.close();
  fx?.cleanup();
});

const rewrite = (res: Parameters<typeof chatJson>[0]) => chatJson(res, JSON.stringify({ isRelevant: true, query: '伤官' }));

/** POST /api/chat; the SSE parts as parsed JSON. */
async function chat(): Promise<any[]> {
  const res = await fetch(`${srv.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: '伤官配印?' }] }] }),
  });
  expect(res.status).toBe(200);
  const text = await res.text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]')
    .map((l) => JSON.parse(l.slice(6)));
}
const errorOf = (parts: any[]) => parts.find((p) => p.type === 'error')?.errorText as string | undefined;
/** serve's log lines written since `from`. */
const logSince = (from: number) => srv.stderr().slice(from).split('\n').filter(Boolean);

describe('chat failures, named', () => {
  it('an answer that never finishes: the deadline and the model are named in the stream and in one log line', async () => {
    m.behave = (c, res) => (c.body?.stream ? chatStream(res, Array(200).fill('x '), { delayMs: 100 }) : rewrite(res));
    const from = srv.stderr().length;
    const parts = await chat();
    const err = errorOf(parts);
    expect(err).toMatch(/chat openai-compatible slow-model at http:\/\/127\.0\.0\.1:\d+.*: timed out: no complete response within 1500 ms \(chat\.deadlineMs\)/);
    expect(err).not.toMatch(/Failed to process/);
    const lines = logSince(from);
    expect(lines, lines.join('\n')).toHaveLength(1);
    expect(lines[0]).toMatch(/^ragsync serve: (chat|answer) failed: chat openai-compatible slow-model .*no complete response within 1500 ms \(chat\.deadlineMs\)$/);
  });

  it('an answer that stalls mid-way: the idle timeout and the model are named', async () => {
    m.behave = async (c, res) => {
      if (!c.body?.stream) return rewrite(res);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'f', choices: [{ index: 0, delta: { role: 'assistant', content: 'half an ans' }, finish_reason: null }] })}\n\n`);
      // …and nothing more, the connection left open.
    };
    const from = srv.stderr().length;
    const parts = await chat();
    expect(parts.some((p) => p.type === 'text-delta' && p.delta === 'half an ans')).toBe(true);
    const err = errorOf(parts);
    expect(err).toMatch(/slow-model.*: timed out: no reply bytes for 400 ms \(chat\.timeoutMs\)/);
    expect(err).not.toMatch(/Failed to process/);
    const lines = logSince(from);
    expect(lines, lines.join('\n')).toHaveLength(1);
    expect(lines[0]).toMatch(/^ragsync serve: (chat|answer) failed: chat openai-compatible slow-model .*no reply bytes for 400 ms \(chat\.timeoutMs\)$/);
  });

  it('a model 500: one log line naming the model and the status, no stack trace', async () => {
    m.behave = (c, res) => {
      if (!c.body?.stream) return rewrite(res);
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'upstream exploded' } }));
    };
    const from = srv.stderr().length;
    const parts = await chat();
    expect(errorOf(parts)).toMatch(/slow-model.*500.*upstream exploded/);
    const lines = logSince(from);
    expect(lines.length, lines.join('\n')).toBe(1);
    expect(lines[0]).toMatch(/^ragsync serve: answer failed: chat openai-compatible slow-model .*500.*upstream exploded/);
  });
});

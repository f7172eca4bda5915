// `ragsync daemon --serve` with a chat block: a stop in the middle of a streamed answer ends the
// answer's upstream request and the model connections, and the process exits promptly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { tempDir } from '../helpers/tmp.ts';
import { ModelServer, chatJson, chatStream } from '../helpers/model-server.ts';
import { spawnCli, waitFor } from './daemon-helpers.ts';

const STOP_BOUND_MS = 5_000;
let t: ReturnType<typeof tempDir>;
let m: ModelServer;

beforeAll(async () => {
  t = tempDir('ragsync-daemon-chat-');
  m = await ModelServer.start();
});
afterAll(async () => {
  await m?.close();
  t?.cleanup();
});

describe('ragsync daemon --serve with a chat block', () => {
  it('on SIGTERM mid-answer: the model request is cut, every model socket closes, exit 0 within the bound', async () => {
    const notes = join(t.dir, 'notes');
    mkdirSync(notes);
    writeFileSync(join(notes, 'retry.md'), '# Retries\n\nRetry with backoff and jitter.\n');
    const file = join(t.dir, 'ragsync.json');
    writeFileSync(
      file,
      JSON.stringify({
        db: join(t.dir, 'data', 'index.db'),
        embedder: { provider: 'hash', dims: 64 },
        sources: [{ name: 'notes', kind: 'dir', path: notes }],
        chat: { provider: 'openai-compatible', baseUrl: m.url, model: 'fake', maxRetries: 0 },
      }),
    );
    const sockets = new Set<Socket>();
    m.behave = (call, res, req) => {
      sockets.add(req.socket);
      // The rewrite answers at once; the answer streams for far longer than the test waits.
      if (!call.body?.stream) return chatJson(res, JSON.stringify({ isRelevant: true, query: 'retry' }));
      return chatStream(res, Array(400).fill('x '), { delayMs: 50 });
    };
    // A schedule that does not fire during the test: only the API works.
    const d = spawnCli(['daemon', '-c', file, '--schedule', '0 0 0 1 1 *', '--serve', '--port', '0']);
    let out = '';
    d.stdout!.on('data', (b: Buffer) => (out += b.toString()));
    await waitFor(() => /serving the HTTP API/.test(out) || d.exitCode !== null, 'the API', 60_000);
    const base = /"url":"([^"]+)"/.exec(out.split('\n').find((l) => l.includes('serving the HTTP API'))!)![1]!;

    const res = await fetch(`${base}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'how to retry?' }] }] }),
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('"text-delta"')) {
      const r = await reader.read();
      if (r.done) break;
      seen += new TextDecoder().decode(r.value);
    }
    expect(seen).toContain('"text-delta"');
    const answering = m.chats(true)[0]!;
    expect(answering.closedEarly).toBe(false);
    expect([...sockets].some((s) => !s.destroyed)).toBe(true);

    const stopped = Date.now();
    d.kill('SIGTERM');
    const exit = await d.done;
    expect(Date.now() - stopped).toBeLessThan(STOP_BOUND_MS);
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stdout).toContain('daemon stopped');
    expect(answering.closedEarly).toBe(true);
    await waitFor(() => [...sockets].every((s) => s.destroyed), 'the model sockets to close', 2_000);
    await reader.cancel().catch(() => {});
  });
});

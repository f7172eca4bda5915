import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { listen } from '../../src/server/http.ts';

/** One request a loopback model server received. */
export interface ModelCall {
  path: string;
  body: any;
  auth: string | undefined;
  /** Set when the client went away before the reply was complete. */
  closedEarly: boolean;
}

export type Behaviour = (call: ModelCall, res: ServerResponse, req: IncomingMessage) => void | Promise<void>;

/**
 * A real HTTP server on 127.0.0.1 playing a model provider: OpenAI-style /chat/completions (a JSON
 * answer, or SSE when the request says stream) and rerank endpoints. `behave` answers each request;
 * every request is recorded with its parsed body.
 */
export class ModelServer {
  readonly calls: ModelCall[] = [];
  behave: Behaviour = (call, res) => defaultChat(call, res);
  url = '';
  private server: Server;

  constructor() {
    this.server = createServer((req, res) => {
      let data = '';
      req.on('data', (d) => (data += d));
      req.on('end', () => {
        let body: any = null;
        try {
          body = JSON.parse(data);
        } catch {
          body = data;
        }
        const call: ModelCall = { path: req.url ?? '', body, auth: req.headers.authorization, closedEarly: false };
        res.on('close', () => (call.closedEarly = !res.writableFinished));
        this.calls.push(call);
        void Promise.resolve(this.behave(call, res, req)).catch(() => res.destroy());
      });
    });
  }

  static async start(): Promise<ModelServer> {
    const m = new ModelServer();
    m.url = await listen(m.server, 0);
    return m;
  }

  /** Chat calls: the non-streaming (rewrite) ones and the streaming (answer) ones. */
  chats(stream?: boolean): ModelCall[] {
    return this.calls.filter((c) => c.path.endsWith('/chat/completions') && (stream === undefined || !!c.body?.stream === stream));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

/** A non-streaming chat completion whose message content is `content`. */
export function chatJson(res: ServerResponse, content: string, status = 200): void {
  const body = JSON.stringify({
    id: 'c1',
    object: 'chat.completion',
    created: 1,
    model: 'fake',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  });
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(body);
}

/**
 * A streamed chat completion (SSE): one chunk per piece, `delayMs` apart (and before the first).
 * `failAfter`: the connection is cut after that many pieces, without [DONE].
 */
export async function chatStream(res: ServerResponse, pieces: string[], opts: { delayMs?: number; failAfter?: number } = {}): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const event = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'c2', object: 'chat.completion.chunk', created: 1, model: 'fake', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  res.write(event({ role: 'assistant', content: '' }));
  for (let i = 0; i < pieces.length; i++) {
    if (opts.delayMs) await delay(opts.delayMs);
    if (res.destroyed) return;
    if (opts.failAfter !== undefined && i >= opts.failAfter) return void res.destroy();
    res.write(event({ content: pieces[i] }));
  }
  res.write(event({}, 'stop'));
  res.end('data: [DONE]\n\n');
}

/** Routes on the kind of call: the rewrite answers relevant with the last user text, the answer streams "ok [1]". */
export function defaultChat(call: ModelCall, res: ServerResponse): void | Promise<void> {
  if (call.body?.stream) return chatStream(res, ['ok ', '[1]']);
  const last = [...(call.body?.messages ?? [])].reverse().find((m: any) => m.role === 'user');
  return chatJson(res, JSON.stringify({ isRelevant: true, query: String(last?.content ?? '') }));
}

/** Reads a request's messages as one string (what the model was told). */
export const promptOf = (call: ModelCall): string => (call.body?.messages ?? []).map((m: any) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');

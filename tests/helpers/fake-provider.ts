import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createHash } from 'node:crypto';
import { estimateTokens } from '../../src/core/text/tokens.ts';
import { hashEmbed } from '../../src/embedding/hash.ts';

/**
 * A loopback embeddings provider for tests and benchmarks: a real node:http server on 127.0.0.1
 * answering with deterministic vectors (hashEmbed of each input). It speaks one wire format:
 * OpenAI-style POST /v1/embeddings (entries in reversed order with correct `index` fields, so
 * clients must sort), Ollama's POST /api/embed or text-embeddings-inference's POST /embed, errors
 * shaped as each server shapes them. Behaviours can be scripted per request, and request/token
 * limits can be enforced over a sliding window of any length.
 */
export type Behaviour =
  | { kind: 'ok' }
  | { kind: '429'; retryAfter?: string }
  | { kind: '500' }
  | { kind: '503' }
  | { kind: '401' }
  | { kind: '400' }
  /** Holds the response headers back this long (past the client's timeout). */
  | { kind: 'slow'; delayMs: number }
  | { kind: 'malformed' }
  | { kind: 'wrong-dims' }
  | { kind: 'wrong-count' }
  | { kind: 'nan' }
  /** A reply whose first vector is all zeros (norm 0). */
  | { kind: 'zero' }
  /** Headers at once, then the body one byte every `intervalMs`: never idle, never finished in time. */
  | { kind: 'trickle'; intervalMs: number }
  /** Valid JSON without the vectors where the format puts them. */
  | { kind: 'bad-shape' }
  /** An error status with the server's own message (Ollama: 404 "model … not found"). */
  | { kind: 'error'; status: number; message: string }
  /** A web page (a gateway's or proxy's) with this status, served as text/html unless `type` says otherwise. */
  | { kind: 'html'; status: number; body: string; type?: string }
  /** Destroys the socket without answering (connection reset). */
  | { kind: 'reset' };

export type FakeWire = 'openai' | 'ollama' | 'tei';

export interface FakeProviderOptions {
  dims: number;
  /** Request and reply format (default 'openai'). */
  wire?: FakeWire;
  /** Bearer token required; replies 401 (echoing the token, as careless providers do) otherwise. */
  apiKey?: string;
  /** Enforced like a provider would: 429 (no Retry-After) past either limit in the last windowMs. */
  limits?: { rpm?: number; tpm?: number; windowMs: number };
  /** Added before every normal reply. */
  latencyMs?: number;
  /**
   * 'hash' (default): hashEmbed of each input, so tests can check every stored vector.
   * 'digest': bytes of the input's sha256, far cheaper, so a benchmark measures the client, not this server.
   */
  vectors?: 'hash' | 'digest';
}

export interface SeenRequest {
  at: number;
  inputs: string[];
  status: number;
  behaviour: Behaviour['kind'];
  model: string;
  dimensions?: number;
  /** The parsed request body and Authorization header, as received. */
  body: unknown;
  auth: string | undefined;
}

export class FakeProvider {
  readonly requests: SeenRequest[] = [];
  /** Consumed one per request, before `fallback`. */
  private readonly script: Behaviour[] = [];
  /** What requests get once the script is used up. */
  fallback: Behaviour = { kind: 'ok' };
  /** Requests the enforced limits turned away. */
  limited = 0;
  /** Requests being handled right now, and the most there ever were at once. */
  active = 0;
  maxActive = 0;
  /** TCP connections clients opened (one HTTP client keeps one alive for sequential requests). */
  connections = 0;
  private readonly window: { at: number; tokens: number }[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly opts: FakeProviderOptions,
    readonly baseUrl: string,
  ) {}

  static async start(opts: FakeProviderOptions): Promise<FakeProvider> {
    let self: FakeProvider | undefined;
    const server = createServer((req, res) => void self!.handle(req, res));
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    self = new FakeProvider(server, opts, `http://127.0.0.1:${port}${(opts.wire ?? 'openai') === 'openai' ? '/v1' : ''}`);
    server.on('connection', (s) => {
      self!.connections++;
      self!.sockets.add(s);
      s.on('close', () => self!.sockets.delete(s));
    });
    return self;
  }

  /** Queues behaviours for the next requests, in order. */
  queue(...b: Behaviour[]): this {
    this.script.push(...b);
    return this;
  }

  /** Successful replies so far, and the inputs they carried. */
  get served(): SeenRequest[] {
    return this.requests.filter((r) => r.status === 200);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    try {
      await this.answer(req, res);
    } finally {
      this.active--;
    }
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'GET' && req.url === '/_stats') {
      // For a provider running in another process (the benchmark): what it saw, without the texts.
      const requests = this.requests.map((r) => ({ at: r.at, status: r.status, texts: r.inputs.length, tokens: r.inputs.reduce((n, t) => n + estimateTokens(t), 0) }));
      return this.reply(res, 200, { requests, limited: this.limited, maxActive: this.maxActive });
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const at = Date.now();
    const wire = this.opts.wire ?? 'openai';
    let body: { model?: string; input?: unknown; inputs?: unknown; dimensions?: number };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return this.reply(res, 400, errorBody(wire, 'request body is not JSON'));
    }
    const given = wire === 'tei' ? body.inputs : body.input;
    const inputs = Array.isArray(given) ? (given as string[]) : [String(given)];
    const seen: SeenRequest = {
      at,
      inputs,
      status: 0,
      behaviour: 'ok',
      model: String(body.model),
      dimensions: body.dimensions,
      body,
      auth: req.headers.authorization,
    };
    this.requests.push(seen);
    if (req.url !== ROUTES[wire] || req.method !== 'POST') {
      seen.status = 404;
      return this.reply(res, 404, errorBody(wire, `no route ${req.method} ${req.url}`));
    }
    const auth = req.headers.authorization ?? '';
    if (this.opts.apiKey && auth !== `Bearer ${this.opts.apiKey}`) {
      seen.status = 401;
      return this.reply(res, 401, errorBody(wire, `Incorrect API key provided: ${auth.replace(/^Bearer /, '')}`));
    }
    const b = this.script.shift() ?? this.fallback;
    seen.behaviour = b.kind;
    if (b.kind === 'ok' && this.overLimit(at, inputs)) {
      seen.status = 429;
      this.limited++;
      return this.reply(res, 429, errorBody(wire, 'rate limit exceeded'));
    }
    const envelope = (v: number[][], inp: string[]) => ENVELOPES[wire](v, inp);
    const vectors = () => inputs.map((t) => (this.opts.vectors === 'digest' ? digestVector(t, this.opts.dims) : Array.from(hashEmbed(t, this.opts.dims))));
    switch (b.kind) {
      case 'ok':
        if (this.opts.latencyMs) await sleep(this.opts.latencyMs);
        seen.status = 200;
        return this.reply(res, 200, envelope(vectors(), inputs));
      case '429':
        seen.status = 429;
        return this.reply(res, 429, errorBody(wire, 'too many requests'), b.retryAfter ? { 'retry-after': b.retryAfter } : {});
      case '500':
      case '503':
      case '401':
      case '400':
        seen.status = Number(b.kind);
        return this.reply(res, seen.status, errorBody(wire, `scripted ${b.kind}`));
      case 'error':
        seen.status = b.status;
        return this.reply(res, b.status, errorBody(wire, b.message));
      case 'bad-shape':
        seen.status = 200;
        return this.reply(res, 200, wire === 'tei' ? { embeddings: vectors() } : wire === 'ollama' ? { model: 'x', embedding: vectors()[0] } : { object: 'list' });
      case 'slow':
        await sleep(b.delayMs);
        seen.status = 200;
        if (!res.destroyed) this.reply(res, 200, envelope(vectors(), inputs));
        return;
      case 'malformed':
        seen.status = 200;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"data": [{"index": 0, "embedding": [0.1, ');
        return;
      case 'wrong-dims':
        seen.status = 200;
        return this.reply(res, 200, envelope(vectors().map((v) => v.slice(0, v.length - 1)), inputs));
      case 'wrong-count':
        seen.status = 200;
        return this.reply(res, 200, envelope(vectors().slice(1), inputs));
      case 'nan': {
        seen.status = 200;
        // JSON has no NaN: a provider bug would show as null or a string; the client must refuse both.
        const v = vectors();
        (v[0] as unknown[])[0] = null;
        return this.reply(res, 200, envelope(v, inputs));
      }
      case 'zero': {
        seen.status = 200;
        const v = vectors();
        v[0] = v[0]!.map(() => 0);
        return this.reply(res, 200, envelope(v, inputs));
      }
      case 'trickle': {
        seen.status = 200;
        const body = Buffer.from(JSON.stringify(envelope(vectors(), inputs)));
        let closed = false;
        res.on('close', () => (closed = true));
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
        for (let i = 0; i < body.length && !closed; i++) {
          res.write(body.subarray(i, i + 1));
          await sleep(b.intervalMs);
        }
        if (!closed) res.end();
        return;
      }
      case 'html':
        seen.status = b.status;
        res.writeHead(b.status, { 'content-type': b.type ?? 'text/html; charset=utf-8' });
        res.end(b.body);
        return;
      case 'reset':
        seen.status = -1;
        req.socket.destroy();
        return;
    }
  }

  /** Sliding window over accepted requests, like a provider's limiter. */
  private overLimit(at: number, inputs: string[]): boolean {
    const l = this.opts.limits;
    if (!l) return false;
    while (this.window.length && this.window[0]!.at <= at - l.windowMs) this.window.shift();
    const tokens = inputs.reduce((n, t) => n + estimateTokens(t), 0);
    const used = this.window.reduce((n, e) => n + e.tokens, 0);
    if (l.rpm !== undefined && this.window.length + 1 > l.rpm) return true;
    if (l.tpm !== undefined && used + tokens > l.tpm && this.window.length > 0) return true;
    this.window.push({ at, tokens });
    return false;
  }

  private reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }
}

const ROUTES: Record<FakeWire, string> = { openai: '/v1/embeddings', ollama: '/api/embed', tei: '/embed' };

const ENVELOPES: Record<FakeWire, (vectors: number[][], inputs: string[]) => unknown> = {
  openai(vectors, inputs) {
    const data = vectors.map((embedding, index) => ({ object: 'embedding', index, embedding }));
    data.reverse();
    const chars = inputs.reduce((n, t) => n + t.length, 0);
    return { object: 'list', model: 'fake', data, usage: { prompt_tokens: chars, total_tokens: chars } };
  },
  ollama: (vectors) => ({ model: 'fake', embeddings: vectors, total_duration: 1000, load_duration: 10, prompt_eval_count: vectors.length }),
  tei: (vectors) => vectors,
};

/** Errors as each server words them: OpenAI {error:{message}}, Ollama {error}, TEI {error, error_type}. */
function errorBody(wire: FakeWire, message: string): unknown {
  if (wire === 'ollama') return { error: message };
  if (wire === 'tei') return { error: message, error_type: 'Validation' };
  return { error: { message } };
}

function digestVector(text: string, dims: number): number[] {
  const d = createHash('sha256').update(text).digest();
  return Array.from({ length: dims }, (_, i) => (d[i % d.length]! - 127.5) / 128);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

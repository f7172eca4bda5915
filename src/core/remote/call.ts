import { setTimeout as delay } from 'node:timers/promises';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { redactUrl } from '../redact.ts';
import { readCapped, ReplyTooLarge } from '../read-capped.ts';
import { HttpClient } from './client.ts';
import { DeadlineError } from './deadline.ts';
import { blockApiKey } from './env.ts';
import { ProviderError } from './errors.ts';
import { checkReply } from './reply.ts';
import { DEFAULT_BACKOFF, transportError, withRetries, type BackoffOptions } from './retry.ts';

/**
 * One remote model endpoint as a config block describes it (`rerank`, `chat`; the embedder keeps
 * its own loop for rate limits and its circuit breaker but shares the client, retries and errors).
 */
export interface RemoteCallSettings {
  /** The config block, named in errors and hints: "rerank", "chat". */
  block: string;
  provider: string;
  model: string;
  /** The URL requests go to (postJson) or the API root (fetch). */
  url: string;
  apiKeyEnv: string | null;
  /** No response headers or body progress within this long: a timeout (retried). */
  timeoutMs: number;
  /** Whole request, first byte sent to last received. */
  deadlineMs: number;
  maxRetries: number;
  /** Longest reply read; a longer one is a broken peer. */
  maxReplyBytes: number;
}

export interface RemoteCallDeps {
  /** Where the key comes from (default: the environment / .env). */
  apiKey?: () => string | null;
  backoff?: Partial<BackoffOptions>;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** One line per retry. */
  log?: (line: string) => void;
}

const sleepFor = (ms: number, signal?: AbortSignal) => delay(ms, undefined, { signal });

/**
 * Calls to one remote model endpoint: retries with backoff (429, 5xx, resets, timeouts), a
 * whole-request deadline, a cap on the reply, and one-line errors that name the block, provider,
 * model and URL and never the key. `postJson` serves JSON request/reply APIs (rerankers); `fetch`
 * is handed to the AI SDK's providers, so chat requests get the same treatment while the SDK
 * speaks the protocol (its own retries are turned off).
 */
export class RemoteCall {
  /** "rerank dashscope gte-rerank-v2 at https://…": what errors name. */
  readonly label: string;
  private readonly backoff: BackoffOptions;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private client: HttpClient | null = null;
  private dispatcher: Dispatcher | null = null;
  private key: string | null | undefined;

  constructor(
    readonly settings: RemoteCallSettings,
    private readonly deps: RemoteCallDeps = {},
  ) {
    this.label = `${settings.block} ${settings.provider} ${settings.model} at ${redactUrl(settings.url)}`;
    this.backoff = { ...DEFAULT_BACKOFF, ...deps.backoff };
    this.sleep = deps.sleep ?? sleepFor;
  }

  /** The API key; a missing one that the block names is a configuration error. */
  apiKey(): string | null {
    if (this.key === undefined) this.key = blockApiKey(this.settings.block, this.settings.apiKeyEnv, this.deps.apiKey);
    return this.key;
  }

  /** POSTs `body` as JSON to the URL and returns the parsed reply, retried; throws a ProviderError. */
  async postJson(body: unknown, signal?: AbortSignal): Promise<unknown> {
    const s = this.settings;
    const key = this.apiKey();
    this.client ??= new HttpClient(s.url, { timeoutMs: s.timeoutMs, deadlineMs: s.deadlineMs, connections: 4, maxReplyBytes: s.maxReplyBytes, setting: `${s.block}.deadlineMs` });
    const client = this.client;
    return this.retrying(signal, async () => {
      const reply = await client.post(body, key, signal);
      checkReply(reply, this.label, key, s.block);
      try {
        return JSON.parse(reply.body) as unknown;
      } catch {
        throw new ProviderError(`${this.label}: malformed JSON in response (${reply.body.length} bytes)`, true);
      }
    });
  }

  /**
   * A fetch for the AI SDK: adds the key, retries a refused or failed request before any of its
   * reply is used, bounds the headers and each pause in the body by timeoutMs, the whole exchange
   * (a streamed answer too) by deadlineMs and the reply by maxReplyBytes, and turns a final non-2xx
   * into a ProviderError. Requests go over this call's own keep-alive connections (undici's
   * request API: a third of fetch's cost per call), which `close` ends.
   */
  readonly fetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const s = this.settings;
    const key = this.apiKey();
    const outer = init.signal ?? undefined;
    const deadline = AbortSignal.timeout(s.deadlineMs);
    const whole = outer ? AbortSignal.any([outer, deadline]) : deadline;
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((v, k) => (headers[k] = v));
    if (key) headers.authorization = `Bearer ${key}`;
    const url = new URL(typeof input === 'string' || input instanceof URL ? String(input) : input.url);
    const agent = await this.agent();
    const fail = (err: unknown): never => {
      if (outer?.aborted) throw err;
      if (deadline.aborted) throw transportError(new DeadlineError(s.deadlineMs, `${s.block}.deadlineMs`), this.label);
      if ((err as { code?: string }).code === 'UND_ERR_HEADERS_TIMEOUT') {
        throw new ProviderError(`${this.label}: timed out: no response headers within ${s.timeoutMs} ms (${s.block}.timeoutMs)`, true);
      }
      throw transportError(err, this.label);
    };
    return this.retrying(outer, async () => {
      let res: Dispatcher.ResponseData;
      try {
        res = await agent.request({ origin: url.origin, path: url.pathname + url.search, method: (init.method ?? 'GET') as Dispatcher.HttpMethod, headers, body: init.body as string | null, signal: whole });
      } catch (err) {
        return fail(err);
      }
      const h = new Headers();
      for (const [k, v] of Object.entries(res.headers)) for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) h.append(k, one);
      // A refusal, or a web page where the API belongs (a proxy's, a login page), is read and said in one line.
      if (res.statusCode < 200 || res.statusCode > 299 || /\b(text\/html|application\/xhtml\+xml)\b/i.test(h.get('content-type') ?? '')) {
        const text = await readCapped(res.body, 64 * 1024).catch(() => '');
        const flat: Record<string, string> = {};
        h.forEach((v, k) => (flat[k] = v));
        checkReply({ status: res.statusCode, headers: flat, body: text }, this.label, key, s.block);
      }
      const empty = [101, 204, 205, 304].includes(res.statusCode);
      if (empty) res.body.destroy();
      return new Response(empty ? null : guardBody(res.body, s, this.label, whole, deadline), { status: res.statusCode, headers: h });
    });
  };

  /** The connections `fetch` uses, made on first use (a process that never chats loads no undici). */
  private async agent(): Promise<Dispatcher> {
    const s = this.settings;
    this.dispatcher ??= new (await import('undici')).Agent({
      connections: 8,
      keepAliveTimeout: 30_000,
      headersTimeout: s.timeoutMs,
      bodyTimeout: s.timeoutMs,
      connect: { timeout: Math.min(s.timeoutMs, 30_000) },
    });
    return this.dispatcher;
  }

  private retrying<T>(signal: AbortSignal | undefined, attempt: () => Promise<T>): Promise<T> {
    const policy = { maxRetries: this.settings.maxRetries, label: this.label, backoff: this.backoff, sleep: this.sleep };
    return withRetries({ ...policy, onRetry: (f, n, wait) => this.deps.log?.(`${f.message}; retry ${n + 1} in ${wait} ms`) }, signal, attempt);
  }

  /** Ends this call's connections; requests still in flight are aborted. */
  async close(): Promise<void> {
    const c = this.client;
    const d = this.dispatcher;
    this.client = null;
    this.dispatcher = null;
    await Promise.all([c?.close(), d?.destroy()]);
  }
}

/**
 * The reply body as a web stream, with the deadline and the size cap applied as it is read (the
 * pauses between its bytes are bounded by the connection's bodyTimeout): a streamed answer that
 * stalls, trickles past the deadline or never ends fails with one line.
 */
function guardBody(body: Readable, s: RemoteCallSettings, label: string, whole: AbortSignal, deadline: AbortSignal): ReadableStream<Uint8Array> {
  const chunks = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let bytes = 0;
  let out: ReadableStreamDefaultController<Uint8Array>;
  const fail = (err: unknown) => {
    whole.removeEventListener('abort', onAbort);
    body.destroy();
    try {
      out.error(err);
    } catch {
      // already closed or errored
    }
  };
  const timedOut = () => new ProviderError(`${label}: timed out: ${new DeadlineError(s.deadlineMs, `${s.block}.deadlineMs`).message}`, true);
  const onAbort = () => fail(deadline.aborted ? timedOut() : whole.reason);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      out = controller;
      if (whole.aborted) onAbort();
      else whole.addEventListener('abort', onAbort, { once: true });
    },
    async pull(controller) {
      try {
        const r = await chunks.next();
        if (r.done) {
          whole.removeEventListener('abort', onAbort);
          return controller.close();
        }
        bytes += r.value.byteLength;
        if (bytes > s.maxReplyBytes) return fail(new ProviderError(`${label}: ${new ReplyTooLarge(s.maxReplyBytes).message}`, false));
        controller.enqueue(new Uint8Array(r.value.buffer, r.value.byteOffset, r.value.byteLength));
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (deadline.aborted) fail(timedOut());
        else if (code === 'UND_ERR_BODY_TIMEOUT') fail(new ProviderError(`${label}: timed out: no reply bytes for ${s.timeoutMs} ms (${s.block}.timeoutMs)`, true));
        else fail(whole.aborted ? whole.reason : err);
      }
    },
    cancel() {
      whole.removeEventListener('abort', onAbort);
      body.destroy();
    },
  });
}

import { setTimeout as delay } from 'node:timers/promises';
import { RagsyncError, EXIT } from '../errors.ts';
import { redactUrl } from '../redact.ts';
import { ReplyTooLarge } from '../read-capped.ts';
import { HttpClient } from './client.ts';
import { DeadlineError } from './deadline.ts';
import { readApiKey } from './env.ts';
import { ProviderError } from './errors.ts';
import { checkReply } from './reply.ts';
import { backoffMs, DEFAULT_BACKOFF, transportError, type BackoffOptions } from './retry.ts';

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
    if (this.key !== undefined) return this.key;
    const env = this.settings.apiKeyEnv;
    const key = this.deps.apiKey ? this.deps.apiKey() : env ? readApiKey(env) : null;
    if (env && !key) throw new RagsyncError(`${this.settings.block}.apiKeyEnv: environment variable ${env} is not set (set it, or put it in .env)`, EXIT.usage);
    return (this.key = key);
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
   * reply is used, bounds the headers by timeoutMs, the whole exchange (a streamed answer too) by
   * deadlineMs and the reply by maxReplyBytes, and turns a final non-2xx into a ProviderError.
   */
  readonly fetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const s = this.settings;
    const key = this.apiKey();
    const outer = init.signal ?? undefined;
    const deadline = AbortSignal.timeout(s.deadlineMs);
    const whole = outer ? AbortSignal.any([outer, deadline]) : deadline;
    const headers = new Headers(init.headers);
    if (key) headers.set('authorization', `Bearer ${key}`);
    const url = typeof input === 'string' || input instanceof URL ? String(input) : input.url;
    const fail = (err: unknown): never => {
      if (outer?.aborted) throw err;
      throw transportError(deadline.aborted ? new DeadlineError(s.deadlineMs, `${s.block}.deadlineMs`) : err, this.label);
    };
    return this.retrying(outer, async () => {
      const headersTimeout = AbortSignal.timeout(s.timeoutMs);
      let res: Response;
      try {
        res = await fetch(url, { ...init, headers, signal: AbortSignal.any([whole, headersTimeout]) });
      } catch (err) {
        if (headersTimeout.aborted && !whole.aborted) throw new ProviderError(`${this.label}: timed out: no response headers within ${s.timeoutMs} ms (${s.block}.timeoutMs)`, true);
        return fail(err);
      }
      // A refusal, or a web page where the API belongs (a proxy's, a login page), is read and said in one line.
      if (!res.ok || /\b(text\/html|application\/xhtml\+xml)\b/i.test(res.headers.get('content-type') ?? '')) {
        const text = await res.text().catch(() => '');
        const h: Record<string, string> = {};
        res.headers.forEach((v, k) => (h[k] = v));
        checkReply({ status: res.status, headers: h, body: text.slice(0, 64 * 1024) }, this.label, key, s.block);
      }
      return new Response(res.body ? guardBody(res.body, s, this.label, whole, deadline) : null, { status: res.status, statusText: res.statusText, headers: res.headers });
    });
  };

  private async retrying<T>(signal: AbortSignal | undefined, attempt: () => Promise<T>): Promise<T> {
    for (let n = 0; ; n++) {
      let failure: ProviderError;
      try {
        return await attempt();
      } catch (err) {
        if (signal?.aborted) throw err;
        failure = err instanceof ProviderError ? err : transportError(err, this.label);
      }
      if (!failure.retryable) throw failure;
      if (n >= this.settings.maxRetries) throw new ProviderError(`${failure.message} (gave up after ${n + 1} attempts)`, false, failure.status);
      const wait = backoffMs(n, failure.retryAfterMs, this.backoff);
      this.deps.log?.(`${failure.message}; retry ${n + 1} in ${wait} ms`);
      await this.sleep(wait, signal);
    }
  }

  async close(): Promise<void> {
    const c = this.client;
    this.client = null;
    await c?.close();
  }
}

/**
 * The reply body with the idle timeout, the deadline and the size cap applied as it is read: a
 * streamed answer that stalls, trickles past the deadline or never ends fails with one line.
 */
function guardBody(body: ReadableStream<Uint8Array>, s: RemoteCallSettings, label: string, whole: AbortSignal, deadline: AbortSignal): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let bytes = 0;
  let out: ReadableStreamDefaultController<Uint8Array>;
  const fail = (err: unknown) => {
    void reader.cancel().catch(() => {});
    try {
      out.error(err);
    } catch {
      // already closed or errored
    }
  };
  const onAbort = () =>
    fail(deadline.aborted ? new ProviderError(`${label}: timed out: ${new DeadlineError(s.deadlineMs, `${s.block}.deadlineMs`).message}`, true) : whole.reason);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      out = controller;
      if (whole.aborted) onAbort();
      else whole.addEventListener('abort', onAbort, { once: true });
    },
    async pull(controller) {
      const timer = setTimeout(() => fail(new ProviderError(`${label}: timed out: no reply bytes for ${s.timeoutMs} ms (${s.block}.timeoutMs)`, true)), s.timeoutMs);
      try {
        const r = await reader.read();
        if (r.done) {
          whole.removeEventListener('abort', onAbort);
          return controller.close();
        }
        bytes += r.value.byteLength;
        if (bytes > s.maxReplyBytes) return fail(new ProviderError(`${label}: ${new ReplyTooLarge(s.maxReplyBytes).message}`, false));
        controller.enqueue(r.value);
      } catch (err) {
        fail(err);
      } finally {
        clearTimeout(timer);
      }
    },
    cancel(reason) {
      whole.removeEventListener('abort', onAbort);
      return reader.cancel(reason);
    },
  });
}

import { ProviderError } from './errors.ts';
import { DeadlineError } from './deadline.ts';
import { ReplyTooLarge } from '../read-capped.ts';

export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  /** 0..1, injectable so tests see exact delays. */
  random: () => number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 30_000, random: Math.random };

/**
 * Delay before retry number `attempt` (0-based). The provider's Retry-After wins (plus up to 10%
 * jitter so parallel clients do not return in lockstep); otherwise exponential with "equal jitter":
 * half the step fixed, half random.
 */
export function backoffMs(attempt: number, retryAfterMs: number | null, o: BackoffOptions = DEFAULT_BACKOFF): number {
  if (retryAfterMs !== null) return Math.ceil(retryAfterMs * (1 + 0.1 * o.random()));
  const step = Math.min(o.maxMs, o.baseMs * 2 ** attempt);
  return Math.ceil(step / 2 + (step / 2) * o.random());
}

/**
 * Retry-After as ms: delta-seconds (fractions allowed) or an HTTP date; `retry-after-ms` (OpenAI)
 * is preferred when present. Null when absent or unreadable. Capped at 10 minutes.
 */
export function parseRetryAfter(headers: Record<string, string | string[] | undefined>, now = Date.now()): number | null {
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)?.trim();
  const ms = one(headers['retry-after-ms']);
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.min(Number(ms), 600_000);
  const ra = one(headers['retry-after']);
  if (!ra) return null;
  if (/^\d+(\.\d+)?$/.test(ra)) return Math.min(Number(ra) * 1000, 600_000);
  const at = Date.parse(ra);
  return Number.isNaN(at) ? null : Math.min(Math.max(0, at - now), 600_000);
}

/** Connection-level failures worth another try: timeouts, resets, refused connections, closed sockets. */
const RETRYABLE_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/** A thrown transport error as a ProviderError (the caller has already handled its own abort). */
export function transportError(err: unknown, label: string): ProviderError {
  if (err instanceof DeadlineError) return new ProviderError(`${label}: timed out: ${err.message}`, true);
  // Not retried: the same batch would bring the same flood again.
  if (err instanceof ReplyTooLarge) return new ProviderError(`${label}: ${err.message}`, false);
  const e = err as { code?: string; message?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code ?? '';
  const what = /TIMEOUT/.test(code) ? 'timed out' : code ? `connection failed (${code})` : `request failed: ${e.message ?? String(err)}`;
  return new ProviderError(`${label}: ${what}`, RETRYABLE_CODES.has(code) || !code);
}

/** How a remote call is retried: its limit and backoff, and what the caller does around each try. */
export interface RetryPolicy {
  maxRetries: number;
  /** Names the endpoint in errors ("chat openai qwen-plus at …"). */
  label: string;
  backoff: BackoffOptions;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Before each try, outside it: what throws here (an open circuit) is not retried. */
  before?: () => void;
  /** Each retryable failure, retried or not (a circuit breaker counts them; it may throw instead). */
  onFailure?: (failure: ProviderError) => void;
  /** Before waiting `waitMs` for try number `attempt + 2`. */
  onRetry?: (failure: ProviderError, attempt: number, waitMs: number) => void;
}

/**
 * Runs `attempt` until it succeeds, a failure is not retryable (400, 401, a reply too large), the
 * caller's signal aborts, or `maxRetries` retries have failed; waits between tries by backoffMs (the
 * provider's Retry-After first). The one retry loop of every remote call: chat, rerank, embedder.
 */
export async function withRetries<T>(o: RetryPolicy, signal: AbortSignal | undefined, attempt: () => Promise<T>): Promise<T> {
  for (let n = 0; ; n++) {
    o.before?.();
    let failure: ProviderError;
    try {
      return await attempt();
    } catch (err) {
      if (signal?.aborted) throw err;
      failure = err instanceof ProviderError ? err : transportError(err, o.label);
    }
    if (!failure.retryable) throw failure;
    o.onFailure?.(failure);
    if (n >= o.maxRetries) throw new ProviderError(`${failure.message} (gave up after ${n + 1} attempts)`, false, failure.status);
    const wait = backoffMs(n, failure.retryAfterMs, o.backoff);
    o.onRetry?.(failure, n, wait);
    await o.sleep(wait, signal);
  }
}

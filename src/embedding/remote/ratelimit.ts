import type { Logger } from 'pino';
import { silentLogger } from '../../util/log.ts';

export interface RateLimitOptions {
  /** Requests per window; null = unlimited. */
  rpm: number | null;
  /** Estimated tokens per window; null = unlimited. */
  tpm: number | null;
  /** Requests in flight at once. */
  concurrency: number;
  /** Window length: one minute in production, shorter in tests and benchmarks. */
  windowMs?: number;
  /**
   * Extra time an entry stays counted, so the provider — which sees each request a little later
   * than we send it — never counts one more than its limit. Default 2% of the window.
   */
  marginMs?: number;
  log?: Logger;
  /** Names the embedder in log lines. */
  label?: string;
}

type Limit = 'rpm' | 'tpm' | 'retry-after';

interface Waiter {
  tokens: number;
  resolve: (release: () => void) => void;
  reject: (err: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/**
 * Sliding-window limits over requests and estimated tokens plus a concurrency cap, first come
 * first served. acquire() resolves with a release function once a request may go out; the grant is
 * counted in the windows at that moment. When a window holds a request back the limiter logs once
 * (which limit, when it expects to resume) and once more on resuming.
 */
export class RateLimiter {
  readonly windowMs: number;
  private readonly marginMs: number;
  private readonly log: Logger;
  private sent: { at: number; tokens: number }[] = [];
  private sentTokens = 0;
  private inFlight = 0;
  private readonly waiters: Waiter[] = [];
  private timer: NodeJS.Timeout | null = null;
  private throttled: { limit: Limit; since: number } | null = null;
  private holdUntil = 0;
  /** Times a window (not the concurrency cap) held a request back: for tests and the bench. */
  throttleCount = 0;

  constructor(private readonly o: RateLimitOptions) {
    this.windowMs = o.windowMs ?? 60_000;
    this.marginMs = o.marginMs ?? Math.ceil(this.windowMs * 0.02);
    this.log = o.log ?? silentLogger;
  }

  acquire(tokens: number, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const w: Waiter = { tokens, resolve, reject, signal };
      if (signal) {
        w.onAbort = () => {
          const i = this.waiters.indexOf(w);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(signal.reason);
          this.pump();
        };
        signal.addEventListener('abort', w.onAbort, { once: true });
      }
      this.waiters.push(w);
      this.pump();
    });
  }

  /** The provider said "retry after": nobody goes out before `untilMs` (epoch ms). */
  hold(untilMs: number): void {
    if (untilMs > this.holdUntil) this.holdUntil = untilMs;
    this.pump();
  }

  private release = (): void => {
    this.inFlight--;
    this.pump();
  };

  private prune(now: number): void {
    const horizon = now - this.windowMs - this.marginMs;
    let i = 0;
    while (i < this.sent.length && this.sent[i]!.at <= horizon) this.sentTokens -= this.sent[i++]!.tokens;
    if (i) this.sent.splice(0, i);
  }

  /** How long the next request must wait for the windows, and which one holds it; null = may go now. */
  private wait(tokens: number, now: number): { ms: number; limit: Limit } | null {
    const expiry = (i: number) => this.sent[i]!.at + this.windowMs + this.marginMs - now;
    let best: { ms: number; limit: Limit } | null = null;
    const consider = (ms: number, limit: Limit) => {
      if (ms > 0 && (!best || ms > best.ms)) best = { ms, limit };
    };
    if (this.holdUntil > now) consider(this.holdUntil - now, 'retry-after');
    const { rpm, tpm } = this.o;
    if (rpm !== null && this.sent.length >= rpm) consider(expiry(this.sent.length - rpm), 'rpm');
    if (tpm !== null && this.sent.length && this.sentTokens + tokens > tpm) {
      // Oldest entries must leave until this one fits (a request over the whole budget goes alone).
      let sum = this.sentTokens;
      let i = 0;
      while (i < this.sent.length - 1 && sum + tokens > tpm) sum -= this.sent[i++]!.tokens;
      consider(sum + tokens > tpm ? expiry(this.sent.length - 1) : expiry(i - 1), 'tpm');
    }
    return best;
  }

  private pump(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const now = Date.now();
    this.prune(now);
    while (this.waiters.length && this.inFlight < this.o.concurrency) {
      const w = this.waiters[0]!;
      const wait = this.wait(w.tokens, now);
      if (wait) {
        if (!this.throttled) {
          this.throttled = { limit: wait.limit, since: now };
          this.throttleCount++;
          this.log.info(
            { embedder: this.o.label, limit: wait.limit, resumeAt: new Date(now + wait.ms).toISOString() },
            'rate limit reached: waiting',
          );
        }
        this.timer = setTimeout(() => this.pump(), wait.ms);
        return;
      }
      if (this.throttled) {
        this.log.info({ embedder: this.o.label, limit: this.throttled.limit, waitedMs: now - this.throttled.since }, 'rate limit: resuming');
        this.throttled = null;
      }
      this.waiters.shift();
      if (w.onAbort) w.signal!.removeEventListener('abort', w.onAbort);
      this.inFlight++;
      this.sent.push({ at: now, tokens: w.tokens });
      this.sentTokens += w.tokens;
      let released = false;
      w.resolve(() => {
        if (!released) {
          released = true;
          this.release();
        }
      });
    }
  }
}

import type { Logger } from 'pino';
import { silentLogger } from '../../core/log.ts';

export interface RateLimitOptions {
  /** Requests per window; null = unlimited. */
  rpm: number | null;
  /** Estimated tokens per window; null = unlimited. */
  tpm: number | null;
  /** Requests in flight at once. */
  concurrency: number;
  /** Window length: one minute in production, shorter in tests and benchmarks. */
  windowMs?: number;
  /** Extra time an entry stays counted after its request completed (default 0). */
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
 * first served. acquire() resolves with a release function once a request may go out. A request
 * counts in the windows from its grant, and its window time is its *completion* (release): the
 * provider saw it at some moment in between, so counting from the later end can never put one
 * more request into the provider's window than the limit, whatever the network latency (it costs
 * latency/window of throughput). When a window holds a request back the limiter logs once (which
 * limit, when it expects to resume) and once more on resuming.
 */
export class RateLimiter {
  readonly windowMs: number;
  private readonly marginMs: number;
  private readonly log: Logger;
  /** Requests in the window; `at` is Infinity while in flight (it cannot expire before it completes). */
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
    this.marginMs = o.marginMs ?? 0;
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

  private prune(now: number): void {
    const horizon = now - this.windowMs - this.marginMs;
    if (!this.sent.some((e) => e.at <= horizon)) return;
    this.sent = this.sent.filter((e) => e.at > horizon);
    this.sentTokens = this.sent.reduce((n, e) => n + e.tokens, 0);
  }

  /** How long the next request must wait for the windows, and which one holds it; null = may go now. */
  private wait(tokens: number, now: number): { ms: number; limit: Limit } | null {
    // Oldest first; in-flight entries (Infinity) last. A wait of Infinity means "until a release".
    const sent = [...this.sent].sort((a, b) => a.at - b.at);
    const expiry = (i: number) => sent[i]!.at + this.windowMs + this.marginMs - now;
    let best: { ms: number; limit: Limit } | null = null;
    const consider = (ms: number, limit: Limit) => {
      if (ms > 0 && (!best || ms > best.ms)) best = { ms, limit };
    };
    if (this.holdUntil > now) consider(this.holdUntil - now, 'retry-after');
    const { rpm, tpm } = this.o;
    if (rpm !== null && sent.length >= rpm) consider(expiry(sent.length - rpm), 'rpm');
    if (tpm !== null && sent.length && this.sentTokens + tokens > tpm) {
      // Oldest entries must leave until this one fits (a request over the whole budget goes alone).
      let sum = this.sentTokens;
      let i = 0;
      while (i < sent.length && sum + tokens > tpm) sum -= sent[i++]!.tokens;
      consider(expiry(i - 1), 'tpm');
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
            { embedder: this.o.label, limit: wait.limit, resumeAt: Number.isFinite(wait.ms) ? new Date(now + wait.ms).toISOString() : 'after a request in flight completes' },
            'rate limit reached: waiting',
          );
        }
        // Infinity: the window is full of requests still in flight; their release pumps again.
        if (Number.isFinite(wait.ms)) this.timer = setTimeout(() => this.pump(), wait.ms);
        return;
      }
      if (this.throttled) {
        this.log.info({ embedder: this.o.label, limit: this.throttled.limit, waitedMs: now - this.throttled.since }, 'rate limit: resuming');
        this.throttled = null;
      }
      this.waiters.shift();
      if (w.onAbort) w.signal!.removeEventListener('abort', w.onAbort);
      this.inFlight++;
      const entry = { at: Infinity, tokens: w.tokens };
      this.sent.push(entry);
      this.sentTokens += w.tokens;
      w.resolve(() => {
        if (entry.at !== Infinity) return;
        entry.at = Date.now();
        this.inFlight--;
        this.pump();
      });
    }
  }
}

/** Consecutive throttled answers from a host wait at least 1 s, 2 s, 4 s … (or longer when it asks). */
const BACKOFF_MS = 1000;

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

/**
 * When the crawl may send its next request: every request a crawl delay after the one before,
 * and none to a host before the time it asked to be left alone until (429/503 Retry-After, else
 * an exponential backoff). A host that asks for more than the crawl will wait (its cap, or past
 * its deadline) is stopped: no further request goes to it this run.
 */
export class RequestGate {
  private lastSlot = 0;
  private readonly until = new Map<string, number>();
  private readonly strikes = new Map<string, number>();
  private readonly stopped = new Map<string, string>();

  constructor(
    private readonly o: { delayMs: () => number; maxWaitMs: number; deadlineAt: number; signal?: AbortSignal },
  ) {}

  /** Why a host gets no more requests this run (null: it does). */
  stoppedWhy = (host: string): string | null => this.stopped.get(host) ?? null;

  /** Waits for the host's next slot; false when the host is stopped (or the run is). */
  async acquire(host: string): Promise<boolean> {
    for (;;) {
      if (this.stopped.has(host) || this.o.signal?.aborted) return false;
      const now = Date.now();
      const slot = Math.max(now, this.lastSlot + this.o.delayMs(), this.until.get(host) ?? 0);
      if (slot <= now) {
        this.lastSlot = now;
        return true;
      }
      // Checked again after waiting: another answer may have pushed the host's wait further.
      await sleep(slot - now, this.o.signal);
    }
  }

  /** An answer that was not a throttle: the host's backoff starts over. */
  answered(host: string): void {
    this.strikes.delete(host);
  }

  /**
   * A 429 or 503: the host gets no request for its Retry-After (at least the backoff). Returns
   * false, and stops the host, when that wait is more than the crawl takes.
   */
  throttled(host: string, retryAfterMs: number | null, status: number): boolean {
    const strikes = this.strikes.get(host) ?? 0;
    this.strikes.set(host, strikes + 1);
    const wait = Math.max(retryAfterMs ?? 0, Math.min(BACKOFF_MS * 2 ** strikes, this.o.maxWaitMs));
    const secs = (ms: number) => `${Math.ceil(ms / 1000)} s`;
    const asked = retryAfterMs === null ? `no Retry-After (backoff ${secs(wait)})` : wait > retryAfterMs ? `Retry-After ${secs(retryAfterMs)} (backoff ${secs(wait)})` : `Retry-After ${secs(retryAfterMs)}`;
    if (wait > this.o.maxWaitMs) {
      this.stopped.set(host, `${host} answered ${status} with ${asked}, more than maxRetryAfterMs (${this.o.maxWaitMs} ms): no more requests to it this run`);
      return false;
    }
    if (Date.now() + wait > this.o.deadlineAt) {
      this.stopped.set(host, `${host} answered ${status} with ${asked}, past the crawl's deadline: no more requests to it this run`);
      return false;
    }
    this.until.set(host, Math.max(this.until.get(host) ?? 0, Date.now() + wait));
    return true;
  }
}

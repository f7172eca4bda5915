/**
 * A whole-request deadline. undici's headersTimeout/bodyTimeout only catch a silent peer: a
 * provider that sends one byte a second is never idle and would hold a run (and the index lock)
 * for as long as it likes. The deadline bounds the request from first byte sent to last received.
 */
export class DeadlineError extends Error {
  readonly code = 'RAGSYNC_DEADLINE';
  constructor(
    readonly ms: number,
    setting: string,
  ) {
    super(`no complete response within ${ms} ms (${setting})`);
    this.name = 'DeadlineError';
  }
}

/**
 * Runs `fn` with a signal that aborts when the caller's does or when `ms` have passed; a deadline
 * abort comes out as a DeadlineError, a caller's abort as whatever `fn` threw.
 */
export async function withDeadline<T>(
  ms: number,
  setting: string,
  signal: AbortSignal | undefined,
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const deadline = AbortSignal.timeout(ms);
  try {
    return await fn(signal ? AbortSignal.any([signal, deadline]) : deadline);
  } catch (err) {
    if (deadline.aborted && !signal?.aborted) throw new DeadlineError(ms, setting);
    throw err;
  }
}

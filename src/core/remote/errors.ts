import { RagsyncError, EXIT } from '../errors.ts';

/**
 * A provider call that failed. `retryable` says whether trying the same batch again can help
 * (429, 5xx, resets, timeouts, malformed responses) or not (400/401/403, wrong dimension).
 * The message is one line and never carries the API key.
 */
export class ProviderError extends RagsyncError {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status: number | null = null,
    /** The provider's Retry-After, in ms. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message, EXIT.failed);
    this.name = 'ProviderError';
  }
}

/** Thrown when too many requests in a row failed: the run stops instead of hammering a provider that is down. */
export class CircuitOpenError extends RagsyncError {
  constructor(message: string) {
    super(message, EXIT.failed);
    this.name = 'CircuitOpenError';
  }
}

/** Blanks the key, bearer tokens and key-shaped strings out of a provider message; one line, bounded length. */
export function redactSecret(text: string, key: string | null): string {
  let out = text;
  if (key) out = out.split(key).join('[redacted]');
  out = out
    .replace(/Bearer\s+[^\s"',;]+/gi, 'Bearer [redacted]')
    .replace(/\bsk-[A-Za-z0-9_-]{6,}/g, 'sk-[redacted]')
    .replace(/\s+/g, ' ')
    .trim();
  return out.length > 300 ? out.slice(0, 300) + '…' : out;
}

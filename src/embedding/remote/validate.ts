import { ProviderError, redactSecret } from './errors.ts';
import type { HttpReply } from './client.ts';
import { parseRetryAfter } from './retry.ts';
import { WIRE_FORMATS, type WireFormat } from './wire.ts';
import { isZeroVector } from './vector-checks.ts';

/** The provider's own words from an error body ({error:{message}}, {message}, {error:"…"}), else the raw start. */
function providerMessage(body: string): string {
  try {
    const j = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown; msg?: unknown };
    const m = typeof j.error === 'string' ? j.error : (j.error?.message ?? j.message ?? j.msg);
    if (typeof m === 'string' && m) return m;
  } catch {
    // not JSON: fall through to the raw text
  }
  return body || '(empty body)';
}

const retryableStatus = (s: number) => s === 408 || s === 409 || s === 425 || s === 429 || s >= 500;

function header(reply: HttpReply, name: string): string {
  const v = reply.headers[name];
  return (Array.isArray(v) ? v.join(', ') : v) ?? '';
}

const HTML_START = /^\s*(<!doctype html|<html|<head|<body|<title)\b/i;

/**
 * A web page where the API's JSON belongs: a proxy, gateway or login page, or a base URL that points
 * at a site rather than the API. Said as such, with the start of the page, rather than as bad JSON.
 * A page served with a success status is what that address serves, so it is not retried.
 */
function htmlError(reply: HttpReply, label: string, apiKey: string | null): ProviderError | null {
  const type = header(reply, 'content-type');
  if (!/\b(text\/html|application\/xhtml\+xml)\b/i.test(type) && !HTML_START.test(reply.body)) return null;
  const start = redactSecret(reply.body.slice(0, 4096), apiKey).slice(0, 80);
  const s = reply.status;
  const retryable = retryableStatus(s);
  return new ProviderError(
    `${label}: got an HTML page instead of JSON (HTTP ${s}, content-type ${type || 'not given'}): ${JSON.stringify(start)}` +
      (s >= 200 && s <= 299 ? ' (check embedder.baseUrl: it should be the API, not a web page)' : ''),
    retryable,
    s,
    retryable ? parseRetryAfter(reply.headers) : null,
  );
}

/** Throws unless the reply is a 2xx that is not a web page; parseVectors then checks its JSON. */
export function checkReply(reply: HttpReply, label: string, apiKey: string | null): void {
  const html = htmlError(reply, label, apiKey);
  if (html) throw html;
  if (reply.status < 200 || reply.status > 299) throw statusError(reply, label, apiKey);
}

/** Turns a non-2xx reply into a ProviderError: 408/409/425/429/5xx are retried, the rest fail at once. */
export function statusError(reply: HttpReply, label: string, apiKey: string | null): ProviderError {
  const s = reply.status;
  const retryable = retryableStatus(s);
  const hint = s === 401 || s === 403 ? ' (check the API key in the environment variable named by embedder.apiKeyEnv)' : '';
  const msg = redactSecret(providerMessage(reply.body), apiKey);
  return new ProviderError(`${label}: HTTP ${s}: ${msg}${hint}`, retryable, s, retryable ? parseRetryAfter(reply.headers) : null);
}

/**
 * Checks a 2xx embeddings reply and returns one vector per input, in input order. Rejects the whole
 * batch — so nothing of it is stored — unless there is exactly one entry per input (indices cover
 * 0..n-1 once each where the format numbers them), every vector has `dims` entries and every entry
 * is a finite number. A wrong dimension is a configuration mismatch (not retried); the rest may be
 * a glitch (retried). With `dims` null (not configured, being detected) every vector must have the
 * size of the first.
 */
export function parseVectors(body: string, n: number, dims: number | null, label: string, wire: WireFormat = WIRE_FORMATS.openai): Float32Array[] {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new ProviderError(`${label}: malformed JSON in response (${body.length} bytes)`, true);
  }
  const list = wire.vectors(json, n, label);
  const size = dims ?? (Array.isArray(list[0]) ? list[0].length : 0);
  return list.map((e, index) => {
    if (!Array.isArray(e)) throw new ProviderError(`${label}: entry ${index} has no embedding array; batch rejected`, true);
    if (dims === null && e.length !== size) {
      throw new ProviderError(`${label}: vectors of ${size} and ${e.length} dimensions in one reply; batch rejected`, true);
    }
    if (e.length !== size) {
      throw new ProviderError(`${label}: got ${e.length}-dimensional vectors, config says dimensions ${dims}; batch rejected`, false);
    }
    if (size === 0) throw new ProviderError(`${label}: empty vector in response; batch rejected`, true);
    const v = new Float32Array(size);
    for (let k = 0; k < size; k++) {
      const x = e[k];
      if (typeof x !== 'number' || !Number.isFinite(x)) {
        throw new ProviderError(`${label}: non-finite value in vector ${index}; batch rejected`, true);
      }
      v[k] = x; // a double beyond float32 range would become Infinity: checked below
      if (!Number.isFinite(v[k]!)) throw new ProviderError(`${label}: value out of float32 range in vector ${index}; batch rejected`, true);
    }
    // An all-zero vector has no direction: cosine against it is NaN, so it would rank nowhere or
    // everywhere. It is a provider fault like NaN, not a vector to keep.
    if (isZeroVector(v)) throw new ProviderError(`${label}: zero vector (norm 0) for input ${index}; batch rejected`, true);
    return v;
  });
}

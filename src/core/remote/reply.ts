import { ProviderError, redactSecret } from './errors.ts';
import type { HttpReply } from './client.ts';
import { parseRetryAfter } from './retry.ts';

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

/** A reply that is a web page: its content type says so, or its body starts like one. */
export const isHtml = (reply: HttpReply): boolean => /\b(text\/html|application\/xhtml\+xml)\b/i.test(header(reply, 'content-type')) || HTML_START.test(reply.body);

/**
 * A web page where the API's JSON belongs: a proxy, gateway or login page, or a base URL that points
 * at a site rather than the API. Said as such, with the start of the page, rather than as bad JSON.
 * A page served with a success status is what that address serves, so it is not retried.
 */
function htmlError(reply: HttpReply, label: string, apiKey: string | null, block: string): ProviderError | null {
  if (!isHtml(reply)) return null;
  const type = header(reply, 'content-type');
  const start = redactSecret(reply.body.slice(0, 4096), apiKey).slice(0, 80);
  const s = reply.status;
  const retryable = retryableStatus(s);
  return new ProviderError(
    `${label}: got an HTML page instead of JSON (HTTP ${s}, content-type ${type || 'not given'}): ${JSON.stringify(start)}` +
      (s >= 200 && s <= 299 ? ` (check ${block}.baseUrl: it should be the API, not a web page)` : ''),
    retryable,
    s,
    retryable ? parseRetryAfter(reply.headers) : null,
  );
}

/** Throws unless the reply is a 2xx that is not a web page; the caller then checks its JSON. */
export function checkReply(reply: HttpReply, label: string, apiKey: string | null, block = 'embedder'): void {
  const html = htmlError(reply, label, apiKey, block);
  if (html) throw html;
  if (reply.status < 200 || reply.status > 299) throw statusError(reply, label, apiKey, block);
}

/** Turns a non-2xx reply into a ProviderError: 408/409/425/429/5xx are retried, the rest fail at once. */
export function statusError(reply: HttpReply, label: string, apiKey: string | null, block = 'embedder'): ProviderError {
  const s = reply.status;
  const retryable = retryableStatus(s);
  const hint = s === 401 || s === 403 ? ` (check the API key in the environment variable named by ${block}.apiKeyEnv)` : '';
  const msg = redactSecret(providerMessage(reply.body), apiKey);
  return new ProviderError(`${label}: HTTP ${s}: ${msg}${hint}`, retryable, s, retryable ? parseRetryAfter(reply.headers) : null);
}


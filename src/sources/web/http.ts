
import { ACCEPT_ENCODING, decodedBody } from './content-encoding.ts';

export interface FetchOptions {
  headers: Record<string, string>;
  userAgent: string;
  timeoutMs: number;
  maxBytes: number;
  /** Validators of the stored copy: sent as If-None-Match and If-Modified-Since. */
  etag?: string;
  lastModified?: string;
}

export type Fetched =
  | {
      kind: 'body';
      status: number;
      contentType: string;
      /** The body with its Content-Encoding undone. */
      body: Buffer;
      /** Bytes received on the wire (compressed). */
      wireBytes: number;
      etag?: string;
      lastModified?: string;
      /** X-Robots-Tag headers, one entry each (a header may name the crawler it is for). */
      robotsTags: string[];
    }
  | { kind: 'not-modified' }
  | { kind: 'redirect'; status: number; location: string | null }
  /** retryAfterMs: a 429's or 503's Retry-After, in ms from now (null when absent or unreadable). */
  | { kind: 'status'; status: number; retryAfterMs: number | null }
  | { kind: 'too-large'; bytes: number }
  | { kind: 'error'; reason: string };

type Headers = Record<string, string | string[] | undefined>;
const header = (h: Headers, name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};
const allOf = (h: Headers, name: string): string[] => {
  const v = h[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
};

/**
 * Retry-After (RFC 9110 §10.2.3) in ms from now: delta-seconds, or an HTTP date, measured against
 * the response's own Date when it has one (so a server's clock skew does not stretch the wait).
 */
export function retryAfterMs(value: string | undefined, date: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // An HTTP date names its day and month; "-5" or "soon" is no wait at all.
  const at = /[a-z]{3}/i.test(v) ? Date.parse(v) : Number.NaN;
  if (Number.isNaN(at)) return null;
  const served = date ? Date.parse(date) : Number.NaN;
  return Math.max(0, at - (Number.isNaN(served) ? now : served));
}

/**
 * One GET, redirects not followed (the crawler checks each hop against robots.txt and the
 * allowed origins). gzip, deflate and brotli are asked for and undone. The whole exchange is
 * bounded by timeoutMs and the decoded body by maxBytes: a body over the cap is abandoned as soon
 * as it is known to be (Content-Length, or counting what decoding yields, so a small compressed
 * body that expands without bound stops at the cap).
 */
export async function fetchOnce(url: string, o: FetchOptions): Promise<Fetched> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`no complete response within ${o.timeoutMs} ms`)), o.timeoutMs);
  try {
    const headers: Record<string, string> = {
      'user-agent': o.userAgent,
      accept: 'text/html, application/xhtml+xml, text/markdown, text/plain;q=0.9, */*;q=0.1',
      'accept-encoding': ACCEPT_ENCODING,
      ...o.headers,
    };
    if (o.etag) headers['if-none-match'] = o.etag;
    if (o.lastModified) headers['if-modified-since'] = o.lastModified;
    // Loaded on the first request: a run without a web source never loads undici.
    const { request } = await import('undici');
    const res = await request(url, { method: 'GET', headers, signal: controller.signal, headersTimeout: o.timeoutMs, bodyTimeout: o.timeoutMs });
    const h = res.headers;
    if (res.statusCode === 304) {
      await res.body.dump();
      return { kind: 'not-modified' };
    }
    if (res.statusCode >= 300 && res.statusCode < 400) {
      await res.body.dump();
      return { kind: 'redirect', status: res.statusCode, location: header(h, 'location') ?? null };
    }
    if (res.statusCode !== 200) {
      await res.body.dump();
      const throttled = res.statusCode === 429 || res.statusCode === 503;
      return { kind: 'status', status: res.statusCode, retryAfterMs: throttled ? retryAfterMs(header(h, 'retry-after'), header(h, 'date')) : null };
    }
    const declared = Number(header(h, 'content-length'));
    if (Number.isFinite(declared) && declared > o.maxBytes) {
      res.body.destroy();
      return { kind: 'too-large', bytes: declared };
    }
    let wireBytes = 0;
    res.body.on('data', (chunk: Buffer) => (wireBytes += chunk.length));
    const coding = header(h, 'content-encoding');
    const decoded = decodedBody(res.body, coding);
    if (!decoded) {
      res.body.destroy();
      return { kind: 'error', reason: `unsupported Content-Encoding ${JSON.stringify(coding)}` };
    }
    const parts: Buffer[] = [];
    let bytes = 0;
    try {
      for await (const chunk of decoded) {
        bytes += (chunk as Buffer).length;
        if (bytes > o.maxBytes) {
          decoded.destroy();
          res.body.destroy();
          return { kind: 'too-large', bytes };
        }
        parts.push(chunk as Buffer);
      }
    } catch (err) {
      if (controller.signal.aborted) throw err;
      return { kind: 'error', reason: `could not decode the ${coding} body: ${err instanceof Error ? err.message : String(err)}` };
    }
    return {
      kind: 'body',
      status: 200,
      contentType: (header(h, 'content-type') ?? '').toLowerCase(),
      body: Buffer.concat(parts),
      wireBytes,
      etag: header(h, 'etag'),
      lastModified: header(h, 'last-modified'),
      robotsTags: allOf(h, 'x-robots-tag'),
    };
  } catch (err) {
    const reason = controller.signal.aborted ? String((controller.signal.reason as Error)?.message ?? 'timed out') : err instanceof Error ? err.message : String(err);
    return { kind: 'error', reason };
  } finally {
    clearTimeout(timer);
  }
}


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
  | { kind: 'body'; status: number; contentType: string; body: Buffer; etag?: string; lastModified?: string }
  | { kind: 'not-modified' }
  | { kind: 'redirect'; status: number; location: string | null }
  | { kind: 'status'; status: number }
  | { kind: 'too-large'; bytes: number }
  | { kind: 'error'; reason: string };

const header = (h: Record<string, string | string[] | undefined>, name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * One GET, redirects not followed (the crawler checks each hop against robots.txt and the
 * allowed origins). The whole exchange is bounded by timeoutMs and the body by maxBytes: a body
 * over the cap is abandoned as soon as it is known to be (Content-Length, or counting).
 */
export async function fetchOnce(url: string, o: FetchOptions): Promise<Fetched> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`no complete response within ${o.timeoutMs} ms`)), o.timeoutMs);
  try {
    const headers: Record<string, string> = {
      'user-agent': o.userAgent,
      accept: 'text/html, application/xhtml+xml, text/markdown, text/plain;q=0.9, */*;q=0.1',
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
      return { kind: 'status', status: res.statusCode };
    }
    const declared = Number(header(h, 'content-length'));
    if (Number.isFinite(declared) && declared > o.maxBytes) {
      res.body.destroy();
      return { kind: 'too-large', bytes: declared };
    }
    const parts: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of res.body) {
      bytes += (chunk as Buffer).length;
      if (bytes > o.maxBytes) {
        res.body.destroy();
        return { kind: 'too-large', bytes };
      }
      parts.push(chunk as Buffer);
    }
    return {
      kind: 'body',
      status: 200,
      contentType: (header(h, 'content-type') ?? '').toLowerCase(),
      body: Buffer.concat(parts),
      etag: header(h, 'etag'),
      lastModified: header(h, 'last-modified'),
    };
  } catch (err) {
    const reason = controller.signal.aborted ? String((controller.signal.reason as Error)?.message ?? 'timed out') : err instanceof Error ? err.message : String(err);
    return { kind: 'error', reason };
  } finally {
    clearTimeout(timer);
  }
}

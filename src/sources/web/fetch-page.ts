import { RagsyncError, EXIT } from '../../core/errors.ts';
import { redactUrl } from '../../core/redact.ts';
import { decodePage } from './charset.ts';
import { fetchOnce } from './http.ts';
import { WEB_DEFAULTS } from './types.ts';
import { normalizeUrl } from './url.ts';

export interface FetchedPage {
  /** Where the page was found, redirects followed. */
  url: string;
  contentType: string;
  /** The body decoded to text (the WHATWG sniffing the crawler uses). */
  text: string;
}

/**
 * One page fetched as the crawler fetches it (its client, caps, timeout and User-Agent), redirects
 * followed up to the crawler's limit, nothing stored: for a caller who wants to read a URL now.
 */
export async function fetchPage(raw: string, o: { headers?: Record<string, string>; timeoutMs?: number; maxBytes?: number } = {}): Promise<FetchedPage> {
  let url = normalizeUrl(raw);
  if (!url) throw new RagsyncError(`url: not an http(s) URL (got ${JSON.stringify(raw)})`, EXIT.usage);
  const opts = { headers: o.headers ?? {}, userAgent: WEB_DEFAULTS.userAgent, timeoutMs: o.timeoutMs ?? WEB_DEFAULTS.timeoutMs, maxBytes: o.maxBytes ?? WEB_DEFAULTS.maxBytes };
  for (let hops = 0; ; hops++) {
    const r = await fetchOnce(url, opts);
    const at = redactUrl(url);
    if (r.kind === 'body') {
      const html = /html/.test(r.contentType);
      return { url, contentType: r.contentType, text: decodePage(r.body, r.contentType, html) };
    }
    if (r.kind === 'redirect' && r.location && hops < WEB_DEFAULTS.maxRedirects) {
      const next = normalizeUrl(r.location, url);
      if (next) {
        url = next;
        continue;
      }
    }
    const why =
      r.kind === 'status' ? `HTTP ${r.status}` : r.kind === 'too-large' ? `over ${opts.maxBytes} bytes` : r.kind === 'error' ? r.reason : r.kind === 'redirect' ? `too many redirects or no Location (HTTP ${r.status})` : r.kind;
    throw new RagsyncError(`fetch ${at}: ${why}`, EXIT.failed);
  }
}

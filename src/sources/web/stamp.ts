/**
 * A page's stamp, as the index stores it (documents.stamp): the hash of what was indexed and the
 * validators its server gave, so the next crawl asks "changed since?" with both conditionals.
 */
export interface PageStamp {
  /** sha256 of the document's bytes (Markdown with its front matter). */
  hash: string;
  etag?: string;
  lastModified?: string;
}

export const encodeStamp = (s: PageStamp): string =>
  JSON.stringify({ h: s.hash, ...(s.etag ? { e: s.etag } : {}), ...(s.lastModified ? { m: s.lastModified } : {}) });

export function decodeStamp(raw: string): PageStamp | null {
  try {
    const v = JSON.parse(raw) as { h?: unknown; e?: unknown; m?: unknown };
    if (typeof v.h !== 'string') return null;
    return { hash: v.h, ...(typeof v.e === 'string' ? { etag: v.e } : {}), ...(typeof v.m === 'string' ? { lastModified: v.m } : {}) };
  } catch {
    return null;
  }
}

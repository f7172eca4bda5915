/**
 * A page's stamp, as the index stores it (documents.stamp): the hash of what was indexed and the
 * validators its server gave, so the next crawl asks "changed since?" with both conditionals.
 */
export interface PageStamp {
  /** sha256 of the document's bytes (the page as served, in UTF-8; a Markdown page with its front matter). */
  hash: string;
  etag?: string;
  lastModified?: string;
  /** The page's media type as fetched (absent in stamps written before it was recorded). */
  mediaType?: string;
  /** An HTML page's text hash (what tells a duplicate of its canonical page while it answers 304). */
  textHash?: string;
}

export const encodeStamp = (s: PageStamp): string =>
  JSON.stringify({ h: s.hash, ...(s.etag ? { e: s.etag } : {}), ...(s.lastModified ? { m: s.lastModified } : {}), ...(s.mediaType ? { t: s.mediaType } : {}), ...(s.textHash ? { x: s.textHash } : {}) });

export function decodeStamp(raw: string): PageStamp | null {
  try {
    const v = JSON.parse(raw) as { h?: unknown; e?: unknown; m?: unknown; t?: unknown; x?: unknown };
    if (typeof v.h !== 'string') return null;
    return {
      hash: v.h,
      ...(typeof v.e === 'string' ? { etag: v.e } : {}),
      ...(typeof v.m === 'string' ? { lastModified: v.m } : {}),
      ...(typeof v.t === 'string' ? { mediaType: v.t } : {}),
      ...(typeof v.x === 'string' ? { textHash: v.x } : {}),
    };
  } catch {
    return null;
  }
}

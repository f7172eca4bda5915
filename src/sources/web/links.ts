import { normalizeUrl } from './url.ts';

export interface PageLinks {
  /** <link rel="canonical">, absolute; null when absent or not http(s). */
  canonical: string | null;
  /** Whether the page names its own <base href>. */
  hasBase: boolean;
  /** Every link of the page (navigation included), absolute, without fragments. */
  links: string[];
}

/** What the crawl needs of a parsed HTML page to go on: its links and canonical URL (its text is the content step's to convert). */
export function pageLinks(doc: Document, pageUrl: string): PageLinks {
  const baseHref = doc.querySelector('base[href]')?.getAttribute('href') ?? null;
  const base = (baseHref && normalizeUrl(baseHref, pageUrl)) || pageUrl;
  const abs = (href: string | null) => (href ? normalizeUrl(href, base) : null);
  const canonical = abs(doc.querySelector('link[rel~=canonical][href]')?.getAttribute('href') ?? null);
  const anchors = Array.prototype.slice.call(doc.querySelectorAll('a[href]')) as Element[];
  return { canonical, hasBase: baseHref !== null, links: [...new Set(anchors.flatMap((a) => abs(a.getAttribute('href')) ?? []))] };
}

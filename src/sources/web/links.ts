import { normalizeUrl } from './url.ts';

export interface PageLinks {
  /** <link rel="canonical">, absolute; null when absent or not http(s). */
  canonical: string | null;
  /** Links of the page (navigation included), absolute, without fragments; those marked rel="nofollow" left out. */
  links: string[];
  /** The content of every `<meta name="robots">` and `<meta name="TOKEN">` (the crawler's own). */
  robots: string[];
}

/** domino's node lists are array-like, not iterable. */
const all = (doc: Document, sel: string): Element[] => Array.prototype.slice.call(doc.querySelectorAll(sel)) as Element[];

/** What the crawl needs of a parsed HTML page to go on: its links, canonical URL and robots meta tags (its text is the content step's to convert). */
export function pageLinks(doc: Document, pageUrl: string, token: string): PageLinks {
  const baseHref = doc.querySelector('base[href]')?.getAttribute('href') ?? null;
  const base = (baseHref && normalizeUrl(baseHref, pageUrl)) || pageUrl;
  const abs = (href: string | null) => (href ? normalizeUrl(href, base) : null);
  const canonical = abs(doc.querySelector('link[rel~=canonical][href]')?.getAttribute('href') ?? null);
  const followed = all(doc, 'a[href]').filter((a) => !/(^|\s)nofollow(\s|$)/i.test(a.getAttribute('rel') ?? ''));
  const names = new Set(['robots', token.toLowerCase()]);
  const robots = all(doc, 'meta[name][content]')
    .filter((m) => names.has(m.getAttribute('name')!.trim().toLowerCase()))
    .map((m) => m.getAttribute('content')!);
  return { canonical, links: [...new Set(followed.flatMap((a) => abs(a.getAttribute('href')) ?? []))], robots };
}

/** A page's text as a reader sees it, whitespace collapsed: what tells a duplicate of its canonical page. */
export const pageText = (doc: Document): string => (doc.body?.textContent ?? '').replace(/\s+/g, ' ').trim();

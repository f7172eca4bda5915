import { normalizeUrl } from './url.ts';

/** The sitemap protocol's limit on URLs in one sitemap (and sitemaps in one index). */
export const MAX_SITEMAP_URLS = 50_000;

export interface SitemapEntries {
  /** Pages of a <urlset>. */
  pages: string[];
  /** Further sitemaps of a <sitemapindex>. */
  sitemaps: string[];
  /** The first well-formedness error, or a root that is not a sitemap's (what was read is kept). */
  error?: string;
}

/**
 * The <loc>s of a sitemap, read with an XML parser (saxes: entities and CDATA decoded as XML
 * says, no DTD or external entity ever expanded): the <loc> directly inside each <url> of a
 * <urlset> (an image's or video's <loc> is not a page), or inside each <sitemap> of a
 * <sitemapindex>. Element names are matched without their namespace, as sitemaps in the wild
 * declare it wrongly or not at all. At most MAX_SITEMAP_URLS are taken.
 */
export async function readSitemap(xml: string, base: string): Promise<SitemapEntries> {
  // Loaded by the first sitemap read: no other command reads XML.
  const { SaxesParser } = await import('saxes');
  const parser = new SaxesParser({ xmlns: false, position: true });
  const out: SitemapEntries = { pages: [], sitemaps: [] };
  const stack: string[] = [];
  let root = '';
  let loc: string | null = null;
  const local = (name: string) => name.slice(name.indexOf(':') + 1).toLowerCase();
  // A broken sitemap (an unescaped & in a URL is common) is read on past its error, as browsers and search engines do.
  parser.on('error', (e) => (out.error ??= e.message));
  parser.on('opentag', (t) => {
    const name = local(t.name);
    if (!stack.length) root = name;
    const parent = stack[stack.length - 1];
    stack.push(name);
    if (name === 'loc' && (parent === 'url' || parent === 'sitemap')) loc = '';
  });
  parser.on('text', (s) => loc !== null && (loc += s));
  parser.on('cdata', (s) => loc !== null && (loc += s));
  parser.on('closetag', () => {
    const name = stack.pop();
    if (name !== 'loc' || loc === null) return;
    const url = normalizeUrl(loc.trim(), base);
    loc = null;
    const into = root === 'sitemapindex' ? out.sitemaps : root === 'urlset' ? out.pages : null;
    if (url && into && into.length < MAX_SITEMAP_URLS) into.push(url);
  });
  // A bare & (an unescaped query string, the commonest fault of sitemaps in the wild) is read as
  // the & it means; the parser would otherwise take the rest of the file for an entity name.
  parser.write(xml.replace(/&(?!(?:[A-Za-z_][\w.-]*|#\d+|#x[\dA-Fa-f]+);)/g, '&amp;')).close();
  if (root !== 'urlset' && root !== 'sitemapindex') out.error ??= root ? `<${root}> where <urlset> or <sitemapindex> was expected` : 'no XML element';
  return out;
}

/** The links of a Markdown page (llms.txt lists a site's pages this way). */
export function markdownLinks(md: string, base: string): string[] {
  return [...md.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].flatMap((m) => normalizeUrl(m[1]!, base) ?? []);
}

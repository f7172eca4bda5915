import { normalizeUrl } from './url.ts';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const decode = (s: string) => s.replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => ENTITIES[e]!).trim();

/** The <loc>s of a sitemap: pages of a <urlset>, or further sitemaps of a <sitemapindex>. */
export function readSitemap(xml: string, base: string): { pages: string[]; sitemaps: string[] } {
  const locs = [...xml.matchAll(/<loc>\s*([^<]+?)\s*<\/loc>/gi)].flatMap((m) => normalizeUrl(decode(m[1]!), base) ?? []);
  return /<sitemapindex[\s>]/i.test(xml) ? { pages: [], sitemaps: locs } : { pages: locs, sitemaps: [] };
}

/** The links of a Markdown page (llms.txt lists a site's pages this way). */
export function markdownLinks(md: string, base: string): string[] {
  return [...md.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].flatMap((m) => normalizeUrl(m[1]!, base) ?? []);
}

/** What a page asks of crawlers: not to be indexed, its links not to be followed. */
export interface Directives {
  noindex: boolean;
  nofollow: boolean;
}

/** Directives a crawler may be named before (`X-Robots-Tag: unavailable_after: …` names none). */
const NOT_A_CRAWLER = new Set(['unavailable_after', 'max-snippet', 'max-image-preview', 'max-video-preview']);

/** The noindex/nofollow of a comma-separated list ("none" is both; others are ignored). */
function parseList(list: string, into: Directives): void {
  for (const d of list.split(',').map((x) => x.trim().toLowerCase())) {
    if (d === 'noindex' || d === 'none') into.noindex = true;
    if (d === 'nofollow' || d === 'none') into.nofollow = true;
  }
}

/**
 * The directives of X-Robots-Tag headers and `<meta name="robots">` / `<meta name="TOKEN">`
 * contents, for the crawler whose product token is `token`. A header may start with a crawler's
 * name (`googlebot: noindex`): it then applies only when that name is the token.
 */
export function robotsDirectives(headerValues: string[], metaContents: string[], token: string): { header: Directives; meta: Directives } {
  const header: Directives = { noindex: false, nofollow: false };
  for (const v of headerValues) {
    const m = /^\s*([A-Za-z][\w-]*)\s*:(.*)$/.exec(v);
    if (m && !NOT_A_CRAWLER.has(m[1]!.toLowerCase())) {
      if (m[1]!.toLowerCase() === token.toLowerCase()) parseList(m[2]!, header);
    } else parseList(v, header);
  }
  const meta: Directives = { noindex: false, nofollow: false };
  for (const c of metaContents) parseList(c, meta);
  return { header, meta };
}

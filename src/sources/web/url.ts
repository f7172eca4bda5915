import picomatch from 'picomatch';

/** A URL as pages are known by: no fragment, no default port, the path as given. Null when not http(s). */
export function normalizeUrl(raw: string, base?: string): string | null {
  let u: URL;
  try {
    u = new URL(raw, base);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  u.hash = '';
  u.username = '';
  u.password = '';
  return u.href;
}

/** include/exclude globs over a URL's path and query. */
export function urlMatcher(include: string[], exclude: string[]): (url: string) => boolean {
  const inc = include.length ? picomatch(include, { dot: true }) : () => true;
  const exc = exclude.length ? picomatch(exclude, { dot: true }) : () => false;
  return (url) => {
    const u = new URL(url);
    const p = u.pathname + u.search;
    return (inc(p) || inc(u.pathname)) && !exc(p) && !exc(u.pathname);
  };
}

/** Links that look like files, not pages: never requested. */
const NOT_PAGES = /\.(png|jpe?g|gif|webp|svg|ico|pdf|zip|gz|tgz|tar|mp[34]|mov|avi|woff2?|ttf|eot|css|js|mjs|wasm|exe|dmg|iso|bin)$/i;
export const looksLikeFile = (url: string) => NOT_PAGES.test(new URL(url).pathname);

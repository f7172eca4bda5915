import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { HttpError } from './body.ts';

/**
 * Who may talk to the server. A loopback server is reachable by any page the user opens: a page
 * that points its own name at 127.0.0.1 (DNS rebinding) reads it as same-origin, and a "simple"
 * cross-site POST needs no preflight. So the Host must name the loopback (or a host the config
 * lists), and a browser request from another site is refused before it reads the index or calls
 * a model.
 */
export interface RequestGuard {
  /** 421 when the Host header does not name this server. */
  checkHost(req: IncomingMessage): void;
  /** 403 when a browser says the request comes from another site or origin. */
  checkSameOrigin(req: IncomingMessage): void;
}

/**
 * A Host (or an allowed-host entry) as a canonical name (lower case, no root dot, an IP address
 * as the URL standard writes it: [::1], 127.0.0.1) and its port if given; null when it is not a
 * bare host[:port] (userinfo, a path, spaces).
 */
export function parseHost(value: string): { name: string; port: number | null } | null {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?$/.exec(value);
  if (!m || (m[2] !== undefined && Number(m[2]) > 65535)) return null;
  let name: string;
  try {
    name = new URL(`http://${m[1]!.replace(/\.$/, '')}`).hostname;
  } catch {
    return null;
  }
  return name ? { name, port: m[2] === undefined ? null : Number(m[2]) } : null;
}

/** 127.0.0.0/8, ::1 and IPv4-mapped 127 addresses, in any spelling (an address or a canonical name). */
export function isLoopbackAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  if (!isIP(bare)) return false;
  const name = new URL(`http://${isIP(bare) === 6 ? `[${bare}]` : bare}`).hostname;
  return /^127\./.test(name) || name === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(name);
}

const isLoopbackName = (name: string) => name === 'localhost' || isLoopbackAddress(name);

export interface GuardOptions {
  /** The address the server is bound to (its loopback-ness decides the Host rule). */
  boundAddress: string;
  /** The port it listens on: a loopback name with another port is another server. */
  port: number;
  /** More names the server is reached by (`serve.allowedHosts`), each "name" or "name:port". */
  allowedHosts?: readonly string[];
}

export function requestGuard(opts: GuardOptions): RequestGuard {
  const loopback = isLoopbackAddress(opts.boundAddress);
  const allowed = (opts.allowedHosts ?? []).map((h) => parseHost(h)).filter((h) => h !== null);
  const listed = (h: { name: string; port: number | null }) => allowed.some((a) => a.name === h.name && (a.port === null || a.port === h.port));
  // A loopback bind answers only to loopback names; elsewhere the Host is checked once names are
  // listed (IP literals then pass too: a rebinding page always comes by a name).
  const hostOk = (h: { name: string; port: number | null }): boolean => {
    if (isLoopbackName(h.name)) return h.port === null ? opts.port === 80 : h.port === opts.port;
    if (listed(h)) return true;
    if (loopback) return false;
    return allowed.length === 0 || isIP(h.name) !== 0;
  };
  const shown = (v: string) => JSON.stringify(v.slice(0, 100));
  return {
    checkHost(req) {
      const value = req.headers.host;
      const h = value === undefined ? null : parseHost(value);
      if (!h || !hostOk(h)) {
        throw new HttpError(
          421,
          `host ${value === undefined ? '(none)' : shown(value)} is not this server's: ${loopback ? 'a loopback server answers to localhost, 127.0.0.1 or [::1] with its port' : 'not an IP address or a name'} or a name in serve.allowedHosts`,
        );
      }
    },
    checkSameOrigin(req) {
      const site = String(req.headers['sec-fetch-site'] ?? '').toLowerCase();
      if (site === 'cross-site' || site === 'same-site') throw new HttpError(403, `cross-site request refused (Sec-Fetch-Site: ${site}): only this server's own page may call the API`);
      const origin = req.headers.origin;
      if (origin === undefined) return;
      if (!sameOrigin(origin, req.headers.host ?? '', listed)) throw new HttpError(403, `cross-origin request refused (Origin: ${shown(origin)}): only this server's own page may call the API`);
    },
  };
}

/** The Origin names the host the request was sent to (or a listed name, for a proxy that rewrites Host). */
function sameOrigin(origin: string, host: string, listed: (h: { name: string; port: number | null }) => boolean): boolean {
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    return false; // "null": a sandboxed frame, a file:// or data: page
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
  const o = parseHost(u.host);
  const h = parseHost(host);
  if (!o || !h) return false;
  const port = o.port ?? (u.protocol === 'https:' ? 443 : 80);
  return (o.name === h.name && port === (h.port ?? 80)) || listed({ name: o.name, port });
}

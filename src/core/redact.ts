/**
 * Credentials out of anything shown to people or written to logs. Over-masking a harmless value
 * is the price of never printing a secret.
 */

/** What stands in for a secret. */
export const MASK = '***';

/** Schemes whose userinfo without a password is a role name people need to see, not a token. */
const NAMED_USER_SCHEMES = /^(postgres|postgresql):\/\/$/i;

/**
 * Removes credentials from URLs anywhere in a text (https://user:token@host → https://***@host).
 * The userinfo runs to the authority's last "@" (a password may hold one), never past its end.
 * A database URL keeps its user name (postgres://app:pw@host → postgres://app:***@host): a lone
 * name in an https URL is as often a token (https://TOKEN@github.com), so it is masked whole.
 */
export function redactUrl(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)([^/?#\s"'<>\\@]*(?:@[^/?#\s"'<>\\@]*)*)@/gi, (_m, scheme: string, userinfo: string) => {
    if (!NAMED_USER_SCHEMES.test(scheme)) return `${scheme}${MASK}@`;
    const colon = userinfo.indexOf(':');
    return colon < 0 ? `${scheme}${userinfo}@` : `${scheme}${userinfo.slice(0, colon)}:${MASK}@`;
  });
}

/** Parameter and field names whose values are secrets (query strings, key=value pairs, libpq strings). */
const SECRET_NAMES = 'password|passwd|pwd|sslpassword|secret|client_secret|token|access_token|refresh_token|id_token|api[_-]?key|apikey|key|auth|sig|signature|credentials?';

/**
 * Every credential a text may carry: URL userinfo, `password=…`/`token=…`/`api_key=…` values (query
 * strings, libpq connection strings, JSON), and Authorization/Cookie header values.
 */
export function redactSecrets(text: string): string {
  return redactUrl(text)
    .replace(new RegExp(`\\b(${SECRET_NAMES})(\\s*=\\s*)("?)[^\\s&;,"'<>]+`, 'gi'), `$1$2$3${MASK}`)
    // JSON's "token": "…" (a bare "token: …" is as often prose).
    .replace(new RegExp(`(["'])(${SECRET_NAMES})\\1(\\s*:\\s*)(["'])[^"']*\\4`, 'gi'), `$1$2$1$3$4${MASK}$4`)
    .replace(/\b((?:set-)?cookie)(["']?\s*:\s*["']?)[^\r\n"']+/gi, `$1$2${MASK}`)
    .replace(/\b((?:proxy-)?authorization|x-api-key|api-key)(["']?\s*[:=]\s*["']?)(?:(bearer|basic|token|digest)\s+)?[^\s"',;]+/gi, (_m, name: string, sep: string, scheme?: string) => `${name}${sep}${scheme ? `${scheme} ` : ''}${MASK}`)
    .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g, `$1 ${MASK}`);
}

/** Header values as shown: the names kept, every value masked (any header may carry a credential). */
export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(headers).map((k) => [k, MASK]));
}

/**
 * A value (a config, a log object) with every string's credentials masked and every `headers`
 * map's values masked, for printing. Errors become their redacted message.
 */
export function redactDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (value instanceof Error) return redactSecrets(value.message);
  if (!value || typeof value !== 'object' || depth > 12) return value;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, depth + 1));
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value; // a Date, a Buffer: no text of ours
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = k === 'headers' && v && typeof v === 'object' && !Array.isArray(v) ? redactHeaders(v as Record<string, string>) : redactDeep(v, depth + 1);
  }
  return out;
}

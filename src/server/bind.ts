import { lookup } from 'node:dns/promises';
import { RagsyncError, EXIT } from '../core/errors.ts';
import { isLoopbackAddress } from './guard.ts';

/** Whether every address `host` names is a loopback one (a name is looked up as listen() would). */
export async function bindsLoopback(host: string): Promise<boolean> {
  if (host.toLowerCase() === 'localhost') return true;
  try {
    const addrs = await lookup(host, { all: true });
    return addrs.length > 0 && addrs.every((a) => isLoopbackAddress(a.address));
  } catch {
    return false; // listen() says why it cannot bind
  }
}

/**
 * A server reachable from other machines needs a token: without one, anyone on the network reads
 * every indexed document and spends the chat model's budget. `insecure` (--insecure-no-token)
 * starts it anyway; the returned warning says why that is dangerous, for the caller to print.
 */
export async function checkBind(host: string, opts: { token: string | null; insecure: boolean; tokenEnv: string }): Promise<string | null> {
  if (opts.token || (await bindsLoopback(host))) return null;
  if (!opts.insecure) {
    throw new RagsyncError(
      `--host ${host} is reachable from other machines and no token is set: set $${opts.tokenEnv} (clients then send it as a bearer token), bind 127.0.0.1, or pass --insecure-no-token to serve without one`,
      EXIT.usage,
    );
  }
  return `--insecure-no-token: serving on ${host} with no token: anyone who can reach this address can read every indexed document and make the chat model answer at your cost; set $${opts.tokenEnv} instead`;
}

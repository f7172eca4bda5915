import { InvalidArgumentError, Option } from 'commander';
import { loadConfig } from '../builtin.ts';
import type { Config } from '../config/load.ts';
import { openIndex } from '../storage/open.ts';
import type { AdminStore } from '../storage/roles.ts';
import type { Logger } from '../core/log.ts';
import { visible } from '../core/text/visible.ts';

/** Shared option parsers and helpers for the commands. */

/** A line (or block) on stdout, control characters from indexed text shown escaped. */
export const out = (s: string) => process.stdout.write(visible(s.endsWith('\n') ? s : s + '\n'));

export function positiveInt(name: string, max = Number.MAX_SAFE_INTEGER) {
  return (v: string) => {
    const n = Number(v);
    if (!/^\d+$/.test(v) || n < 1 || n > max) throw new InvalidArgumentError(`${name} must be an integer from 1 to ${max} (got "${v}")`);
    return n;
  };
}

export const collect = (v: string, prev: string[] = []) => [...prev, v];

export { configOption } from './config-option.ts';

export function config(opts: { config?: string }): Config {
  return loadConfig(opts.config);
}

/**
 * The config with the embedder's vector size filled in: when neither config nor preset knows it
 * (another model on a local server) the server is asked once and the answer logged. Commands that
 * embed or name the active fingerprint go through this.
 */
export async function withDimensions(cfg: Config, log?: Logger): Promise<Config> {
  if (cfg.embedder.provider === 'hash' || cfg.embedder.dimensions !== undefined) return cfg;
  // Loaded only here: most runs never need them.
  const { withEmbedderDimensions } = await import('../embedding/remote/detect.ts');
  const { createLogger } = await import('../core/log.ts');
  return withEmbedderDimensions(cfg, { log: log ?? createLogger({ configLevel: cfg.logLevel }) });
}

/** Opens an index that must already exist (status, gc, export); status and export only read it. */
export function openExisting(cfg: Config, opts: { readOnly?: boolean } = {}): AdminStore {
  return openIndex(cfg, 'admin', opts);
}

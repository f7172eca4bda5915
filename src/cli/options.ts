import { InvalidArgumentError, Option } from 'commander';
import { loadConfig } from '../builtin.ts';
import type { Config } from '../config/load.ts';
import { openIndex } from '../storage/open.ts';
import type { AdminStore } from '../storage/roles.ts';

/** Shared option parsers and helpers for the commands. */

export const out = (s: string) => process.stdout.write(s.endsWith('\n') ? s : s + '\n');

export function positiveInt(name: string, max = Number.MAX_SAFE_INTEGER) {
  return (v: string) => {
    const n = Number(v);
    if (!/^\d+$/.test(v) || n < 1 || n > max) throw new InvalidArgumentError(`${name} must be an integer from 1 to ${max} (got "${v}")`);
    return n;
  };
}

export const collect = (v: string, prev: string[] = []) => [...prev, v];

export const configOption = () =>
  new Option('-c, --config <file>', 'config file (default: $RAGSYNC_CONFIG or config/ragsync.json)');

export function config(opts: { config?: string }): Config {
  return loadConfig(opts.config);
}

/** Opens an index that must already exist (status, gc, export); status and export only read it. */
export function openExisting(cfg: Config, opts: { readOnly?: boolean } = {}): AdminStore {
  return openIndex(cfg, 'admin', opts);
}

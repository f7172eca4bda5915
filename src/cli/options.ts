import { InvalidArgumentError, Option } from 'commander';
import { loadConfig } from '../builtin.ts';
import type { Config } from '../config/load.ts';
import type { AdminStore } from '../storage/roles.ts';
import { createLogger, type Logger } from '../core/log.ts';
import { openEngine, type Engine, type Lifetime } from '../engine/engine.ts';
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
 * The engine of a command: a one-shot CLI command's unless said otherwise, logging as the config
 * says (the embedder's vector size, when its server had to be asked, is logged at info).
 */
export function engineOf(cfg: Config, opts: { log?: Logger; lifetime?: Lifetime; rerank?: boolean } = {}): Engine {
  return openEngine(cfg, { lifetime: opts.lifetime ?? 'one-shot', log: opts.log ?? createLogger({ configLevel: cfg.logLevel }), ...(opts.rerank === false ? { reranker: null } : {}) });
}

/** Opens an index that must already exist (status, gc, export); status and export only read it. */
export function openExisting(engine: Engine, opts: { readOnly?: boolean } = {}): AdminStore {
  return engine.openStore('admin', opts);
}

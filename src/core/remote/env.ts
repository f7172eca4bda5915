import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { EXIT, RagsyncError } from '../errors.ts';

/** Names the env file to read instead of ./.env (the CLI's --env-file sets it too). */
export const ENV_FILE_VAR = 'RAGSYNC_ENV_FILE';

let loaded = false;

/**
 * The env file in force: $RAGSYNC_ENV_FILE (which must exist), else ./.env in the working
 * directory when there is one, else none.
 */
export function envFile(): string | null {
  const named = process.env[ENV_FILE_VAR];
  if (named) {
    const file = resolve(named);
    if (!existsSync(file)) throw new RagsyncError(`${ENV_FILE_VAR}: no such file ${file}`, EXIT.usage);
    return file;
  }
  const local = resolve('.env');
  return existsSync(local) ? local : null;
}

/** Loads the env file once; variables already in the environment win over it. */
export function loadEnvFileOnce(): void {
  if (loaded) return;
  const file = envFile();
  loaded = true;
  if (file) process.loadEnvFile(file);
}

/**
 * The API key from the environment variable `name`, loading the env file once first if the
 * variable is unset. Returns null when it is still unset.
 */
export function readApiKey(name: string): string | null {
  if (!process.env[name]) loadEnvFileOnce();
  const v = process.env[name]?.trim();
  return v ? v : null;
}

/**
 * The key of a config block: from `source` when given (tests, library users), else from the
 * variable the block names. A named variable that is unset is a configuration error.
 */
export function blockApiKey(block: string, env: string | null, source?: () => string | null): string | null {
  const key = source ? source() : env ? readApiKey(env) : null;
  if (env && !key) throw new RagsyncError(`${block}.apiKeyEnv: environment variable ${env} is not set (set it, or put it in .env)`, EXIT.usage);
  return key;
}

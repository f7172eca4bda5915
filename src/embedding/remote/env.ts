import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

let loaded = false;

/**
 * The API key from the environment variable `name`, loading ./.env once first if the variable is
 * unset (values already in the environment win). Returns null when it is still unset.
 */
export function readApiKey(name: string): string | null {
  if (!process.env[name] && !loaded) {
    loaded = true;
    const file = resolve('.env');
    if (existsSync(file)) process.loadEnvFile(file);
  }
  const v = process.env[name]?.trim();
  return v ? v : null;
}

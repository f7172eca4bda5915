import BetterSqlite3, { type Database, type Options } from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

let addon: string | undefined | null = null;

/**
 * The addon better-sqlite3 compiles (or downloads) into its build/Release folder, named directly:
 * its own lookup (the `bindings` package) probes a dozen paths in every process, and finds nothing
 * from inside the CLI bundle. Elsewhere (an unusual install) better-sqlite3 looks as it always does.
 */
function nativeBinding(): string | undefined {
  if (addon === null) {
    const file = join(dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node');
    addon = existsSync(file) ? file : undefined;
  }
  return addon;
}

/** A better-sqlite3 connection to a file, or to an in-memory copy of a database's bytes. */
export function openSqlite(file: string | Buffer, options: Options = {}): Database {
  const binding = nativeBinding();
  return new BetterSqlite3(file, binding ? { ...options, nativeBinding: binding } : options);
}

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let found: string | null = null;

/**
 * The folder of ragsync's package.json, found by walking up from `from` (a module's
 * import.meta.url): the same answer from the sources, dist/ and the bundled CLI, whose modules sit
 * at different depths.
 */
export function packageRoot(from: string): string {
  if (found) return found;
  for (let dir = dirname(fileURLToPath(from)); ; ) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'ragsync') return (found = dir);
    const up = dirname(dir);
    if (up === dir) throw new Error(`ragsync's package.json not found above ${fileURLToPath(from)}`);
    dir = up;
  }
}

/** ragsync's version, from its package.json (what `--version` prints and the MCP server announces). */
export function packageVersion(from: string): string {
  return (JSON.parse(readFileSync(join(packageRoot(from), 'package.json'), 'utf8')) as { version: string }).version;
}

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { assertBuilt } from './cli.ts';
import { sharedFixture } from './shared-fixture.ts';
import { REPO_ROOT } from './tmp.ts';

/**
 * The tarball `npm pack` makes of this checkout as built (dist/ is what the test run has; no
 * rebuild: install scripts off), packed once per test run and shared by the suites that install it.
 * Its path; read it, never change it.
 */
export async function packedTarball(): Promise<string> {
  assertBuilt();
  const { dir, value } = await sharedFixture('npm-pack', async (dir) => {
    const r = spawnSync('npm', ['pack', '--ignore-scripts', '--pack-destination', dir, REPO_ROOT], { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`npm pack exited ${r.status}: ${r.stderr.trim().split('\n').at(-1)}`);
    return r.stdout.trim().split('\n').at(-1)!;
  });
  return join(dir, value);
}

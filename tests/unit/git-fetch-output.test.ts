// Whether a fetch left the remote-tracking branch where it was, read from git's own -v output.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Upstream } from '../helpers/upstream.ts';
import { tempDir } from '../helpers/tmp.ts';
import { fetchLeftUnchanged } from '../../src/sources/git.ts';

let t: ReturnType<typeof tempDir>;
let up: Upstream;
let clone: string;
const REF = 'refs/remotes/origin/main';

/** stderr of the fetch ragsync runs (its ref lines), in the C locale. */
function fetchStderr(): string {
  return execFileSync('sh', ['-c', `git -C '${clone}' fetch -v --no-progress --prune --no-tags -- '${up.bare}' '+refs/heads/main:${REF}' 2>&1 >/dev/null`], {
    env: { ...process.env, LC_ALL: 'C' },
    encoding: 'utf8',
  });
}

beforeEach(() => {
  t = tempDir();
  up = new Upstream(join(t.dir, 'up'));
  up.write('a.md', '# A\n').commit('a');
  clone = join(t.dir, 'clone');
  execFileSync('git', ['clone', '-q', up.bare, clone]);
});
afterEach(() => t.cleanup());

describe('fetchLeftUnchanged', () => {
  it('is true only when git reports the branch up to date', () => {
    expect(fetchLeftUnchanged(fetchStderr(), REF)).toBe(true);
    up.write('b.md', '# B\n').commit('b');
    expect(fetchLeftUnchanged(fetchStderr(), REF)).toBe(false); // fast-forward
    expect(fetchLeftUnchanged(fetchStderr(), REF)).toBe(true);
    up.git('commit', '--quiet', '--amend', '-m', 'rewritten');
    up.git('push', '--quiet', '--force', 'origin', 'HEAD:main');
    expect(fetchLeftUnchanged(fetchStderr(), REF)).toBe(false); // forced update
  });

  it('reads only the line of the branch asked about', () => {
    const other = 'From /x\n = [up to date]      dev        -> origin/dev\n';
    expect(fetchLeftUnchanged(other, REF)).toBe(false);
    expect(fetchLeftUnchanged('', REF)).toBe(false);
    expect(fetchLeftUnchanged(' = [up to date]      main       -> origin/main\n', REF)).toBe(true);
    expect(fetchLeftUnchanged(' = [up to date]      main       -> origin/main-old\n', REF)).toBe(false);
  });
});

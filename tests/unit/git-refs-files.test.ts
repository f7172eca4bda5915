// HEAD and the remote-tracking branch read from a checkout's ref files (no git process) must agree
// with `git rev-parse` whenever they answer, and not answer when the two differ or the layout is not
// the plain one: the unsaved-commits guard skips its `git log` only on that answer.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { Upstream } from '../helpers/upstream.ts';
import { tempDir } from '../helpers/tmp.ts';
import { sameRefs } from '../../src/sources/git.ts';

let t: ReturnType<typeof tempDir>;
let up: Upstream;
let clone: string;
const REF = 'refs/remotes/origin/main';
const git = (...args: string[]) => execFileSync('git', ['-C', clone, ...args], { encoding: 'utf8' }).trim();
const revParse = () => git('rev-parse', 'HEAD', `${REF}^{commit}`).split('\n');

beforeEach(() => {
  t = tempDir();
  up = new Upstream(join(t.dir, 'up'));
  up.write('a.md', '# A\n').commit('a');
  clone = join(t.dir, 'clone');
  execFileSync('git', ['clone', '--quiet', '--branch', 'main', '--single-branch', '--no-tags', '--', up.bare, clone]);
  git('config', 'user.email', 'test@example.com');
  git('config', 'user.name', 'test');
});
afterEach(() => t.cleanup());

describe('sameRefs', () => {
  it('agrees with rev-parse on a fresh clone (packed-refs) and after fetch + reset (loose refs)', () => {
    expect(sameRefs(clone, REF)).toEqual(revParse());
    up.write('b.md', '# B\n').commit('b');
    git('fetch', '--quiet', '--', up.bare, `+refs/heads/main:${REF}`);
    expect(sameRefs(clone, REF)).toBeUndefined(); // HEAD is behind: not the same commit
    git('reset', '--hard', '--quiet', REF);
    const ids = revParse();
    expect(ids[0]).toBe(ids[1]);
    expect(sameRefs(clone, REF)).toEqual(ids);
  });

  it('reads packed refs, and a loose ref over its packed value', () => {
    git('pack-refs', '--all');
    expect(sameRefs(clone, REF)).toEqual(revParse());
    const old = revParse()[0]!;
    up.write('b.md', '# B\n').commit('b');
    git('fetch', '--quiet', '--', up.bare, `+refs/heads/main:${REF}`);
    git('reset', '--hard', '--quiet', REF);
    // packed-refs still holds the old commit for both; the loose files the fetch and reset wrote win.
    expect(revParse()[0]).not.toBe(old);
    expect(sameRefs(clone, REF)).toEqual(revParse());
  });

  it('a local commit, a detached HEAD elsewhere, a .git file or a missing ref: no answer', () => {
    writeFileSync(join(clone, 'mine.md'), 'mine\n');
    git('add', '-A');
    git('commit', '--quiet', '-m', 'mine');
    expect(sameRefs(clone, REF)).toBeUndefined();
    git('checkout', '--quiet', '--detach', REF);
    expect(sameRefs(clone, REF)).toEqual(revParse()); // detached at the branch: the same commit
    git('checkout', '--quiet', '--detach', 'main');
    expect(sameRefs(clone, REF)).toBeUndefined();
    expect(sameRefs(clone, 'refs/remotes/origin/nope')).toBeUndefined();
    expect(sameRefs(clone, 'refs/remotes/origin/../../HEAD')).toBeUndefined();
    // A checkout whose .git is a file pointing elsewhere (a linked worktree's layout).
    const moved = join(t.dir, 'gitdir');
    renameSync(join(clone, '.git'), moved);
    writeFileSync(join(clone, '.git'), `gitdir: ${moved}\n`);
    expect(sameRefs(clone, REF)).toBeUndefined();
    mkdirSync(join(t.dir, 'empty'));
    expect(sameRefs(join(t.dir, 'empty'), REF)).toBeUndefined();
  });
});

// The pure parts of the data-safety guards: the delete guard's arithmetic, git's stderr in one line,
// unsafe git URLs, porcelain status in words, and error codes in words.
import { describe, expect, it } from 'vitest';
import { checkDeletions } from '../../src/sync/delete-guard.ts';
import { describeGitFailure, gitReason } from '../../src/sources/git-errors.ts';
import { unsafeGitUrl } from '../../src/config/git-url.ts';
import { describeStatus, listLoss } from '../../src/sources/checkout.ts';
import { describeSystemError } from '../../src/core/error-words.ts';
import { EXIT } from '../../src/core/errors.ts';

const plan = (stored: number, listed: number, deleting: number) => ({
  source: 's',
  stored,
  listed,
  delete: Array.from({ length: deleting }, (_, i) => `d${i}.md`),
});
const limits = { allowEmpty: false, maxDeleteShare: 0.5 };

describe('delete guard', () => {
  it('refuses an empty listing over indexed documents unless allowed or forced', () => {
    expect(checkDeletions(plan(3, 0, 3), limits)).toMatch(/^source "s" lists no files, but 3 documents are indexed/);
    expect(checkDeletions(plan(3, 0, 3), { ...limits, allowEmpty: true })).toBeNull();
    expect(checkDeletions(plan(3, 0, 3), { ...limits, force: true })).toBeNull();
    expect(checkDeletions(plan(0, 0, 0), limits)).toBeNull(); // a new, empty source
  });

  it('allows up to the share, refuses beyond it with the counts', () => {
    expect(checkDeletions(plan(10, 5, 5), limits)).toBeNull();
    expect(checkDeletions(plan(10, 4, 6), limits)).toMatch(/would delete 6 of its 10 indexed documents \(60 %\), over maxDeleteShare 0\.5 \(50 %\)/);
    expect(checkDeletions(plan(10, 4, 6), { ...limits, maxDeleteShare: 1 })).toBeNull();
    expect(checkDeletions(plan(10, 10, 1), { ...limits, maxDeleteShare: 0 })).toMatch(/would delete 1 of its 10/);
    expect(checkDeletions(plan(1, 18, 1), limits)).toMatch(/would delete 1 of its 1 indexed documents \(100 %\)/);
  });
});

describe('git failures', () => {
  it("takes git's reason, not its progress chatter, credentials removed", () => {
    const stderr = "Cloning into '/x/.tmp'...\nfatal: unable to access 'https://u:tok@h/x.git/': Could not resolve host: h\n";
    expect(gitReason({ stderr })).toBe("unable to access 'https://***@h/x.git/': Could not resolve host: h");
    expect(gitReason({ stderr: '' })).toBe('no message from git');
    expect(describeGitFailure('fetch', { stderr: '', timedOut: true }, { branch: 'main', timeoutMs: 120_000 })).toBe(
      'fetch did not finish within 120 s (sources[].timeoutMs); stopped',
    );
    expect(
      describeGitFailure('fetch', { stderr: "fatal: couldn't find remote ref refs/heads/dev\n" }, { branch: 'dev', timeoutMs: 1, branches: ['main', 'gh-pages'] }),
    ).toBe('fetch failed: branch "dev" not found on the remote; it has main, gh-pages');
  });

  it('refuses URLs git would read as an option or a transport helper', () => {
    for (const ok of ['https://github.com/a/b.git', 'git@github.com:a/b.git', 'ssh://git@h/x', '/srv/x.git', '../up.git', 'file:///srv/x.git']) {
      expect(unsafeGitUrl(ok), ok).toBeNull();
    }
    expect(unsafeGitUrl('--upload-pack=touch /tmp/x')).toMatch(/must not start with "-"/);
    expect(unsafeGitUrl('-u touch')).toMatch(/must not start with "-"/);
    expect(unsafeGitUrl('ext::sh -c touch% /tmp/x')).toMatch(/transport helpers \("ext::…"\)/);
    expect(unsafeGitUrl('https://h/x\n--upload-pack=y')).toMatch(/control characters/);
  });

  it('lists what a reset would lose, one line however many', () => {
    const z = ' M a.md\0?? new.md\0R  b.md\0old-b.md\0D  gone.md\0A  added.md\0';
    expect(describeStatus(z)).toEqual(['modified a.md', 'untracked new.md', 'modified b.md', 'deleted gone.md', 'added added.md']);
    const many = Array.from({ length: 8 }, (_, i) => `untracked f${i}`);
    expect(listLoss(many, 'uncommitted change')).toBe(
      '8 uncommitted changes (untracked f0, untracked f1, untracked f2, untracked f3, untracked f4, and 3 more)',
    );
  });
});

describe('error codes in words', () => {
  it('names the file or the port, with the exit code of the README table', () => {
    const err = (code: string, extra: Record<string, unknown> = {}) => Object.assign(new Error('x'), { code, ...extra });
    expect(describeSystemError(err('SQLITE_CORRUPT'), { file: '/d/i.db' })).toEqual({
      message: 'the index /d/i.db is corrupt (the database disk image is malformed): restore it from a backup, or move it away and index again',
      exitCode: EXIT.usage,
    });
    expect(describeSystemError(err('SQLITE_READONLY_DIRECTORY'), { file: '/d/i.db' })?.message).toMatch(/its folder is read-only/);
    expect(describeSystemError(err('SQLITE_FULL'), { file: '/d/i.db' })).toMatchObject({ exitCode: EXIT.failed });
    expect(describeSystemError(err('EACCES', { path: '/d/i.db' }))?.message).toBe('/d/i.db: permission denied');
    expect(describeSystemError(err('EADDRINUSE', { syscall: 'listen', port: 8787, address: '127.0.0.1' }))?.message).toMatch(
      /^port 8787 on 127\.0\.0\.1 is already in use/,
    );
    expect(describeSystemError(err('EACCES', { syscall: 'listen', port: 80, address: '0.0.0.0' }))?.message).toMatch(/ports below 1024/);
    expect(describeSystemError(new TypeError('bug'))).toBeNull();
    expect(describeSystemError(err('SQLITE_MISUSE'))).toBeNull();
  });
});

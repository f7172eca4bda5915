// git's stderr in one line of words, and the URLs git would run as commands.
import { describe, expect, it } from 'vitest';
import { describeGitFailure, gitReason } from '../../src/sources/git-errors.ts';
import { unsafeGitUrl } from '../../src/config/git-url.ts';
import { shownPath } from '../../src/core/shown-path.ts';

describe('git failures', () => {
  it("takes git's reason, not its progress chatter, credentials removed", () => {
    const stderr = "Cloning into '/x/.tmp'...\nfatal: unable to access 'https://u:tok@h/x.git/': Could not resolve host: h\n";
    expect(gitReason({ stderr })).toBe("unable to access 'https://***@h/x.git/': Could not resolve host: h");
    expect(gitReason({ stderr: "Cloning into 'x'...\nwarning: Could not find remote branch b to clone.\nfatal: Remote branch b not found in upstream origin\n" })).toBe(
      'Remote branch b not found in upstream origin',
    );
    expect(gitReason({ stderr: '' })).toBe('no message from git');
    expect(describeGitFailure('fetch', { stderr: '', timedOut: true }, { branch: 'main', timeoutMs: 120_000 })).toBe('fetch did not finish within 120 s; stopped');
    expect(
      describeGitFailure('fetch', { stderr: "fatal: couldn't find remote ref refs/heads/dev\n" }, { branch: 'dev', timeoutMs: 1, branches: ['main', 'gh-pages'] }),
    ).toBe('fetch failed: branch "dev" not found on the remote; it has main, gh-pages');
    expect(describeGitFailure('clone', { stderr: 'fatal: Remote branch main not found in upstream origin' }, { branch: 'main', timeoutMs: 1, branches: [] })).toBe(
      'clone failed: branch "main" not found on the remote; it has no branches (an empty repository)',
    );
  });

  it('refuses URLs git would read as an option or a transport helper, accepts the usual ones', () => {
    for (const ok of ['https://github.com/a/b.git', 'git@github.com:a/b.git', 'ssh://git@h/x', '/srv/x.git', '../up.git', 'file:///srv/x.git', 'C:/repos/x']) {
      expect(unsafeGitUrl(ok), ok).toBeNull();
    }
    expect(unsafeGitUrl('--upload-pack=touch /tmp/x')).toMatch(/must not start with "-"/);
    expect(unsafeGitUrl('-u touch')).toMatch(/must not start with "-"/);
    expect(unsafeGitUrl('ext::sh -c touch% /tmp/x')).toMatch(/transport helpers \("ext::…"\)/);
    expect(unsafeGitUrl('https://h/x\n--upload-pack=y')).toMatch(/control characters/);
  });

  it('quotes a path that could break a message line', () => {
    expect(shownPath('a/b.md')).toBe('a/b.md');
    expect(shownPath('a\nb.md')).toBe('"a\\nb.md"');
    expect(shownPath('tab\there')).toBe('"tab\\there"');
  });
});

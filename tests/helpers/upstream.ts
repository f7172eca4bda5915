import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync, rmSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } }).trim();

/** A real bare upstream plus a working clone to make commits in. */
export class Upstream {
  readonly bare: string;
  readonly work: string;

  constructor(root: string) {
    this.bare = join(root, 'upstream.git');
    this.work = join(root, 'upstream-work');
    mkdirSync(this.bare, { recursive: true });
    git(this.bare, 'init', '--bare', '--quiet', '--initial-branch=main');
    mkdirSync(this.work, { recursive: true });
    git(this.work, 'init', '--quiet', '--initial-branch=main');
    git(this.work, 'config', 'user.email', 'test@example.com');
    git(this.work, 'config', 'user.name', 'test');
    git(this.work, 'remote', 'add', 'origin', this.bare);
  }

  write(path: string, content: string | Buffer): this {
    const full = join(this.work, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
    return this;
  }

  remove(path: string): this {
    rmSync(join(this.work, path));
    return this;
  }

  move(from: string, to: string): this {
    mkdirSync(dirname(join(this.work, to)), { recursive: true });
    renameSync(join(this.work, from), join(this.work, to));
    return this;
  }

  /** Commits everything and pushes (force, so tests can rewrite history). Returns the sha. */
  commit(message = 'change'): string {
    git(this.work, 'add', '-A');
    git(this.work, 'commit', '--quiet', '--allow-empty', '-m', message);
    git(this.work, 'push', '--quiet', '--force', 'origin', 'HEAD:main');
    return git(this.work, 'rev-parse', 'HEAD');
  }

  git(...args: string[]): string {
    return git(this.work, ...args);
  }
}

/** A bare clone of a corpus bundle whose main can be moved to any of its commits. */
export class BundleUpstream {
  constructor(
    readonly bare: string,
    readonly bundle: string,
  ) {
    execFileSync('git', ['clone', '--quiet', '--bare', bundle, bare]);
  }

  /** Commits of main, oldest first. */
  commits(): string[] {
    return git(this.bare, 'rev-list', '--reverse', 'main').split('\n');
  }

  moveTo(sha: string): void {
    git(this.bare, 'update-ref', 'refs/heads/main', sha);
  }
}

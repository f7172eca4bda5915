import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import type { Snapshot, SourceFile } from './types.ts';
import { readBlobs } from './catfile.ts';
import { RagsyncError, errorMessage } from '../core/errors.ts';
import { redactUrl } from '../core/redact.ts';

export interface GitSourceOptions {
  name: string;
  url: string;
  branch: string;
  /** Checkout folder. */
  root: string;
  /** false (dry runs): fetch but leave the working tree as it is. */
  updateWorkTree: boolean;
  log: Logger;
}

// Only what git needs: simple-git refuses to run with editor/pager/askpass-style variables set,
// and a prompt for credentials would hang an unattended run.
const PASS_ENV = /^(PATH|HOME|USER|TMPDIR|LANG|SSL_CERT_FILE|SSL_CERT_DIR|GIT_SSL_CAINFO|SSH_AUTH_SOCK|(HTTPS?|NO|ALL)_PROXY|(https?|no|all)_proxy)$/;
const ENV: Record<string, string> = {
  ...Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => PASS_ENV.test(e[0]) && e[1] !== undefined)),
  GIT_TERMINAL_PROMPT: '0',
  LC_ALL: 'C',
};

const TIMEOUT_MS = 120_000;

/** simple-git for the clone (first run only: loaded then, it costs ~50 ms to import). */
async function clone(url: string, root: string, branch: string): Promise<void> {
  const { simpleGit } = await import('simple-git');
  await simpleGit({ timeout: { block: TIMEOUT_MS } })
    .env(ENV)
    .clone(url, root, ['--branch', branch, '--single-branch', '--no-tags']);
}

/**
 * The hourly path (fetch, rev-parse, ls-tree, reset) runs git directly: a third of simple-git's
 * per-call cost, which is most of a no-op run. Fails with git's own message (stderr).
 */
function run(cwd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env: ENV, timeout: TIMEOUT_MS, maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(stderr.trim() || err.message));
      else resolve(stdout);
    });
  });
}

/** First line of a git error, with credentials removed. */
function gitError(err: unknown): string {
  const line = errorMessage(err).split('\n').map((l) => l.trim()).find((l) => l.length > 0) ?? 'unknown error';
  return redactUrl(line);
}

/**
 * Clones on first use, then fetches straight from the configured URL (force-updating the remote
 * branch, so upstream force-pushes work) and, unless a dry run, hard-resets the working tree to it.
 * Files are listed and read from the fetched commit's objects, so the plan always matches exactly
 * one commit. A checkout that git cannot use (deleted .git, corrupted objects) is cloned again once.
 * An unchanged upstream costs three git processes: fetch, rev-parse, ls-tree.
 */
export async function gitSnapshot(o: GitSourceOptions, match: (path: string) => boolean): Promise<Snapshot> {
  try {
    return await snapshotOnce(o, match);
  } catch (err) {
    if (!(err instanceof BrokenCheckout)) throw err;
    o.log.warn({ source: o.name, root: o.root, reason: err.message }, 'checkout is unusable; cloning again');
    rmSync(o.root, { recursive: true, force: true });
    return snapshotOnce(o, match);
  }
}

class BrokenCheckout extends Error {}

async function snapshotOnce(o: GitSourceOptions, match: (path: string) => boolean): Promise<Snapshot> {
  const where = `source "${o.name}" (${redactUrl(o.url)})`;
  if (existsSync(o.root) && !existsSync(join(o.root, '.git', 'HEAD'))) {
    throw new BrokenCheckout('no .git/HEAD');
  }
  if (!existsSync(o.root)) {
    mkdirSync(dirname(o.root), { recursive: true });
    try {
      await clone(o.url, o.root, o.branch);
    } catch (err) {
      rmSync(o.root, { recursive: true, force: true });
      throw new RagsyncError(`${where}: clone failed: ${gitError(err)}`);
    }
  }
  const ref = `refs/remotes/origin/${o.branch}`;
  try {
    await run(o.root, ['fetch', '--quiet', '--prune', '--no-tags', o.url, `+refs/heads/${o.branch}:${ref}`]);
  } catch (err) {
    const msg = gitError(err);
    if (/not a git repository|corrupt|bad object|unable to read/i.test(msg)) throw new BrokenCheckout(msg);
    throw new RagsyncError(`${where}: fetch failed: ${msg}`);
  }
  let head: string;
  let commit: string;
  try {
    [head, commit] = (await run(o.root, ['rev-parse', 'HEAD', `${ref}^{commit}`])).trim().split('\n') as [string, string];
  } catch (err) {
    throw new BrokenCheckout(gitError(err));
  }
  if (o.updateWorkTree && head !== commit) {
    await run(o.root, ['reset', '--hard', '--quiet', commit]);
  }
  let files: SourceFile[];
  try {
    files = await listTree(o.root, commit, match);
  } catch (err) {
    throw new BrokenCheckout(gitError(err));
  }
  const shaByPath = new Map(files.map((f) => [f.path, f.stamp]));
  return {
    commit,
    files,
    read: (paths) =>
      readBlobs(
        o.root,
        paths.map((path) => ({ path, sha: shaByPath.get(path)! })),
      ),
  };
}

/** `git ls-tree -r -l -z`: regular files (no links, no submodules) that match, with blob id and size. */
async function listTree(root: string, commit: string, match: (path: string) => boolean): Promise<SourceFile[]> {
  const out = await run(root, ['-c', 'core.quotePath=false', 'ls-tree', '-r', '-l', '-z', commit]);
  const files: SourceFile[] = [];
  for (const entry of out.split('\0')) {
    if (!entry) continue;
    const tab = entry.indexOf('\t');
    const [mode, type, sha, size] = entry.slice(0, tab).split(/\s+/);
    const path = entry.slice(tab + 1);
    if (type !== 'blob' || mode === '120000' || !match(path)) continue;
    files.push({ path, size: Number(size), stamp: sha! });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return files;
}

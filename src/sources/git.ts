import { simpleGit, type SimpleGit } from 'simple-git';
import { existsSync, mkdirSync, realpathSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import type { Snapshot, SourceFile } from './types.ts';
import { readBlobs } from './catfile.ts';
import { RagsyncError, errorMessage } from '../util/errors.ts';
import { redactUrl } from '../util/redact.ts';

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

/**
 * The environment git runs with: never prompt for credentials, and leave out the variables that
 * make git run another program (editor, pager, askpass, proxy, …): simple-git refuses to run with
 * any of them set, and an indexer needs none. GIT_SSH(_COMMAND) is kept: deployments use it for keys.
 */
const DROPPED = new Set([
  'editor', 'pager', 'prefix', 'ssh_askpass', 'git_askpass', 'git_editor', 'git_sequence_editor', 'git_pager',
  'git_config', 'git_config_global', 'git_config_system', 'git_config_count', 'git_exec_path',
  'git_external_diff', 'git_proxy_command', 'git_template_dir',
]);
const ENV: Record<string, string> = {
  ...Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] => e[1] !== undefined && !DROPPED.has(e[0].toLowerCase()) && !/^git_config_(key|value)_/i.test(e[0]),
    ),
  ),
  GIT_TERMINAL_PROMPT: '0',
  LC_ALL: 'C',
};

function git(dir?: string): SimpleGit {
  return simpleGit({ baseDir: dir, timeout: { block: 120_000 }, unsafe: { allowUnsafeSshCommand: true } }).env(ENV);
}

/** First line of a git error, with credentials removed. */
function gitError(err: unknown): string {
  const line = errorMessage(err).split('\n').map((l) => l.trim()).find((l) => l.length > 0) ?? 'unknown error';
  return redactUrl(line);
}

async function isHealthyCheckout(root: string): Promise<boolean> {
  if (!existsSync(root)) return false;
  try {
    const top = (await git(root).revparse(['--show-toplevel'])).trim();
    // A checkout whose .git is gone would otherwise resolve to an enclosing repository.
    return existsSync(top) && realpathSync(top) === realpathSync(root) && (await git(root).raw(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'])).trim().length > 0;
  } catch {
    return false;
  }
}

/**
 * Clones on first use, then fetches (force-updating the remote branch, so upstream force-pushes
 * work) and, unless a dry run, hard-resets the working tree to it. Files are listed and read from
 * the fetched commit's objects, so the plan always matches exactly one commit.
 */
export async function gitSnapshot(o: GitSourceOptions, match: (path: string) => boolean): Promise<Snapshot> {
  const where = `source "${o.name}" (${redactUrl(o.url)})`;
  if (existsSync(o.root) && !(await isHealthyCheckout(o.root))) {
    o.log.warn({ source: o.name, root: o.root }, 'checkout is missing or corrupted; cloning again');
    rmSync(o.root, { recursive: true, force: true });
  }
  if (!existsSync(o.root)) {
    mkdirSync(dirname(o.root), { recursive: true });
    try {
      await git().clone(o.url, o.root, ['--branch', o.branch, '--single-branch', '--no-tags']);
    } catch (err) {
      rmSync(o.root, { recursive: true, force: true });
      throw new RagsyncError(`${where}: clone failed: ${gitError(err)}`);
    }
  }
  const repo = git(o.root);
  const ref = `refs/remotes/origin/${o.branch}`;
  try {
    await repo.remote(['set-url', 'origin', o.url]);
    await repo.fetch(['--prune', '--no-tags', 'origin', `+refs/heads/${o.branch}:${ref}`]);
  } catch (err) {
    throw new RagsyncError(`${where}: fetch failed: ${gitError(err)}`);
  }
  const commit = (await repo.revparse([`${ref}^{commit}`])).trim();
  if (o.updateWorkTree) {
    await repo.raw(['reset', '--hard', '--quiet', commit]);
  }
  const files = await listTree(repo, commit, match);
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
async function listTree(repo: SimpleGit, commit: string, match: (path: string) => boolean): Promise<SourceFile[]> {
  const out = await repo.raw(['-c', 'core.quotePath=false', 'ls-tree', '-r', '-l', '-z', commit]);
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

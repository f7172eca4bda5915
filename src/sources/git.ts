import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Logger } from 'pino';
import type { Snapshot, SourceFile } from './types.ts';
import { readBlobs } from './catfile.ts';
import { describeStatus, inspectCheckout, listLoss, writeMarker, type CheckoutMarker } from './checkout.ts';
import { describeGitFailure, gitReason, missingBranch, type GitFailure } from './git-errors.ts';
import { RagsyncError } from '../core/errors.ts';
import { redactUrl } from '../core/redact.ts';
import { unsafeGitUrl } from '../config/git-url.ts';

export interface GitSourceOptions {
  name: string;
  url: string;
  branch: string;
  /** Checkout folder. */
  root: string;
  /** false (dry runs): fetch but leave the working tree as it is. */
  updateWorkTree: boolean;
  /** Deadline of each git call (clone, fetch, …): it is stopped after this long. */
  timeoutMs?: number;
  log: Logger;
}

// Only what git needs: a prompt for credentials, an editor or a pager would hang an unattended run.
const PASS_ENV = /^(PATH|HOME|USER|TMPDIR|LANG|SSL_CERT_FILE|SSL_CERT_DIR|GIT_SSL_CAINFO|SSH_AUTH_SOCK|(HTTPS?|NO|ALL)_PROXY|(https?|no|all)_proxy)$/;
const ENV: Record<string, string> = {
  ...Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => PASS_ENV.test(e[0]) && e[1] !== undefined)),
  GIT_TERMINAL_PROMPT: '0',
  LC_ALL: 'C',
};

const DEFAULT_TIMEOUT_MS = 120_000;

/** A git process that failed, with git's own reason. */
class GitError extends Error {
  constructor(readonly failure: GitFailure) {
    super(gitReason(failure));
  }
}

/**
 * git run directly (one process per call, no wrapper: its per-call cost is most of a no-op run).
 * Fails with a GitError carrying git's stderr, or that it was stopped at the deadline. In a
 * checkout, git is told its repository: otherwise a checkout whose .git is broken would make git
 * look upward and act on whatever repository encloses the folder.
 */
function run(cwd: string, args: string[], timeoutMs = DEFAULT_TIMEOUT_MS, checkout = true): Promise<string> {
  const full = checkout ? [`--git-dir=${join(cwd, '.git')}`, `--work-tree=${cwd}`, ...args] : args;
  return new Promise((resolve, reject) => {
    execFile('git', full, { cwd, env: ENV, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout);
      const e = err as NodeJS.ErrnoException & { killed?: boolean };
      if (e.code === 'ENOENT' && !stderr) return reject(new GitError({ stderr: '', spawnError: 'git is not installed (not found on PATH)' }));
      reject(new GitError({ stderr: stderr || e.message, timedOut: !!e.killed }));
    });
  });
}

const failureOf = (err: unknown): GitFailure => (err instanceof GitError ? err.failure : { stderr: String(err) });

/** The checkout is ragsync's own but git cannot use it (deleted objects, garbage HEAD): cloned again. */
class BrokenCheckout extends Error {}

/**
 * Clones on first use, then fetches straight from the configured URL (force-updating the remote
 * branch, so upstream force-pushes work) and, unless a dry run, hard-resets the working tree to it.
 * Files are listed and read from the fetched commit's objects, so the plan always matches exactly
 * one commit. An unchanged upstream costs three git processes: fetch, rev-parse, ls-tree.
 *
 * Only ragsync's own checkouts (marked at clone time, see checkout.ts) are ever reset, re-cloned or
 * removed. A folder at the checkout path that is not one is refused untouched; an unmarked clean
 * clone of the same URL and branch (made by an older ragsync) is adopted; a checkout holding
 * changes or commits a reset would lose is refused with the list of them.
 */
export async function gitSnapshot(o: GitSourceOptions, match: (path: string) => boolean): Promise<Snapshot> {
  const where = `source "${o.name}" (${redactUrl(o.url)})`;
  const unsafe = unsafeGitUrl(o.url);
  if (unsafe) throw new RagsyncError(`${where}: ${unsafe}`);
  try {
    return await snapshotOnce(o, where, match);
  } catch (err) {
    if (!(err instanceof BrokenCheckout)) throw err;
    o.log.warn({ source: o.name, root: o.root, reason: err.message }, 'checkout is unusable; cloning again');
    rmSync(o.root, { recursive: true, force: true });
    return snapshotOnce(o, where, match);
  }
}

async function snapshotOnce(o: GitSourceOptions, where: string, match: (path: string) => boolean): Promise<Snapshot> {
  const t = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const state = inspectCheckout(o.root);
  let marker: CheckoutMarker;
  switch (state.kind) {
    case 'foreign':
      throw new RagsyncError(
        `${where}: the checkout path ${o.root} ${state.why}, not a checkout ragsync made; ragsync does not delete or ` +
          `overwrite what it did not create: move it away, or point sources[].path at another folder`,
      );
    case 'missing':
    case 'empty':
      marker = await clone(o, where, t);
      break;
    case 'unmarked':
      marker = await adopt(o, where, t);
      break;
    case 'ours':
      if (state.marker.source && state.marker.source !== o.name) {
        throw new RagsyncError(`${where}: the checkout ${o.root} belongs to source "${state.marker.source}"; give each git source its own path`);
      }
      marker = state.marker;
      break;
  }
  const ref = `refs/remotes/origin/${o.branch}`;
  try {
    await run(o.root, ['fetch', '--quiet', '--prune', '--no-tags', '--', o.url, `+refs/heads/${o.branch}:${ref}`], t);
  } catch (err) {
    const f = failureOf(err);
    const reason = gitReason(f);
    if (!f.timedOut && /not a git repository|corrupt|bad object|unable to read/i.test(reason) && !missingBranch(reason)) {
      throw new BrokenCheckout(reason);
    }
    const branches = missingBranch(reason) ? await remoteBranches(o.url, t) : undefined;
    throw new RagsyncError(`${where}: ${describeGitFailure('fetch', f, { branch: o.branch, timeoutMs: t, branches })}`);
  }
  let head: string;
  let commit: string;
  try {
    [head, commit] = (await run(o.root, ['rev-parse', 'HEAD', `${ref}^{commit}`], t)).trim().split('\n') as [string, string];
  } catch (err) {
    throw new BrokenCheckout(gitReason(failureOf(err)));
  }
  if (o.updateWorkTree && head !== commit) {
    const lost = await unsavedWork(o.root, commit, marker.commit, t);
    if (lost.length) {
      throw new RagsyncError(
        `${where}: the checkout ${o.root} holds work a reset to upstream would lose: ${lost.join('; ')}; ` +
          'ragsync leaves it as it is: commit and push it, or move the folder away',
      );
    }
    await run(o.root, ['reset', '--hard', '--quiet', commit], t);
    writeMarker(o.root, { ...marker, url: redactUrl(o.url), commit });
  }
  let files: SourceFile[];
  try {
    files = await listTree(o.root, commit, match, t);
  } catch (err) {
    throw new BrokenCheckout(gitReason(failureOf(err)));
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

/**
 * First use: clone into a temporary folder beside the checkout path, mark it, then move it into
 * place, so the path never holds a half-made clone and a clone killed half-way is never mistaken
 * for a finished one.
 */
async function clone(o: GitSourceOptions, where: string, timeoutMs: number): Promise<CheckoutMarker> {
  const parent = dirname(o.root);
  mkdirSync(parent, { recursive: true });
  const prefix = `.${basename(o.root)}.ragsync-clone-`;
  // Left by a clone whose process was killed: named by ragsync, so ragsync's to remove.
  for (const name of readdirSync(parent)) {
    const pid = Number(/^(\d+)-/.exec(name.slice(prefix.length))?.[1]);
    if (name.startsWith(prefix) && pid && !alive(pid)) rmSync(join(parent, name), { recursive: true, force: true });
  }
  const tmp = join(parent, `${prefix}${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    await run(parent, ['clone', '--quiet', '--branch', o.branch, '--single-branch', '--no-tags', '--', o.url, tmp], timeoutMs, false);
    const marker: CheckoutMarker = { source: o.name, url: redactUrl(o.url), commit: null, createdAt: new Date().toISOString() };
    marker.commit = (await run(tmp, ['rev-parse', 'HEAD'], timeoutMs)).trim();
    writeMarker(tmp, marker);
    // An empty folder at the path (made by the user, or a mount point) is replaced; anything else stays.
    if (inspectCheckout(o.root).kind === 'empty') rmdirSync(o.root);
    renameSync(tmp, o.root);
    return marker;
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    if (!(err instanceof GitError)) throw err;
    const branches = missingBranch(err.message) ? await remoteBranches(o.url, timeoutMs) : undefined;
    throw new RagsyncError(`${where}: ${describeGitFailure('clone', err.failure, { branch: o.branch, timeoutMs, branches })}`);
  }
}

/**
 * A git working copy at the checkout path without ragsync's marker: a clone made before checkouts
 * were marked, or someone's own. It is adopted only when it is a clone of this URL, on this branch,
 * with nothing a reset would lose; otherwise it is refused and left as it is.
 */
async function adopt(o: GitSourceOptions, where: string, timeoutMs: number): Promise<CheckoutMarker> {
  const refuse = (why: string) =>
    new RagsyncError(
      `${where}: ${o.root} is a git working copy ragsync did not make (${why}); ragsync does not reset what it did not ` +
        'create: move it away, or point sources[].path at another folder',
    );
  const git = (args: string[]) => run(o.root, args, timeoutMs).then((s) => s.trim());
  try {
    await git(['rev-parse', '--git-dir']);
  } catch (err) {
    throw refuse(`git cannot read it: ${gitReason(failureOf(err))}`);
  }
  const origin = await git(['config', '--get', 'remote.origin.url']).catch(() => '');
  const branch = await git(['symbolic-ref', '--quiet', '--short', 'HEAD']).catch(() => '');
  if (!origin) throw refuse('it has no origin remote');
  if (!sameUrl(origin, o.url)) throw refuse(`its origin is ${redactUrl(origin)}`);
  if (branch !== o.branch) throw refuse(branch ? `it is on branch "${branch}", not "${o.branch}"` : 'its HEAD is detached');
  let head: string;
  try {
    head = await git(['rev-parse', 'HEAD']);
    await git(['rev-parse', '--verify', '--quiet', `refs/remotes/origin/${o.branch}^{commit}`]);
  } catch {
    throw refuse(`it has no origin/${o.branch} to compare with`);
  }
  const lost = await unsavedWork(o.root, `refs/remotes/origin/${o.branch}`, null, timeoutMs);
  if (lost.length) throw refuse(`it holds ${lost.join('; ')}`);
  const marker: CheckoutMarker = { source: o.name, url: redactUrl(o.url), commit: head, createdAt: new Date().toISOString() };
  writeMarker(o.root, marker);
  o.log.info({ source: o.name, root: o.root }, 'adopted a clean clone of the same upstream made before checkouts were marked');
  return marker;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** URLs equal up to a trailing slash or ".git" (what git itself treats as the same remote). */
function sameUrl(a: string, b: string): boolean {
  const norm = (u: string) => u.trim().replace(/\/+$/, '').replace(/\.git$/, '').replace(/\/+$/, '');
  return norm(a) === norm(b);
}

/**
 * What `git reset --hard <target>` would lose: uncommitted changes and untracked files, and commits
 * reachable from HEAD that are neither in the target nor where ragsync last left the tree (`known`;
 * upstream commits a force-push dropped are not anyone's local work).
 */
async function unsavedWork(root: string, target: string, known: string | null, timeoutMs: number): Promise<string[]> {
  const changes = describeStatus(await run(root, ['-c', 'core.quotePath=false', 'status', '--porcelain=v1', '-z'], timeoutMs));
  const revList = (not: string[]) =>
    run(root, ['log', '--max-count=21', '--format=%h %s', 'HEAD', '--not', ...not, '--'], timeoutMs).then((s) => s.split('\n').filter(Boolean));
  // The commit ragsync last left may be gone from the object store (gc): then only the target counts.
  const commits = await (known ? revList([target, known]).catch(() => revList([target])) : revList([target]));
  const lost: string[] = [];
  if (changes.length) lost.push(listLoss(changes, 'uncommitted change'));
  if (commits.length) lost.push(listLoss(commits.slice(0, 20).concat(commits.length > 20 ? ['…'] : []), 'local commit'));
  return lost;
}

/** The remote's branch names, for a "branch not found" message; null when it cannot be asked. */
async function remoteBranches(url: string, timeoutMs: number): Promise<string[] | null> {
  try {
    const out = await run(process.cwd(), ['ls-remote', '--heads', '--', url], Math.min(timeoutMs, 30_000), false);
    return out.split('\n').filter(Boolean).map((l) => l.replace(/^\S+\trefs\/heads\//, ''));
  } catch {
    return null;
  }
}

/** `git ls-tree -r -l -z`: regular files (no links, no submodules) that match, with blob id and size. */
async function listTree(root: string, commit: string, match: (path: string) => boolean, timeoutMs: number): Promise<SourceFile[]> {
  const out = await run(root, ['-c', 'core.quotePath=false', 'ls-tree', '-r', '-l', '-z', commit], timeoutMs);
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


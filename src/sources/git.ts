import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import type { Logger } from 'pino';
import type { Snapshot, SourceFile, UnlistedSnapshot } from './types.ts';
import { readBlobs } from './catfile.ts';
import { RagsyncError } from '../core/errors.ts';
import { redactUrl } from '../core/redact.ts';
import { unsafeGitUrl } from '../config/git-url.ts';
import { describeGitFailure, gitReason, missingBranch, type GitFailure } from './git-errors.ts';
import { failpoint } from '../core/failpoint.ts';
import {
  adoptCheckout,
  describeUnsaved,
  inspectCheckout,
  isOwnCheckout,
  localCommits,
  markCheckout,
  moveFormerCheckout,
  uncommittedFiles,
  type UnsavedWork,
} from './checkout-guard.ts';

export interface GitSourceOptions {
  name: string;
  url: string;
  branch: string;
  /** Checkout folder. */
  root: string;
  /** false (dry runs): fetch but leave the working tree as it is. */
  updateWorkTree: boolean;
  log: Logger;
  /** When the fetched commit is this one, the files are not listed (an UnlistedSnapshot). */
  unlistedAt?: string;
  /** The commit the index holds: ragsync put it in the checkout, so it is never the user's local work. */
  indexedCommit?: string | null;
  /** The index the checkout serves (recorded in it; another index's checkout is refused). */
  index?: string;
  /** Where versions before per-index checkouts kept this one: moved to `root` rather than cloned again. */
  formerRoot?: string;
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

/** A clone may be slow, but not endless: a server trickling bytes must not hold the run for ever. */
const CLONE_DEADLINE_MS = 30 * 60_000;

/**
 * simple-git, the project's git library, for the calls off the hourly path: a clone, asking a
 * remote its branches. Loaded on first use: importing it costs 36–64 ms (measured beside a git call
 * of ~10 ms), which a no-op run, one fetch, would otherwise pay every hour.
 */
async function git(o: { timeoutMs: number; deadlineMs?: number; cwd?: string }) {
  const { simpleGit } = await import('simple-git');
  return simpleGit({ baseDir: o.cwd, timeout: { block: o.timeoutMs }, ...(o.deadlineMs ? { abort: AbortSignal.timeout(o.deadlineMs) } : {}) }).env(ENV);
}

async function clone(url: string, root: string, branch: string): Promise<void> {
  // "--" before the URL: whatever it holds, git reads it as a repository, never as an option.
  await (await git({ timeoutMs: TIMEOUT_MS, deadlineMs: CLONE_DEADLINE_MS })).clone(url, root, ['--branch', branch, '--single-branch', '--no-tags', '--']);
}

/**
 * Clones into a folder that did not exist: into a hidden sibling first, marked as ragsync's, then
 * renamed into place, so a run killed mid-clone never leaves a half-made, unmarked checkout at
 * `root` (it would be refused as not ragsync's). Leftovers of killed clones are removed first.
 */
async function cloneNew(url: string, root: string, branch: string, index?: string): Promise<void> {
  const parent = dirname(root);
  mkdirSync(parent, { recursive: true });
  const prefix = `.${basename(root)}.ragsync-clone-`;
  for (const name of readdirSync(parent)) {
    const pid = name.startsWith(prefix) ? Number(name.slice(prefix.length)) : NaN;
    if (Number.isInteger(pid) && !processAlive(pid)) rmSync(join(parent, name), { recursive: true, force: true });
  }
  const tmp = join(parent, `${prefix}${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  try {
    await clone(url, tmp, branch);
    failpoint('after-clone');
    markCheckout(tmp, url, index);
    renameSync(tmp, root);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Clones into an existing empty folder (the user's: on failure it is emptied again, not removed). */
async function cloneInto(url: string, root: string, branch: string, index?: string): Promise<void> {
  try {
    await clone(url, root, branch);
    markCheckout(root, url, index);
  } catch (err) {
    for (const name of readdirSync(root)) rmSync(join(root, name), { recursive: true, force: true });
    throw err;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The hourly path (fetch, rev-parse, ls-tree, reset, and the unsaved-work checks) runs git
 * directly rather than through simple-git: a no-op run is one `git fetch`, and loading simple-git
 * would add its 36–64 ms import to it; and `fetch -v` reports on stderr whether the branch moved
 * (read here to skip a second process), which simple-git's raw() does not return on success.
 * Fails with git's own message (stderr).
 *
 * Every call here works in a checkout, and git is told that repository explicitly: left to find it
 * itself, git would take a checkout whose .git is damaged (a garbage HEAD) for no repository and
 * walk up to whatever repository encloses the folder — and fetch into it and reset it.
 */
function run(cwd: string, args: string[]): Promise<string> {
  return runBoth(cwd, args).then((r) => r.stdout);
}

function runBoth(cwd: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  const inRepo = [`--git-dir=${join(cwd, '.git')}`, `--work-tree=${cwd}`, ...args];
  return new Promise((resolve, reject) => {
    execFile('git', inRepo, { cwd, env: ENV, timeout: TIMEOUT_MS, maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (!err) return resolve({ stdout, stderr });
      const timedOut = (err as { killed?: boolean }).killed === true;
      reject(Object.assign(new Error(stderr.trim() || err.message), { failure: { stderr: stderr || err.message, timedOut } }));
    });
  });
}

/**
 * Whether `git fetch -v` reported `dst` unchanged: its ref lines are "<flag> <summary> <from> -> <to>"
 * (git-fetch(1), OUTPUT), and "=" is the flag of a ref that is up to date. Anything else, or no such
 * line, counts as changed: the caller then asks rev-parse.
 */
export function fetchLeftUnchanged(stderr: string, dst: string): boolean {
  const short = dst.replace(/^refs\/remotes\//, '');
  return stderr.split('\n').some((l) => {
    const m = /^ = \[up to date\]\s+\S+\s+-> (\S+)$/.exec(l.trimEnd());
    return m !== null && (m[1] === short || m[1] === dst);
  });
}

const failureOf = (err: unknown): GitFailure =>
  (err as { failure?: GitFailure }).failure ?? { stderr: err instanceof Error ? err.message : String(err) };

/** git's reason for a failure in one line, credentials removed (not the "Cloning into …" it starts with). */
function gitError(err: unknown): string {
  return gitReason(failureOf(err));
}

/** A failed clone or fetch in words: a missing branch names the ones the remote has. */
async function describeFailure(step: 'clone' | 'fetch', err: unknown, o: GitSourceOptions): Promise<string> {
  const f = failureOf(err);
  const branches = missingBranch(gitReason(f)) ? await remoteBranches(o.url) : undefined;
  return describeGitFailure(step, f, { branch: o.branch, timeoutMs: TIMEOUT_MS, branches });
}

/** The remote's branch names, for a "branch not found" message; null when it cannot be asked. */
async function remoteBranches(url: string): Promise<string[] | null> {
  try {
    const out = await (await git({ timeoutMs: 30_000, deadlineMs: 30_000, cwd: tmpdir() })).listRemote(['--heads', '--', url]);
    return out.split('\n').filter(Boolean).map((l) => l.replace(/^\S+\trefs\/heads\//, ''));
  } catch {
    return null;
  }
}

/**
 * Clones on first use, then fetches straight from the configured URL (force-updating the remote
 * branch, so upstream force-pushes work) and, unless a dry run, hard-resets the working tree to it.
 * Files are listed and read from the fetched commit's objects, so the plan always matches exactly
 * one commit. A checkout that git cannot use (deleted .git, corrupted objects) is cloned again once.
 * An unchanged upstream costs one git process, the fetch (HEAD and the branch read from the
 * checkout's ref files), and a second, ls-tree, unless the run knows the listing (`unlistedAt`).
 */
export async function gitSnapshot(o: GitSourceOptions, match: (path: string) => boolean): Promise<Snapshot | UnlistedSnapshot> {
  // The config schema refuses these; a library caller that builds options by hand meets it here.
  const unsafe = unsafeGitUrl(o.url);
  if (unsafe) throw new RagsyncError(`source "${o.name}" (${redactUrl(o.url)}): ${unsafe}`);
  try {
    return await snapshotOnce(o, match);
  } catch (err) {
    if (!(err instanceof BrokenCheckout)) throw err;
    // Only a checkout ragsync made is deleted and cloned again; anything else is left as it is.
    if (!isOwnCheckout(o.root, o.url, o.index)) {
      throw new RagsyncError(
        `source "${o.name}" (${redactUrl(o.url)}): checkout ${o.root} is unusable (${err.message}) and ragsync did not create it: refusing to delete it; move it away to let ragsync clone again`,
      );
    }
    o.log.warn({ source: o.name, root: o.root, reason: err.message }, 'checkout is unusable; cloning again');
    rmSync(o.root, { recursive: true, force: true });
    return snapshotOnce(o, match);
  }
}

class BrokenCheckout extends Error {}

const broken = (err: unknown): never => {
  throw new BrokenCheckout(gitError(err));
};

/** Refuses (one line naming the checkout and the files/commits) when a reset would lose work. */
async function refuseUnsaved(root: string, where: string, work: { files: string[]; commits: string[] }): Promise<void> {
  const why = describeUnsaved(root, work);
  if (why) throw new RagsyncError(`${where}: ${why}`);
}

/** An object id: SHA-1 (40 hex digits) or SHA-256 (64). */
const OID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

async function snapshotOnce(o: GitSourceOptions, match: (path: string) => boolean): Promise<Snapshot | UnlistedSnapshot> {
  const where = `source "${o.name}" (${redactUrl(o.url)})`;
  // Whose folder is this? Only ragsync's own checkouts are reset or replaced (sources/checkout-guard.ts).
  let state = inspectCheckout(o.root, o.url, o.index);
  if (state.kind === 'absent' && o.formerRoot !== undefined && o.index !== undefined && o.formerRoot !== o.root) {
    if (await moveFormerCheckout(o.formerRoot, o.root, { url: o.url, branch: o.branch, index: o.index }, run)) {
      o.log.info({ source: o.name, from: o.formerRoot, to: o.root }, 'moved the checkout into its own folder for this index');
      state = inspectCheckout(o.root, o.url, o.index);
    }
  }
  const ref = `refs/remotes/origin/${o.branch}`;
  /** HEAD and the remote-tracking branch before the fetch, when read. */
  let known: [string, string] | undefined;
  if (state.kind === 'foreign') throw new RagsyncError(`${where}: ${state.reason}`);
  if (state.kind === 'ours-broken') throw new BrokenCheckout(state.reason);
  if (state.kind === 'absent' || state.kind === 'empty') {
    try {
      await (state.kind === 'absent' ? cloneNew : cloneInto)(o.url, o.root, o.branch, o.index);
    } catch (err) {
      throw new RagsyncError(`${where}: ${await describeFailure('clone', err, o)}`);
    }
  } else if (state.kind === 'unmarked') {
    // A dry run checks but does not mark: it writes nothing of its own.
    await adoptCheckout(o.root, o.url, o.branch, run, o.updateWorkTree, o.index).catch((err: unknown) => {
      throw err instanceof RagsyncError ? new RagsyncError(`${where}: ${err.message}`) : err;
    });
  } else if (o.updateWorkTree) {
    // Before the fetch: commits the user made here are those on no remote-tracking branch yet
    // (after a force-pushed fetch, the upstream's old commits would look local too). HEAD on the
    // fetched branch itself (the state every run leaves) has none, and needs no log to say so.
    known = sameRefs(o.root, ref) ?? await run(o.root, ['rev-parse', 'HEAD', `${ref}^{commit}`]).then(
      (out) => {
        const ids = out.trim().split('\n');
        return ids.length === 2 && ids.every((id) => OID.test(id)) ? (ids as [string, string]) : undefined;
      },
      () => undefined,
    );
    if (!known || known[0] !== known[1]) {
      await refuseUnsaved(o.root, where, { commits: await localCommits(o.root, run, o.indexedCommit, true).catch(broken), files: [] });
    }
  }
  let fetched: { stderr: string };
  try {
    fetched = await runBoth(o.root, ['fetch', '-v', '--no-progress', '--prune', '--no-tags', '--', o.url, `+refs/heads/${o.branch}:${ref}`]);
  } catch (err) {
    const msg = gitError(err);
    if (!failureOf(err).timedOut && /not a git repository|corrupt|bad object|unable to read/i.test(msg)) throw new BrokenCheckout(msg);
    throw new RagsyncError(`${where}: ${await describeFailure('fetch', err, o)}`);
  }
  let head: string;
  let commit: string;
  if (known && fetchLeftUnchanged(fetched.stderr, ref)) {
    // The fetch left the branch where rev-parse found it: no second rev-parse.
    [head, commit] = known;
  } else {
    try {
      [head, commit] = (await run(o.root, ['rev-parse', 'HEAD', `${ref}^{commit}`])).trim().split('\n') as [string, string];
    } catch (err) {
      throw new BrokenCheckout(gitError(err));
    }
  }
  // Refused now, before planning, when the reset would lose files; the reset itself waits until
  // the run has indexed the commit (settle): a run the delete guard refuses leaves the checkout
  // where the index is.
  if (o.updateWorkTree && head !== commit) await refuseUnsaved(o.root, where, { commits: [], files: await uncommittedFiles(o.root, run).catch(broken) });
  let at = head;
  const settle = async () => {
    if (!o.updateWorkTree || at === commit) return;
    await refuseUnsaved(o.root, where, { commits: [], files: await uncommittedFiles(o.root, run) });
    await run(o.root, ['reset', '--hard', '--quiet', commit]);
    at = commit;
  };
  if (o.updateWorkTree && state.kind === 'ours' && (state.markedFor !== undefined || state.unclaimed)) markCheckout(o.root, o.url, o.index);
  if (o.unlistedAt !== undefined && commit === o.unlistedAt) return { commit, unlisted: true, list: async () => ({ ...(await listed(o.root, commit, match)), settle }), settle };
  try {
    return { ...(await listed(o.root, commit, match)), settle };
  } catch (err) {
    throw new BrokenCheckout(gitError(err));
  }
}

/** The snapshot of the files at `commit`, listed now. */
async function listed(root: string, commit: string, match: (path: string) => boolean): Promise<Snapshot> {
  const files = await listTree(root, commit, match);
  const shaByPath = new Map(files.map((f) => [f.path, f.stamp]));
  return {
    commit,
    files,
    read: (paths) =>
      readBlobs(
        root,
        paths.map((path) => ({ path, sha: shaByPath.get(path)! })),
      ),
  };
}

/**
 * HEAD and `ref` read from the checkout's own ref files, as git resolves them (a loose ref file,
 * else packed-refs), when both name the same commit: the state every run leaves, known without
 * starting git. Anything else — different commits, a .git file, reftable, a symbolic ref, an
 * unreadable file — gives undefined, and the caller asks `git rev-parse`.
 */
export function sameRefs(root: string, ref: string): [string, string] | undefined {
  const gitDir = join(root, '.git');
  let packed: Map<string, string> | undefined;
  const resolve = (name: string): string | undefined => {
    if (!/^refs\/[\w.\/-]+$/.test(name) || name.split('/').some((p) => p === '' || p === '.' || p === '..')) return undefined;
    try {
      const id = readFileSync(join(gitDir, name), 'utf8').trim();
      return OID.test(id) ? id : undefined;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return undefined;
    }
    packed ??= packedRefs(gitDir);
    return packed.get(name);
  };
  try {
    const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
    const headId = head.startsWith('ref: ') ? resolve(head.slice(5)) : OID.test(head) ? head : undefined;
    const refId = resolve(ref);
    return headId !== undefined && headId === refId ? [headId, refId] : undefined;
  } catch {
    return undefined;
  }
}

/** packed-refs: "<id> <name>" lines ("#" headers and "^<id>" peeled lines skipped); empty when absent. */
function packedRefs(gitDir: string): Map<string, string> {
  const refs = new Map<string, string>();
  let text: string;
  try {
    text = readFileSync(join(gitDir, 'packed-refs'), 'utf8');
  } catch {
    return refs;
  }
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]+) (refs\/\S+)$/.exec(line);
    if (m && OID.test(m[1]!)) refs.set(m[2]!, m[1]!);
  }
  return refs;
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

/**
 * The branch a repository's HEAD names (`git ls-remote --symref URL HEAD`), or null when it cannot
 * be asked (unreachable, no symref): `source add` writes it so a repository on `master` works.
 */
export async function remoteHeadBranch(url: string, timeoutMs = 20_000): Promise<string | null> {
  try {
    const out = await (await git({ timeoutMs, deadlineMs: timeoutMs, cwd: tmpdir() })).listRemote(['--symref', '--', url, 'HEAD']);
    return /^ref: refs\/heads\/(\S+)\s+HEAD$/m.exec(out)?.[1] ?? null;
  } catch {
    return null;
  }
}

/** What deleting ragsync's own checkout would lose (uncommitted files, local commits), or null when nothing. */
export async function unsavedWorkIn(root: string): Promise<UnsavedWork | null> {
  const work = { commits: await localCommits(root, run, null, true), files: await uncommittedFiles(root, run) };
  return work.files.length || work.commits.length ? work : null;
}

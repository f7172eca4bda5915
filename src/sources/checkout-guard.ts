import { appendFileSync, existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { RagsyncError, errorMessage } from '../core/errors.ts';
import { redactSecrets, redactUrl } from '../core/redact.ts';

/**
 * Which checkout folders ragsync may reset or replace: only the ones it made. Like `git clone`,
 * which refuses a non-empty destination, ragsync refuses a folder it did not create; and like
 * `git checkout`, it refuses to throw away work that exists nowhere else (uncommitted files,
 * commits not on any remote).
 *
 * A checkout ragsync clones carries two markers holding the upstream URL (credentials removed):
 * `.git/ragsync-managed`, and `.ragsync-checkout` at the top of the work tree (kept out of
 * `git status` by .git/info/exclude) so a checkout whose .git was deleted is still known as ours.
 * `.git/ragsync-index` names the index the checkout serves (its database file or server URL): a
 * checkout holds one index's commits, and another index never fetches into it.
 */

export const GIT_MARKER = 'ragsync-managed';
export const TREE_MARKER = '.ragsync-checkout';
export const INDEX_MARKER = 'ragsync-index';

/** Runs git in a folder and returns stdout (git.ts passes its own runner: no import cycle). */
export type GitRunner = (cwd: string, args: string[]) => Promise<string>;

export type CheckoutState =
  | { kind: 'absent' }
  /** An existing empty folder: cloned into, as git does. */
  | { kind: 'empty' }
  /**
   * ragsync's own checkout; `markedFor` is set when it was made for another URL (the config's URL
   * changed: fetching from the new one is fine, the folder is still ragsync's); `unclaimed` when
   * it names no index yet (made before checkouts recorded theirs).
   */
  | { kind: 'ours'; markedFor?: string; unclaimed?: boolean }
  /** ragsync's own checkout of this URL that git cannot use: may be cloned again. */
  | { kind: 'ours-broken'; reason: string }
  /** A git checkout without ragsync's marker (a user's clone, or one made by an older ragsync). */
  | { kind: 'unmarked' }
  /** Anything else: left alone. */
  | { kind: 'foreign'; reason: string };

function readMarker(file: string): string | null {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
}

/**
 * Looks at a checkout folder with the file system alone (cheap: every run does it). With `index`,
 * ragsync's checkout of another index is refused (the config shares its folder with another's).
 */
export function inspectCheckout(root: string, url: string, index?: string): CheckoutState {
  const want = redactUrl(url);
  let isDir: boolean;
  try {
    isDir = statSync(root).isDirectory();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' };
    return { kind: 'foreign', reason: `cannot read ${root}: ${errorMessage(err)}` };
  }
  if (!isDir) return { kind: 'foreign', reason: `${root} exists and is not a folder: refusing to replace it` };
  if (!readdirSync(root).length) return { kind: 'empty' };
  const gitDir = join(root, '.git');
  if (existsSync(gitDir)) {
    if (!statSync(gitDir).isDirectory()) {
      return { kind: 'foreign', reason: `${root} is a git worktree or submodule (its .git is a file) that ragsync did not create: refusing to reset it` };
    }
    const mark = readMarker(join(gitDir, GIT_MARKER));
    if (mark === null) return { kind: 'unmarked' };
    const serves = readMarker(join(gitDir, INDEX_MARKER));
    if (index !== undefined && serves !== null && serves !== index) {
      return {
        kind: 'foreign',
        reason: `${root} is ragsync's checkout for another index (${redactSecrets(serves)}), and two indexes never share one: give this source its own "path"`,
      };
    }
    if (!existsSync(join(gitDir, 'HEAD'))) return { kind: 'ours-broken', reason: 'no .git/HEAD' };
    return { kind: 'ours', ...(mark === want ? {} : { markedFor: mark }), ...(index !== undefined && serves === null ? { unclaimed: true } : {}) };
  }
  if (readMarker(join(root, TREE_MARKER)) !== null) return { kind: 'ours-broken', reason: 'no .git' };
  return {
    kind: 'foreign',
    reason:
      `${root} is not empty and is not a git checkout: refusing to replace it (as git clone would); ` +
      'empty or remove it, or set the source\'s "path" to another folder',
  };
}

/** Whether the checkout at `root` is ragsync's own for `url` (possibly broken), and no other index's. */
export function isOwnCheckout(root: string, url: string, index?: string): boolean {
  const k = inspectCheckout(root, url, index).kind;
  return k === 'ours' || k === 'ours-broken';
}

/** Marks a checkout as ragsync's own for `url`, serving `index`. */
export function markCheckout(root: string, url: string, index?: string): void {
  const mark = redactUrl(url) + '\n';
  writeFileSync(join(root, '.git', GIT_MARKER), mark);
  if (index !== undefined) writeFileSync(join(root, '.git', INDEX_MARKER), redactSecrets(index) + '\n');
  writeFileSync(join(root, TREE_MARKER), mark);
  const exclude = join(root, '.git', 'info', 'exclude');
  const current = readMarker(exclude) ?? '';
  if (!current.split('\n').includes(`/${TREE_MARKER}`)) {
    try {
      appendFileSync(exclude, `${current && !current.endsWith('\n') ? '\n' : ''}/${TREE_MARKER}\n`);
    } catch {
      // no info/ folder: git creates one with every clone; without it the marker shows as untracked
    }
  }
}

/** Work in a checkout that exists nowhere else: a reset or a re-clone would lose it. */
export interface UnsavedWork {
  /** Changed or untracked files (a deleted tracked file is not listed: a reset restores it). */
  files: string[];
  /** `<short sha> <subject>` of commits on HEAD that no remote-tracking branch has. */
  commits: string[];
}

/** Items named in a message; the rest are counted. */
const LIST_MAX = 5;
/** Local commits counted at most. */
const COMMITS_MAX = 1000;

const OID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
/** The most recent commits ragsync put HEAD at that are passed to git as already fetched. */
const MOVES_MAX = 20;

/**
 * Commits on HEAD not on any remote-tracking branch (call before a fetch moves those branches),
 * nor in the history of `indexed` (the commit ragsync's index holds: ragsync checked it out from
 * the upstream, even if the upstream has since been reset away from it; unknown to git: ignored),
 * nor — in ragsync's own checkout (`ownMoves`) — in the history of a commit ragsync cloned or
 * reset HEAD to: those came from an upstream, whatever the remote-tracking branch holds now.
 */
export async function localCommits(root: string, git: GitRunner, indexed?: string | null, ownMoves = false): Promise<string[]> {
  const fetched = new Set([...(indexed && OID.test(indexed) ? [indexed] : []), ...(ownMoves ? headMoves(root) : [])]);
  const ours = fetched.size ? ['--ignore-missing', ...fetched] : [];
  const out = await git(root, ['log', '--format=%h %s', `--max-count=${COMMITS_MAX}`, 'HEAD', '--not', '--remotes', ...ours]);
  return out.split('\n').filter((l) => l.trim());
}

/**
 * The commits HEAD's reflog says ragsync moved it to, newest first: a clone, and a reset to a full
 * commit id (ragsync resets to the fetched commit by id; a person types a branch or a short id).
 * Read from .git/logs/HEAD ("<old> <new> <who> <when>\t<message>"); none when there is no reflog.
 */
export function headMoves(root: string): string[] {
  let text: string;
  try {
    text = readFileSync(join(root, '.git', 'logs', 'HEAD'), 'utf8');
  } catch {
    return [];
  }
  const moves: string[] = [];
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0 && moves.length < MOVES_MAX; i--) {
    const line = lines[i]!;
    const tab = line.indexOf('\t');
    const id = line.split(' ', 2)[1];
    if (tab < 0 || !id || !OID.test(id) || moves.includes(id)) continue;
    const message = line.slice(tab + 1);
    if (message.startsWith('clone: from ') || /^reset: moving to [0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(message)) moves.push(id);
  }
  return moves;
}

/**
 * A checkout made before checkouts were kept per index (at `former`, `<checkouts>/<name>`) moved
 * to `root` instead of cloning again: when it is ragsync's checkout of this URL serving no other
 * index, or a clean clone of this URL and branch (as versions before the markers made them).
 * Whether it moved; anything else stays where it is.
 */
export async function moveFormerCheckout(former: string, root: string, o: { url: string; branch: string; index: string }, git: GitRunner): Promise<boolean> {
  const state = inspectCheckout(former, o.url, o.index);
  if (state.kind === 'ours' && state.markedFor === undefined) {
    // ragsync's own: moved as it is
  } else if (state.kind === 'unmarked') {
    try {
      await adoptCheckout(former, o.url, o.branch, git, false);
    } catch {
      return false;
    }
  } else {
    return false;
  }
  try {
    renameSync(former, root);
    return true;
  } catch {
    return false; // another process moved it first, or the folder cannot move: cloned instead
  }
}

/** Files whose content a hard reset would throw away. */
export async function uncommittedFiles(root: string, git: GitRunner): Promise<string[]> {
  const out = await git(root, ['-c', 'core.quotePath=false', 'status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules']);
  const files: string[] = [];
  const entries = out.split('\0');
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.length < 4) continue;
    const xy = e.slice(0, 2);
    if (xy[0] === 'R' || xy[0] === 'C') i++; // the next entry is the rename's source path
    if (xy.replace(/[D ]/g, '') === '') continue; // deleted only: the reset brings it back
    files.push(e.slice(3));
  }
  return files;
}

const listed = (items: string[]) =>
  items.length <= LIST_MAX ? items.join(', ') : `${items.slice(0, LIST_MAX).join(', ')}, and ${items.length - LIST_MAX} more`;

/** One line naming the checkout and what a reset would lose, or null when nothing would be. */
export function describeUnsaved(root: string, w: UnsavedWork): string | null {
  if (!w.files.length && !w.commits.length) return null;
  const parts: string[] = [];
  if (w.files.length) parts.push(`${w.files.length} uncommitted file${w.files.length === 1 ? '' : 's'} (${listed(w.files)})`);
  if (w.commits.length) {
    const n = w.commits.length >= COMMITS_MAX ? `${COMMITS_MAX}+` : String(w.commits.length);
    parts.push(`${n} local commit${w.commits.length === 1 ? '' : 's'} not on the upstream (${listed(w.commits)})`);
  }
  return (
    `refusing to reset ${root}: ${parts.join(' and ')} would be lost; ` +
    'commit and push them (or move them away), then run again'
  );
}

/** The upstream URLs are the same (credentials aside; local paths compared resolved). */
function sameUrl(a: string, b: string): boolean {
  if (a === b || redactUrl(a) === redactUrl(b)) return true;
  const local = (u: string) => !/^[a-z][a-z0-9+.-]*:/i.test(u) && !/^[^/]+@[^/]+:/.test(u);
  if (local(a) && local(b) && isAbsolute(a) && isAbsolute(b)) return resolve(a).replace(/\/+$/, '') === resolve(b).replace(/\/+$/, '');
  return false;
}

/**
 * A git checkout without ragsync's marker: adopted (marked, when `write`) only when its origin is
 * the configured URL, it is on the configured branch and it holds no unsaved work, which is what a
 * checkout cloned by a version of ragsync before the markers looks like. Anything else is refused
 * with the reason.
 */
export async function adoptCheckout(root: string, url: string, branch: string, git: GitRunner, write: boolean, index?: string): Promise<void> {
  let origin: string;
  try {
    origin = (await git(root, ['config', '--get', 'remote.origin.url'])).trim();
  } catch {
    throw new RagsyncError(`${root} is a git checkout ragsync did not create and it has no "origin" remote: refusing to reset it`);
  }
  if (!sameUrl(origin, url)) {
    throw new RagsyncError(
      `${root} is a git checkout of ${redactUrl(origin)}, not of ${redactUrl(url)}, and ragsync did not create it: refusing to reset it`,
    );
  }
  // A reset moves the branch checked out: adopting a clone on another branch would rewrite that one.
  const current = (await git(root, ['symbolic-ref', '--quiet', '--short', 'HEAD']).catch(() => '')).trim();
  if (current !== branch) {
    throw new RagsyncError(
      `${root} is a git checkout ragsync did not create, ${current ? `on branch ${current}` : 'with a detached HEAD'}, not on ${branch}: refusing to reset it`,
    );
  }
  let work: UnsavedWork;
  try {
    work = { commits: await localCommits(root, git), files: await uncommittedFiles(root, git) };
  } catch (err) {
    throw new RagsyncError(`${root} is a git checkout ragsync did not create and git cannot read it (${firstLine(err)}): refusing to touch it`);
  }
  const why = describeUnsaved(root, work);
  if (why) throw new RagsyncError(why);
  if (write) markCheckout(root, url, index);
}

const firstLine = (err: unknown) => redactUrl(errorMessage(err).split('\n').find((l) => l.trim()) ?? 'unknown error').trim();

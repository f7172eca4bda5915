import { redactUrl } from '../core/redact.ts';

/** What a failed git process left behind: its stderr and how it ended. */
export interface GitFailure {
  stderr: string;
  /** Killed at its deadline. */
  timedOut?: boolean;
  /** git itself could not be started (ENOENT: not installed). */
  spawnError?: string;
}

// Progress and chatter that say nothing about why git failed.
const NOISE = /^(Cloning into|remote: (Enumerating|Counting|Compressing|Total)|Receiving objects|Resolving deltas|warning: You appear to have cloned an empty)/;

/**
 * The line of git's stderr that says why it failed, credentials removed: the last "fatal:" or
 * "error:" line (git prints its reason last; "Cloning into '…'..." comes first), else the last
 * line that is not progress chatter.
 */
export function gitReason(f: GitFailure): string {
  if (f.spawnError) return f.spawnError;
  const lines = f.stderr.split(/\r?\n|\r/).map((l) => l.trim()).filter(Boolean);
  const fatal = lines.filter((l) => /^(fatal|error):/i.test(l)).at(-1);
  const line = fatal ?? lines.filter((l) => !NOISE.test(l)).at(-1) ?? 'no message from git';
  return redactUrl(line.replace(/^(fatal|error):\s*/i, ''));
}

/** A branch git could not find on the remote (clone and fetch say it differently). */
export function missingBranch(reason: string): boolean {
  return /Remote branch .* not found|couldn't find remote ref|Could not find remote branch/i.test(reason);
}

/** One line for a failed git step: "<step> failed: <reason in words>". */
export function describeGitFailure(step: string, f: GitFailure, o: { branch: string; timeoutMs: number; branches?: string[] | null }): string {
  if (f.timedOut) return `${step} did not finish within ${Math.round(o.timeoutMs / 1000)} s; stopped`;
  const reason = gitReason(f);
  if (missingBranch(reason)) {
    // What the remote has instead, when we could ask it.
    const has = o.branches === undefined || o.branches === null ? '' : o.branches.length ? `; it has ${o.branches.slice(0, 10).join(', ')}` : '; it has no branches (an empty repository)';
    return `${step} failed: branch "${o.branch}" not found on the remote${has}`;
  }
  return `${step} failed: ${reason}`;
}

import { existsSync, lstatSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { shownPath } from '../core/shown-path.ts';

/**
 * Which folders ragsync may reset, re-clone or delete: only checkouts it cloned itself. It marks
 * each one with a file inside its .git, so a user's working copy, a folder that happens to sit at
 * the configured path, or another source's checkout is never mistaken for one of its own.
 */
export const MARKER = 'ragsync-checkout';

export interface CheckoutMarker {
  /** The source that owns the checkout. */
  source: string;
  /** Where it was cloned from (credentials removed). */
  url: string;
  /** The commit ragsync last put the work tree at: anything reachable from HEAD beyond it is someone's work. */
  commit: string | null;
  createdAt: string;
}

export type CheckoutState =
  | { kind: 'missing' }
  /** An empty folder: a clone may land there, as `git clone` allows. */
  | { kind: 'empty' }
  | { kind: 'ours'; marker: CheckoutMarker }
  /** A git working copy without the marker: a clone made by an older ragsync, or someone else's. */
  | { kind: 'unmarked' }
  /** Not a folder, or a folder with content and no .git of its own. */
  | { kind: 'foreign'; why: string };

const markerPath = (root: string) => join(root, '.git', MARKER);

/** What is at a checkout path, from a few stat calls (no git process: this runs every hour). */
export function inspectCheckout(root: string): CheckoutState {
  let st;
  try {
    st = lstatSync(root);
  } catch {
    return { kind: 'missing' };
  }
  if (st.isSymbolicLink()) return { kind: 'foreign', why: 'is a symbolic link' };
  if (!st.isDirectory()) return { kind: 'foreign', why: 'is a file, not a folder' };
  let dotGit;
  try {
    dotGit = lstatSync(join(root, '.git'));
  } catch {
    return readdirSync(root).length === 0 ? { kind: 'empty' } : { kind: 'foreign', why: 'is a folder with files and no .git' };
  }
  // A .git file belongs to a worktree or a submodule of some other repository: never ragsync's.
  if (!dotGit.isDirectory()) return { kind: 'foreign', why: 'is a git worktree or submodule (.git is a file)' };
  const marker = readMarker(root);
  return marker ? { kind: 'ours', marker } : { kind: 'unmarked' };
}

export function readMarker(root: string): CheckoutMarker | null {
  const file = markerPath(root);
  if (!existsSync(file)) return null;
  try {
    const m = JSON.parse(readFileSync(file, 'utf8')) as Partial<CheckoutMarker>;
    return typeof m.source === 'string' ? { source: m.source, url: String(m.url ?? ''), commit: m.commit ?? null, createdAt: String(m.createdAt ?? '') } : null;
  } catch {
    // A marker that exists but cannot be read is still ragsync's file in ragsync's folder.
    return { source: '', url: '', commit: null, createdAt: '' };
  }
}

/** Writes the marker atomically (a crash leaves the old one or the new one, never half of one). */
export function writeMarker(root: string, marker: CheckoutMarker): void {
  const file = markerPath(root);
  writeFileSync(`${file}.tmp`, JSON.stringify(marker) + '\n');
  renameSync(`${file}.tmp`, file);
}


/**
 * `git status --porcelain=v1 -z` → "modified a.md", "untracked b.md", … Untracked files count: a
 * hard reset overwrites any that upstream adds under the same name, and none of them are ragsync's.
 */
export function describeStatus(porcelainZ: string): string[] {
  const out: string[] = [];
  const entries = porcelainZ.split('\0');
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.length < 4) continue;
    const code = e.slice(0, 2);
    const path = shownPath(e.slice(3));
    if (code[0] === 'R' || code[0] === 'C') i++; // the entry after a rename is its old path
    if (code === '??') out.push(`untracked ${path}`);
    else if (code.includes('D')) out.push(`deleted ${path}`);
    else if (code.includes('A')) out.push(`added ${path}`);
    else out.push(`modified ${path}`);
  }
  return out;
}

/** "3 local changes (modified a.md, untracked b.md, …)" within one line. */
export function listLoss(items: string[], what: string): string {
  const head = items.slice(0, 5).join(', ');
  return `${items.length} ${what}${items.length === 1 ? '' : 's'} (${head}${items.length > 5 ? `, and ${items.length - 5} more` : ''})`;
}

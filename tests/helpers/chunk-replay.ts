import { execFileSync } from 'node:child_process';
import type { Chunker } from '../../src/core/types.ts';
import { readBlobs } from '../../src/sources/catfile.ts';
import { decodeText } from '../../src/sources/decode.ts';
import { pathMatcher } from '../../src/sources/match.ts';

/**
 * What a content-addressed index would embed if it followed a repository commit by commit, worked
 * out from the chunker alone (no database): each commit's changed files are read and chunked once;
 * a chunk text is "new" unless some earlier commit already produced the same text (vectors are kept
 * across commits, so a text seen before costs nothing).
 */
export interface CommitCost {
  sha: string;
  /** Matching files added or modified by the commit (deletions cost nothing). */
  files: number;
  /** Chunks of those files, and their distinct texts. */
  chunks: number;
  texts: number;
  /** Distinct texts no earlier commit produced: what the index embeds. */
  newTexts: number;
  newChars: number;
  /** Characters of every chunk text of the changed files: what re-embedding those files whole costs. */
  changedChars: number;
}

const git = (gitDir: string, ...args: string[]) => execFileSync('git', ['-C', gitDir, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });

/** Files the commit adds or modifies (all files for a root commit), with their blob ids. */
function changedBlobs(gitDir: string, sha: string, root: boolean, match: (p: string) => boolean): { path: string; sha: string }[] {
  const out: { path: string; sha: string }[] = [];
  if (root) {
    for (const line of git(gitDir, 'ls-tree', '-r', '-z', sha).split('\0')) {
      const m = /^\d+ blob ([0-9a-f]+)\t(.*)$/s.exec(line);
      if (m && match(m[2]!)) out.push({ path: m[2]!, sha: m[1]! });
    }
    return out;
  }
  // Raw diff entries: ":old new oldSha newSha status\0path\0" (renames off: a moved file is new at its path).
  const parts = git(gitDir, 'diff-tree', '-r', '-z', '--no-commit-id', '--no-renames', sha).split('\0');
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const m = /^:\d+ \d+ [0-9a-f]+ ([0-9a-f]+) ([AMT])/.exec(parts[i]!);
    if (m && match(parts[i + 1]!)) out.push({ path: parts[i + 1]!, sha: m[1]! });
  }
  return out;
}

/** Replays `commits` (oldest first) of a bare repository through `chunker`. */
export async function replayChunking(gitDir: string, commits: string[], include: string[], exclude: string[], chunker: Chunker): Promise<CommitCost[]> {
  const match = pathMatcher(include, exclude);
  const seen = new Set<string>();
  const costs: CommitCost[] = [];
  for (const [i, sha] of commits.entries()) {
    const cost: CommitCost = { sha, files: 0, chunks: 0, texts: 0, newTexts: 0, newChars: 0, changedChars: 0 };
    const texts = new Set<string>();
    for await (const { path, bytes } of readBlobs(gitDir, changedBlobs(gitDir, sha, i === 0, match))) {
      const doc = chunker.chunk({ path, text: decodeText(path, bytes) });
      cost.files++;
      cost.chunks += doc.chunks.length;
      for (const c of doc.chunks) {
        cost.changedChars += c.text.length;
        texts.add(c.text);
      }
    }
    cost.texts = texts.size;
    for (const t of texts) {
      if (seen.has(t)) continue;
      cost.newTexts++;
      cost.newChars += t.length;
    }
    for (const t of texts) seen.add(t);
    costs.push(cost);
  }
  return costs;
}

/** Commits of `branch`, oldest first. */
export function commitsOf(gitDir: string, branch = 'main'): string[] {
  return git(gitDir, 'rev-list', '--reverse', branch).trim().split('\n');
}

/** Every file of `sha` that `match` accepts, read with one git process. */
export async function readTree(gitDir: string, sha: string, match: (path: string) => boolean): Promise<{ path: string; text: string }[]> {
  const out: { path: string; text: string }[] = [];
  for await (const { path, bytes } of readBlobs(gitDir, changedBlobs(gitDir, sha, true, match))) out.push({ path, text: decodeText(path, bytes) });
  return out;
}

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
/**
 * The test corpora folder: $RAGSYNC_CORPORA when set (and then only it), else ../shared/corpora
 * beside the repository (one level further up from a git worktree).
 */
export const CORPORA =
  process.env.RAGSYNC_CORPORA ||
  ([join(REPO_ROOT, '..', 'shared', 'corpora'), join(REPO_ROOT, '..', '..', 'shared', 'corpora')].find((d) =>
    existsSync(join(d, 'classics.bundle')),
  ) ?? join(REPO_ROOT, '..', 'shared', 'corpora'));

/** A fresh temp folder, removed by the returned cleanup. */
export function tempDir(prefix = 'ragsync-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

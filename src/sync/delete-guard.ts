/**
 * The mass-deletion guard, in the manner of rsync's --max-delete: a source that suddenly lists
 * nothing (an unmounted disk, a mistyped include, an upstream that lost its tree) looks exactly
 * like a source whose files were all deleted. ragsync cannot tell the two apart, so it refuses the
 * deletions unless the user has said this is expected. Pure: the caller decides what to do.
 */

export interface DeletionCheck {
  /** How the source is named in messages (`source "notes" (/mnt/notes)`). */
  where: string;
  /** Documents the index holds for the source before this run. */
  stored: number;
  /** Files the source lists now (after include/exclude). */
  listed: number;
  /** Documents the plan removes (a rename is not a removal). */
  deleting: number;
  /** Largest share (0..1) of the stored documents one run may remove. */
  maxDeleteShare: number;
  /** The source may become empty: per-source `allowEmpty` or `--allow-empty`. Also lifts the share limit. */
  allowEmpty: boolean;
  /** Removals over the share limit are confirmed for this run (`--allow-delete`, `--force`). */
  allowMassDelete: boolean;
  /** Config path of the source for hints (`sources[2]`). */
  configPath: string;
}

export type DeletionVerdict = { allowed: true } | { allowed: false; reason: string };

const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;

export function judgeDeletions(c: DeletionCheck): DeletionVerdict {
  if (c.deleting <= 0 || c.stored <= 0 || c.allowEmpty) return { allowed: true };
  if (c.listed === 0) {
    return {
      allowed: false,
      reason:
        `${c.where} lists no files now but ${c.stored} document${c.stored === 1 ? ' is' : 's are'} indexed from it: ` +
        `refusing to empty it (is the folder mounted, the branch right, include/exclude right?); ` +
        `the index keeps them. If the source really is empty now, run with --allow-empty or set ${c.configPath}.allowEmpty`,
    };
  }
  // Removing one document is not a mass deletion (in a two-file source it would be 50 %+), unless
  // the user allows none at all (maxDeleteShare 0).
  if ((c.deleting === 1 && c.maxDeleteShare > 0) || c.allowMassDelete) return { allowed: true };
  const share = c.deleting / c.stored;
  if (share <= c.maxDeleteShare) return { allowed: true };
  return {
    allowed: false,
    reason:
      `${c.where} would delete ${c.deleting} of ${c.stored} indexed documents (${pct(share)}), ` +
      `over maxDeleteShare ${pct(c.maxDeleteShare)}: refusing, the index keeps them. ` +
      `If these files really are gone, run with --allow-delete (or --force), or raise ${c.configPath}.maxDeleteShare`,
  };
}

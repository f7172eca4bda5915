/**
 * The mass-deletion guard, in the manner of rsync's --max-delete: a source that suddenly lists
 * nothing (an unmounted disk, a mistyped include, an upstream that lost its tree) looks exactly
 * like a source whose files were all deleted. ragsync cannot tell the two apart, so it refuses the
 * loss unless the user has said this is expected. What counts is content, not files: passages
 * (distinct chunk texts) the index would no longer hold anywhere in the source, so a restructured
 * upstream (files split, merged, renamed, moved) passes. Passages rewritten away in files that stay
 * count beside files that go, never alone: editing is not deleting. Pure: the caller counts
 * (sync/lost-content.ts) and decides what to do.
 */

export interface DeletionCheck {
  /** How the source is named in messages (`source "notes" (/mnt/notes)`). */
  where: string;
  /** Documents the index holds for the source before this run. */
  stored: number;
  /** Files the source lists now (after include/exclude). */
  listed: number;
  /** Distinct passages the source holds before this run. */
  held: number;
  /** Of those, the passages the source would no longer hold after this run. */
  dropping: number;
  /** Documents removed or rewritten that lose at least one passage. */
  losing: number;
  /** Of those, the documents removed (gone from the listing, or the old path of a rename). */
  removing: number;
  /** Largest share (0..1) of the held passages one run may drop. */
  maxDeleteShare: number;
  /** The source may become empty: per-source `allowEmpty` or `--allow-empty`. Also lifts the share limit. */
  allowEmpty: boolean;
  /** Losses over the share limit are confirmed for this run (`--allow-delete`, `--force`). */
  allowMassDelete: boolean;
  /** Config path of the source for hints (`sources[2]`). */
  configPath: string;
}

export type DeletionVerdict = { allowed: true } | { allowed: false; reason: string };

const pct = (x: number) => `${Math.round(x * 1000) / 10} %`;
const n = (x: number) => x.toLocaleString('en-US');

/** "would drop 3,120 of 3,400 passages (91.8 %)" */
export function dropWords(dropping: number, held: number): string {
  return `would drop ${n(dropping)} of ${n(held)} passage${held === 1 ? '' : 's'} (${pct(held ? dropping / held : 0)})`;
}

export function judgeDeletions(c: DeletionCheck): DeletionVerdict {
  if (c.stored <= 0 || c.allowEmpty) return { allowed: true };
  if (c.listed === 0) {
    return {
      allowed: false,
      reason:
        `${c.where} lists no files now but ${n(c.stored)} document${c.stored === 1 ? ' is' : 's are'} indexed from it: ` +
        `refusing to empty it, which ${dropWords(c.held, c.held)} (is the folder mounted, the branch right, include/exclude right?); ` +
        `the index keeps them. If the source really is empty now, run with --allow-empty or set ${c.configPath}.allowEmpty`,
    };
  }
  if (c.dropping <= 0 || c.held <= 0 || c.allowMassDelete) return { allowed: true };
  // Editing files is not deleting them: passages rewritten away count only beside files that go.
  if (c.removing === 0) return { allowed: true };
  // Removing one document is not a mass deletion (in a two-file source it would be 50 %+), unless
  // the user allows none at all (maxDeleteShare 0).
  if (c.removing === 1 && c.maxDeleteShare > 0) return { allowed: true };
  const share = c.dropping / c.held;
  if (share <= c.maxDeleteShare) return { allowed: true };
  return {
    allowed: false,
    reason:
      `${c.where} ${dropWords(c.dropping, c.held)} from ${n(c.losing)} removed or rewritten documents, ` +
      `over maxDeleteShare ${pct(c.maxDeleteShare)}: refusing, the index keeps them. ` +
      `If this content really is gone, run with --allow-delete (or --force), or raise ${c.configPath}.maxDeleteShare`,
  };
}

import type { SourcePlan } from './plan.ts';

/** How far one run may shrink a source before it stops and asks (config, overridden by flags). */
export interface DeleteLimits {
  /** A source that lists no files at all may lose every document (an emptied source on purpose). */
  allowEmpty: boolean;
  /** Largest share (0..1) of a source's indexed documents one run may delete; 1 = no limit. */
  maxDeleteShare: number;
  /** --force: the user has said yes to whatever the plan does. */
  force?: boolean;
}

/**
 * Whether a plan may be applied as it is, judged between plan and apply like rsync's --max-delete.
 * A folder that is suddenly empty is what an unmounted disk or a vanished network share looks like,
 * and an include glob that stopped matching looks the same: deleting on that evidence would empty
 * the index every hour while the run reports success. Returns the refusal, or null to go ahead.
 * Renames and documents left for later by --max-docs are not deletions.
 */
export function checkDeletions(plan: Pick<SourcePlan, 'source' | 'delete' | 'stored' | 'listed'>, limits: DeleteLimits): string | null {
  const deleting = plan.delete.length;
  if (limits.force || deleting === 0 || plan.stored === 0) return null;
  if (plan.listed === 0) {
    if (limits.allowEmpty) return null;
    return (
      `source "${plan.source}" lists no files, but ${plan.stored} documents are indexed: refusing to delete them all ` +
      `(an unmounted folder, an emptied branch or include globs that match nothing look like this); ` +
      `run with --allow-empty, or set "allowEmpty": true on the source, if it is meant to be empty`
    );
  }
  const share = deleting / plan.stored;
  if (share <= limits.maxDeleteShare) return null;
  const pct = (x: number) => `${Math.round(x * 1000) / 10} %`;
  return (
    `source "${plan.source}" would delete ${deleting} of its ${plan.stored} indexed documents (${pct(share)}), ` +
    `over maxDeleteShare ${limits.maxDeleteShare} (${pct(limits.maxDeleteShare)}): refusing, the source keeps its documents; ` +
    `if that many files really went away, run with --max-delete-share 1 (or --force), or raise "maxDeleteShare" on the source`
  );
}

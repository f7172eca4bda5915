import type { Logger } from 'pino';
import type { AdminStore, RunRecord } from '../storage/roles.ts';
import { errorMessage } from '../core/errors.ts';
import { acquireIndexLock } from './lock.ts';

/**
 * Garbage collection that cannot race an index run. Two guards, each covering what the other cannot:
 *
 * - gc takes the index lock, so it refuses (exit 75) while a run is alive. A live run may have
 *   planned to reuse a vector no chunk references yet (a reverted edit) and not yet written the
 *   document that will; deleting it then would leave chunks without a vector. Sparing by age alone
 *   cannot see that (the vector is old).
 * - gc spares vectors stored since the start of the earliest run that did not finish (still
 *   'running' because it was killed, or 'failed'/'aborted' with nothing successful after it).
 *   Such a run stored vectors whose documents it never wrote; its lock is taken over once its
 *   process is gone, so the lock alone would let gc delete them and the next run pay to embed them
 *   again.
 */
export async function collectGarbage(
  store: AdminStore,
  dbPath: string,
  opts: { keepOnly?: string; log?: Logger } = {},
): Promise<{ vectors: number; sparedSince: string | null }> {
  const lock = await acquireIndexLock(store, dbPath, opts.log);
  try {
    return await collectGarbageLocked(store, opts);
  } finally {
    await lock.release().catch((err: unknown) => opts.log?.warn({ err: errorMessage(err) }, 'could not release the index lock'));
  }
}

/** The same, by a caller already holding the index lock. */
export async function collectGarbageLocked(store: AdminStore, opts: { keepOnly?: string } = {}): Promise<{ vectors: number; sparedSince: string | null }> {
  const sparedSince = unfinishedSince(await store.recentRuns(RUNS_LOOKED_AT));
  const r = await store.gc({ keepOnly: opts.keepOnly, spareSince: sparedSince ?? undefined });
  return { vectors: r.vectors, sparedSince };
}

/** Enough history to reach the last completed run in any realistic index. */
const RUNS_LOOKED_AT = 100;

/**
 * Start of the earliest run (newest first in `runs`) whose vectors a later run may still need:
 * those still 'running' anywhere in the list, and the 'failed'/'aborted' ones newer than the last
 * run that completed ('ok' or 'partial': every vector such a run stored backs a document it wrote).
 */
export function unfinishedSince(runs: RunRecord[]): string | null {
  let since: string | null = null;
  let completedSeen = false;
  for (const r of runs) {
    if (r.status === 'ok' || r.status === 'partial') completedSeen = true;
    const keep = r.status === 'running' || (!completedSeen && (r.status === 'failed' || r.status === 'aborted'));
    if (keep && (since === null || r.startedAt < since)) since = r.startedAt;
  }
  return since;
}

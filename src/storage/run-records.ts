import type { WorkCounts } from '../core/types.ts';
import type { RunSourceRecord } from './roles.ts';

/** A source refusing thousands of files each hour keeps its run log small: the count says the rest. */
export const RUN_SKIPPED_FILES_KEPT = 100;

const emptyCounts = (): WorkCounts => ({
  documents: { added: 0, changed: 0, deleted: 0, renamed: 0, unchanged: 0, skipped: 0 },
  chunks: 0,
  chunksReused: 0,
  texts: 0,
});

/**
 * A run_sources row (the same columns in every backend) as a record; `planned` and the skipped
 * files already parsed (counts a newer run wrote and this one lacks read as 0).
 */
export function runSourceRecord(
  s: Record<string, unknown>,
  planned: Partial<WorkCounts>,
  skippedFiles: RunSourceRecord['skippedFiles'],
): RunSourceRecord {
  return {
    source: s.source as string,
    status: s.status as RunSourceRecord['status'],
    commitBefore: s.commit_before as string | null,
    commitAfter: s.commit_after as string | null,
    planned: { ...emptyCounts(), ...planned },
    written: {
      documents: {
        added: s.added as number,
        changed: s.changed as number,
        deleted: s.deleted as number,
        renamed: s.renamed as number,
        unchanged: s.unchanged as number,
        skipped: s.skipped as number,
      },
      chunks: s.chunks_written as number,
      chunksReused: s.chunks_reused as number,
      texts: s.texts_embedded as number,
    },
    skippedFiles,
    error: s.error as string | null,
  };
}

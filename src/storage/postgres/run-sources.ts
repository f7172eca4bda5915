import type { RunSourceRecord } from '../roles.ts';
import { RUN_SKIPPED_FILES_KEPT } from '../run-records.ts';
import type { Queryable } from './db.ts';

/** A source's part of a run, written when its lease is released and again (the same) when the run finishes. */
export async function insertRunSource(c: Queryable, id: number, s: RunSourceRecord, lease?: { tick: string; generation: number }): Promise<void> {
  const d = s.written.documents;
  await c.query(
    `INSERT INTO run_sources (run_id, source, status, commit_before, commit_after, added, changed, deleted, renamed, unchanged,
       skipped, chunks_written, chunks_reused, texts_embedded, planned, error, skipped_files, tick, lease_generation)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
     ON CONFLICT (run_id, source) DO UPDATE SET status = excluded.status, commit_before = excluded.commit_before,
       commit_after = excluded.commit_after, added = excluded.added, changed = excluded.changed, deleted = excluded.deleted,
       renamed = excluded.renamed, unchanged = excluded.unchanged, skipped = excluded.skipped,
       chunks_written = excluded.chunks_written, chunks_reused = excluded.chunks_reused,
       texts_embedded = excluded.texts_embedded, planned = excluded.planned, error = excluded.error,
       skipped_files = excluded.skipped_files,
       tick = coalesce(excluded.tick, run_sources.tick), lease_generation = coalesce(excluded.lease_generation, run_sources.lease_generation)`,
    [id, s.source, s.status, s.commitBefore, s.commitAfter, d.added, d.changed, d.deleted, d.renamed, d.unchanged, d.skipped,
      s.written.chunks, s.written.chunksReused, s.written.texts, JSON.stringify(s.planned), s.error,
      s.skippedFiles.length ? JSON.stringify(s.skippedFiles.slice(0, RUN_SKIPPED_FILES_KEPT)) : null,
      lease?.tick ?? null, lease?.generation ?? null],
  );
}

-- 016: which files a run refused and why (binary, not valid text, a Git LFS pointer, over
-- maxFileBytes), per source, so `status` can say it after the run's own output is gone.
-- A JSON array of {"path", "reason"}, the first 100 of them (`skipped` keeps the full count);
-- NULL for runs recorded before this migration.
ALTER TABLE run_sources ADD COLUMN skipped_files TEXT;

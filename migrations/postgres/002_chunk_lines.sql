-- 002 (Postgres; SQLite 019): the lines of its document each chunk spans (1-based, inclusive), for
-- results shown as path:start-end and for permalinks. NULL where the chunker could not tell.
ALTER TABLE chunks ADD COLUMN start_line INTEGER;
ALTER TABLE chunks ADD COLUMN end_line INTEGER;

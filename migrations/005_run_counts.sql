-- Run history names its units: chunks (rows of `chunks`) and texts (distinct chunk texts, the unit
-- of embedding). Per-source counts are what was committed; `planned` keeps what the plan asked for.
ALTER TABLE runs RENAME COLUMN embedded TO texts_embedded;            -- distinct texts embedded and stored
ALTER TABLE run_sources RENAME COLUMN chunks_total TO chunks_written;  -- chunks of the documents written
ALTER TABLE run_sources RENAME COLUMN chunks_embedded TO texts_embedded;
ALTER TABLE run_sources ADD COLUMN planned TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(planned));
-- The FTS terms now come from each source's analyzer and are written with their chunks; the next
-- run re-indexes documents made under another analyzer, so the global tokenizer version is gone.
DELETE FROM meta WHERE key = 'fts_version';

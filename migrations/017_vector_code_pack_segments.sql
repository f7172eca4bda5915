-- 017: a source's packed codes in segments of about 1 MiB of codes each (segment 0, 1, …) instead
-- of one row of four BLOBs per source: a one-shot search reads a segment at a time (SQLite reads a
-- BLOB whole, so one row per source held all of its codes in memory at once), and the index run
-- writes them a segment at a time. The packs are derived data: dropped here, the next index run
-- writes them again (searches read the code rows meanwhile).
DROP TABLE vector_code_packs;
CREATE TABLE vector_code_packs (
  fingerprint  TEXT NOT NULL,
  source_id    INTEGER NOT NULL,  -- sources.id of the rows' documents
  segment      INTEGER NOT NULL,  -- 0, 1, … within the source
  generation   INTEGER NOT NULL,  -- meta.generation when packed
  vectors      INTEGER NOT NULL,  -- the fingerprint's vector count when packed
  dims         INTEGER NOT NULL,
  count        INTEGER NOT NULL,  -- rows in this segment
  refs         BLOB NOT NULL,     -- count × int32 (little-endian): chunks.id
  scales       BLOB NOT NULL,     -- count × float64
  residuals    BLOB NOT NULL,     -- count × float64
  codes        BLOB NOT NULL,     -- count × dims signed bytes
  PRIMARY KEY (fingerprint, source_id, segment)
);

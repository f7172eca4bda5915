-- 014: a pack per source instead of one per fingerprint, so that a one-shot search scoped to some
-- sources (an agent's queryClassics) reads only theirs. The packs are a derived cache: the table is
-- made anew, and the next index run writes them again (searches read vector_codes meanwhile).
-- All packs of a fingerprint are written in one transaction with the same generation: a source of
-- the fingerprint with no pack of that generation has no rows.
DROP TABLE vector_code_packs;
CREATE TABLE vector_code_packs (
  fingerprint  TEXT NOT NULL,
  source_id    INTEGER NOT NULL,  -- sources.id of the rows' documents
  generation   INTEGER NOT NULL,  -- meta.generation when packed
  vectors      INTEGER NOT NULL,  -- the fingerprint's vector count when packed
  dims         INTEGER NOT NULL,
  count        INTEGER NOT NULL,  -- rows (the source's chunks with a code)
  refs         BLOB NOT NULL,     -- count × int32 (little-endian): chunks.id
  scales       BLOB NOT NULL,     -- count × float64
  residuals    BLOB NOT NULL,     -- count × float64
  codes        BLOB NOT NULL,     -- count × dims signed bytes
  PRIMARY KEY (fingerprint, source_id)
);

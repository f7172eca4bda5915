-- 021: the packed codes also by dimension, for embedders whose vectors are mostly zeros (the hash
-- embedder's: a query has a dozen non-zero dimensions of 1,024). A one-shot search then reads, per
-- segment, the refs, scales and residuals and only the columns of the query's non-zero dimensions:
-- the same integer dot products (the other dimensions add zero) from a few per cent of the bytes.
-- `columns` on a pack says whether its segment's columns were written. The packs are derived data:
-- dropped here, the next index run writes them again (searches read the code rows meanwhile).
DROP TABLE vector_code_packs;
CREATE TABLE vector_code_packs (
  fingerprint  TEXT NOT NULL,
  source_id    INTEGER NOT NULL,  -- sources.id of the rows' documents
  segment      INTEGER NOT NULL,  -- 0, 1, … within the source
  generation   INTEGER NOT NULL,  -- meta.generation when packed
  vectors      INTEGER NOT NULL,  -- the fingerprint's vector count when packed
  dims         INTEGER NOT NULL,
  columns      INTEGER NOT NULL,  -- 1: vector_code_columns holds this segment by dimension
  count        INTEGER NOT NULL,  -- rows in this segment
  refs         BLOB NOT NULL,     -- count × int32 (little-endian): chunks.id
  scales       BLOB NOT NULL,     -- count × float64
  residuals    BLOB NOT NULL,     -- count × float64
  codes        BLOB NOT NULL,     -- count × dims signed bytes
  PRIMARY KEY (fingerprint, source_id, segment)
);
-- A rowid table: a column of a segment (~1 KB) fits in its leaf page, where a WITHOUT ROWID row
-- of that size would spill a few bytes into an overflow page of its own. Written in key order, so a
-- dimension's rows sit side by side in the table too.
CREATE TABLE vector_code_columns (
  fingerprint  TEXT NOT NULL,
  source_id    INTEGER NOT NULL,
  segment      INTEGER NOT NULL,  -- the pack's segment
  dim          INTEGER NOT NULL,  -- 0 … dims − 1
  codes        BLOB NOT NULL      -- the segment's count codes of this dimension, in the pack's row order
);
CREATE UNIQUE INDEX vector_code_columns_key ON vector_code_columns (fingerprint, dim, source_id, segment);

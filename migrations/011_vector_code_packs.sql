-- 011: the int8 codes of a fingerprint packed in one row, what a one-shot search reads instead of
-- one code row per chunk (handing each row's BLOB to JavaScript was most of the scan). A derived
-- cache: written at the end of an index run when missing or stale, used only while its generation
-- and vector count are the index's (meta.generation moves with every change of chunks or vectors;
-- gc deletes vectors without moving it, hence the count); otherwise searches read vector_codes.
-- Row i of the pack: chunk id refs[i], scales[i], residuals[i], code = codes[i*dims .. (i+1)*dims).
CREATE TABLE vector_code_packs (
  fingerprint  TEXT PRIMARY KEY,
  generation   INTEGER NOT NULL,  -- meta.generation when packed
  vectors      INTEGER NOT NULL,  -- the fingerprint's vector count when packed
  dims         INTEGER NOT NULL,
  count        INTEGER NOT NULL,  -- rows (chunks with a code)
  refs         BLOB NOT NULL,     -- count × int32 (little-endian): chunks.id
  scales       BLOB NOT NULL,     -- count × float64
  residuals    BLOB NOT NULL,     -- count × float64
  codes        BLOB NOT NULL      -- count × dims signed bytes
);

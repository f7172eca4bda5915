-- 010: an int8 copy of every vector, what a one-shot search scans (a quarter of the float32 bytes)
-- before rescoring its few best candidates against the float32 rows, which stay the source of
-- truth. One row per vectors row, same key, written in the same transaction; vectors without one
-- (all of them here) get theirs when a writer opens the index (storage/sqlite/connection.ts). Also: when a run
-- last found no chunk text without a vector (vectors_complete, below).
-- code: dims signed bytes; unit vector ≈ scale × code; residual = ‖unit vector − scale × code‖.
-- A rowid table: its ~1 KB rows sit in the table's own pages, where a WITHOUT ROWID table would
-- spill each past ~1,000 bytes onto an overflow page.
CREATE TABLE vector_codes (
  fingerprint  TEXT NOT NULL,
  text_hash    TEXT NOT NULL,
  scale        REAL NOT NULL,
  residual     REAL NOT NULL,
  code         BLOB NOT NULL,
  UNIQUE (fingerprint, text_hash)
);
-- Whatever deletes a vector (gc, an embedder dropped) deletes its code; a vector changed in place
-- (ragsync replaces rows, never updates them) loses its code, and searches then read the float32
-- rows until the next write of that vector (they use codes only when every vector has one).
CREATE TRIGGER vector_codes_delete AFTER DELETE ON vectors BEGIN
  DELETE FROM vector_codes WHERE fingerprint = old.fingerprint AND text_hash = old.text_hash;
END;
CREATE TRIGGER vector_codes_update AFTER UPDATE ON vectors BEGIN
  DELETE FROM vector_codes WHERE fingerprint = old.fingerprint AND text_hash = old.text_hash;
END;

-- When every chunk text last had a vector of a fingerprint: the generation and that fingerprint's
-- vector count then. A run finding both unchanged skips the check (nothing can be missing).
CREATE TABLE vectors_complete (
  fingerprint  TEXT PRIMARY KEY,
  generation   INTEGER NOT NULL,
  vectors      INTEGER NOT NULL
);

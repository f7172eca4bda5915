-- 009: an int8 copy of every vector, what a one-shot search scans (a quarter of the float32 bytes)
-- before rescoring its few best candidates against the float32 rows, which stay the source of
-- truth. One row per vectors row, same key, written in the same transaction; existing vectors get
-- theirs when a writer applies this migration (storage/sqlite/connection.ts).
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
-- Whatever deletes a vector (gc, an embedder dropped) deletes its code.
CREATE TRIGGER vector_codes_delete AFTER DELETE ON vectors BEGIN
  DELETE FROM vector_codes WHERE fingerprint = old.fingerprint AND text_hash = old.text_hash;
END;

-- 015: a code lost while its vector stays is marked (meta.codes_missing = 1), so that a writer need
-- not count every vector and every code at each open to find out: the next writer refills the
-- missing codes and clears the mark. A code is lost when its vector is changed in place
-- (vector_codes_update deletes it) or a code row is deleted by hand; a vector deleted takes its code
-- along and marks nothing. Searches meanwhile read the float32 rows (they scan codes only when every
-- vector has one). Marked here too when codes are missing already.
CREATE TRIGGER vector_codes_lost AFTER DELETE ON vector_codes
WHEN EXISTS (SELECT 1 FROM vectors INDEXED BY vectors_key WHERE fingerprint = old.fingerprint AND text_hash = old.text_hash)
BEGIN
  INSERT OR REPLACE INTO meta (key, value) VALUES ('codes_missing', 1);
END;
INSERT OR REPLACE INTO meta (key, value)
  SELECT 'codes_missing', 1 WHERE (SELECT count(*) FROM vectors INDEXED BY vectors_key) > (SELECT count(*) FROM vector_codes);

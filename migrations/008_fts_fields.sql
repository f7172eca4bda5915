-- 008: the keyword index gets two columns, head (title, heading path, tags) and body (the chunk's
-- text, as `tokens` was), so search can weigh a match in a title or heading above one in running
-- text: bm25(chunks_fts, head weight, 1). Existing rows keep their terms in body with an empty head;
-- their documents' fingerprint names the old row layout, so the next run rewrites their keyword rows
-- (chunks and vectors stay).
CREATE VIRTUAL TABLE chunks_fts_fields USING fts5(head, body, tokenize = 'unicode61 remove_diacritics 0');
INSERT INTO chunks_fts_fields (rowid, head, body) SELECT rowid, '', tokens FROM chunks_fts;
DROP TRIGGER chunks_fts_delete;
DROP TABLE chunks_fts;
ALTER TABLE chunks_fts_fields RENAME TO chunks_fts;
CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
  DELETE FROM chunks_fts WHERE rowid = old.id;
END;

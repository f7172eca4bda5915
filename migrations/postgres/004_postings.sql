-- 004 (Postgres): keyword postings, term → (chunk, frequency in head and in body), so BM25 reads
-- the query terms' rows from one index instead of unpacking every candidate's tsvectors (a CJK
-- chunk holds hundreds of lexemes: ~0.1 ms each, 829 candidates for one common bigram). A term's
-- document frequency is its row count; `len` (the chunk's head_len + body_len) rides along so the
-- ranking needs no chunk row unless a filter does. The writer fills it with the chunks; rows of
-- chunks written before are made here from their tsvectors (which cap a term's count at 256).
CREATE TABLE postings (
  term      TEXT NOT NULL,
  chunk_id  BIGINT NOT NULL,
  head_tf   INTEGER NOT NULL,
  body_tf   INTEGER NOT NULL,
  len       INTEGER NOT NULL,
  PRIMARY KEY (term, chunk_id) INCLUDE (head_tf, body_tf, len)
);
-- Deleting chunks (documents rewritten, removed, a source dropped) takes their postings along.
CREATE INDEX postings_chunk ON postings(chunk_id);
CREATE FUNCTION postings_delete() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  DELETE FROM postings p USING old_rows o WHERE p.chunk_id = o.id;
  RETURN NULL;
END $$;
CREATE TRIGGER postings_delete AFTER DELETE ON chunks REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION postings_delete();

INSERT INTO postings (term, chunk_id, head_tf, body_tf, len)
SELECT t.term, c.id, sum(t.h)::int, sum(t.b)::int, c.head_len + c.body_len
FROM chunks c,
  LATERAL (SELECT u.lexeme AS term, cardinality(u.positions) AS h, 0 AS b FROM unnest(c.head) u
           UNION ALL
           SELECT u.lexeme, 0, cardinality(u.positions) FROM unnest(c.body) u) t
GROUP BY t.term, c.id;

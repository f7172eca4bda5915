-- 006: keyword ranking and match sets read the postings (004) alone. The GIN indexes over the
-- chunks' tsvectors were left without a reader, and the body's tsvector without any (its terms
-- are kept as text in `terms`, its length in body_len): dropped, so writes no longer maintain
-- them. The head's tsvector stays: it is where the head's terms are read back (copy, dump).
DROP INDEX IF EXISTS chunks_head;
DROP INDEX IF EXISTS chunks_body;
ALTER TABLE chunks DROP COLUMN IF EXISTS body;

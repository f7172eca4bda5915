-- 001 (Postgres): the whole index in one schema (the URL's ?schema=, default ragsync), the same
-- tables as the SQLite index after its migrations 001–015, less what only SQLite needs (FTS5, int8
-- codes). The pgvector extension must exist in the database (storage/postgres checks before this).
-- Vectors belong to chunk texts, not to documents: a rename re-embeds nothing.

CREATE TABLE meta (
  key    TEXT PRIMARY KEY,
  value  BIGINT NOT NULL
);
-- generation: bumped by every transaction that changes chunks or vectors (long-lived readers reload).
-- chunks / chunk_terms: rows and keyword terms (head + body) of all chunks, kept by trigger, so
-- keyword scoring (BM25's average length) reads two numbers instead of counting the table.
INSERT INTO meta (key, value) VALUES ('generation', 0), ('chunks', 0), ('chunk_terms', 0);

CREATE TABLE sources (
  id          BIGSERIAL PRIMARY KEY,
  name        TEXT NOT NULL UNIQUE,
  kind        TEXT NOT NULL,
  url         TEXT,                -- credentials stripped
  branch      TEXT,
  commit_sha  TEXT,                -- last commit fully indexed
  indexed_at  TEXT,                -- ISO-8601 UTC of that run
  listing     TEXT                 -- what the last complete run listed with (sync/listing.ts); NULL: list it
);

CREATE TABLE documents (
  id            BIGSERIAL PRIMARY KEY,
  source_id     BIGINT NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  path          TEXT NOT NULL,     -- relative to the source root, '/' separated
  content_hash  TEXT NOT NULL,     -- sha256 hex of the file's bytes
  stamp         TEXT NOT NULL,     -- git blob id, or size:mtime for dir sources
  size          BIGINT NOT NULL,
  title         TEXT,
  metadata      JSONB NOT NULL DEFAULT '{}',
  chunker       TEXT NOT NULL,     -- chunker fingerprint (name, version, settings)
  indexed_at    TEXT NOT NULL,
  UNIQUE (source_id, path)
);
CREATE INDEX documents_content_hash ON documents(content_hash);

-- head / body: the keyword terms of the chunk (core/text/analyzer.ts: CJK unigrams and bigrams,
-- folded Latin words), as tsvectors built from the analyzer's tokens (never re-parsed by a text
-- search configuration, so CJK needs no server parser); positions give each term's frequency.
CREATE TABLE chunks (
  id           BIGSERIAL PRIMARY KEY,
  document_id  BIGINT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ordinal      INTEGER NOT NULL,   -- 0-based position in the document
  key          TEXT NOT NULL,      -- stable id shown to callers
  heading      TEXT NOT NULL DEFAULT '',
  content      TEXT NOT NULL,      -- the passage as shown to people
  text         TEXT NOT NULL,      -- the exact text sent to the embedder
  text_hash    TEXT NOT NULL,      -- sha256 hex of text: the key of its vector
  tokens       INTEGER NOT NULL,   -- estimated tokens of text
  metadata     JSONB NOT NULL DEFAULT '{}',
  terms        TEXT NOT NULL DEFAULT '',     -- the body's terms in text order, space separated (the literal stage reads them)
  head         TSVECTOR NOT NULL DEFAULT '',
  body         TSVECTOR NOT NULL DEFAULT '',
  head_len     INTEGER NOT NULL DEFAULT 0,   -- terms in head (with repeats)
  body_len     INTEGER NOT NULL DEFAULT 0,
  UNIQUE (document_id, ordinal)
);
CREATE INDEX chunks_text_hash ON chunks(text_hash);
CREATE INDEX chunks_key ON chunks(key);
-- A CJK chunk holds hundreds of distinct terms: new entries gather in a pending list (16 MB) that
-- the end of a run merges (gin_clean_pending_list), instead of one slow index insert each.
CREATE INDEX chunks_head ON chunks USING gin (head) WITH (gin_pending_list_limit = 16384);
CREATE INDEX chunks_body ON chunks USING gin (body) WITH (gin_pending_list_limit = 16384);

CREATE FUNCTION chunks_count() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE meta SET value = value + (SELECT count(*) FROM new_rows) WHERE key = 'chunks';
    UPDATE meta SET value = value + (SELECT coalesce(sum(head_len + body_len), 0) FROM new_rows) WHERE key = 'chunk_terms';
  ELSE
    UPDATE meta SET value = value - (SELECT count(*) FROM old_rows) WHERE key = 'chunks';
    UPDATE meta SET value = value - (SELECT coalesce(sum(head_len + body_len), 0) FROM old_rows) WHERE key = 'chunk_terms';
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER chunks_counted_insert AFTER INSERT ON chunks REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION chunks_count();
CREATE TRIGGER chunks_counted_delete AFTER DELETE ON chunks REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION chunks_count();

CREATE TABLE embedders (
  fingerprint  TEXT PRIMARY KEY,   -- e.g. 'hash:cjk-ngram@1:1024'
  provider     TEXT NOT NULL,
  model        TEXT NOT NULL,
  dims         INTEGER NOT NULL,
  created_at   TEXT NOT NULL
);

-- embedding: pgvector's vector, any dims (each fingerprint's own: `dims`). The approximate index
-- of a fingerprint is a partial HNSW index over embedding cast to vector(dims) — halfvec(dims)
-- beyond 2000 dims, HNSW's limit for vector — made when the embedder is registered.
CREATE TABLE vectors (
  fingerprint  TEXT NOT NULL REFERENCES embedders(fingerprint),
  text_hash    TEXT NOT NULL,
  dims         INTEGER NOT NULL,
  embedding    vector NOT NULL CHECK (vector_dims(embedding) = dims),
  created_at   TEXT NOT NULL,
  PRIMARY KEY (fingerprint, text_hash)
);

-- What storedTextsMissingVectors found complete: skipped while generation and count are unchanged.
CREATE TABLE vectors_complete (
  fingerprint  TEXT PRIMARY KEY,
  generation   BIGINT NOT NULL,
  vectors      BIGINT NOT NULL
);

CREATE TABLE runs (
  id              BIGSERIAL PRIMARY KEY,
  trigger         TEXT NOT NULL DEFAULT 'manual',
  started_at      TEXT NOT NULL,
  finished_at     TEXT,
  status          TEXT NOT NULL CHECK (status IN ('running', 'ok', 'partial', 'failed', 'aborted')),
  fingerprint     TEXT NOT NULL,
  forced          BOOLEAN NOT NULL DEFAULT false,
  texts_embedded  INTEGER NOT NULL DEFAULT 0,
  requests        INTEGER NOT NULL DEFAULT 0,
  tokens          BIGINT NOT NULL DEFAULT 0,
  retries         INTEGER NOT NULL DEFAULT 0,
  error           TEXT
);

CREATE TABLE run_sources (
  run_id          BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  source          TEXT NOT NULL,
  status          TEXT NOT NULL,
  commit_before   TEXT,
  commit_after    TEXT,
  added           INTEGER NOT NULL DEFAULT 0,
  changed         INTEGER NOT NULL DEFAULT 0,
  deleted         INTEGER NOT NULL DEFAULT 0,
  renamed         INTEGER NOT NULL DEFAULT 0,
  unchanged       INTEGER NOT NULL DEFAULT 0,
  skipped         INTEGER NOT NULL DEFAULT 0,
  chunks_written  INTEGER NOT NULL DEFAULT 0,
  chunks_reused   INTEGER NOT NULL DEFAULT 0,
  texts_embedded  INTEGER NOT NULL DEFAULT 0,
  planned         JSONB NOT NULL DEFAULT '{}',
  skipped_files   JSONB,             -- [{path, reason}] of files the run refused, the first 100
  error           TEXT,
  PRIMARY KEY (run_id, source)
);

-- Who holds the run lock, for messages: the lock itself is a session advisory lock, released by
-- the server when its holder's connection ends (a killed process holds nothing).
CREATE TABLE index_lock (
  id            INTEGER PRIMARY KEY CHECK (id = 1),
  token         TEXT NOT NULL,
  pid           INTEGER NOT NULL,
  host          TEXT NOT NULL,
  proc_start    TEXT,
  acquired_at   TEXT NOT NULL,
  heartbeat_at  TEXT NOT NULL
);

-- The corpus lexicon (see the SQLite migration 007): kept by the writer and the trigger below.
CREATE TABLE lexicon_terms (
  headword  TEXT PRIMARY KEY,
  df        INTEGER NOT NULL
);
CREATE TABLE lexicon_glosses (
  gloss     TEXT NOT NULL,
  headword  TEXT NOT NULL REFERENCES lexicon_terms(headword) ON DELETE CASCADE,
  sense     INTEGER NOT NULL,
  PRIMARY KEY (gloss, headword)
);
CREATE INDEX lexicon_glosses_headword ON lexicon_glosses(headword);
CREATE TABLE lexicon_docs (
  document_id  BIGINT PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
  headwords    TEXT[] NOT NULL
);
CREATE FUNCTION lexicon_docs_delete() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  UPDATE lexicon_terms SET df = df - 1 WHERE headword = ANY (OLD.headwords);
  DELETE FROM lexicon_terms WHERE df <= 0 AND headword = ANY (OLD.headwords);
  RETURN NULL;
END $$;
CREATE TRIGGER lexicon_docs_delete AFTER DELETE ON lexicon_docs FOR EACH ROW EXECUTE FUNCTION lexicon_docs_delete();

-- For people with psql: no vectors.
CREATE VIEW v_documents AS
  SELECT s.name AS source, d.path, d.title, d.size, left(d.content_hash, 12) AS content_hash,
         (SELECT count(*) FROM chunks c WHERE c.document_id = d.id) AS chunks, d.indexed_at
  FROM documents d JOIN sources s ON s.id = d.source_id;
CREATE VIEW v_chunks AS
  SELECT c.id, s.name AS source, d.path, c.ordinal, c.key, c.heading, c.tokens,
         left(c.text_hash, 12) AS text_hash, left(replace(c.content, chr(10), ' '), 80) AS preview
  FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id;
CREATE VIEW v_coverage AS
  SELECT e.fingerprint, e.dims,
         (SELECT count(DISTINCT text_hash) FROM chunks) AS distinct_texts,
         (SELECT count(DISTINCT c.text_hash) FROM chunks c
            JOIN vectors v ON v.fingerprint = e.fingerprint AND v.text_hash = c.text_hash) AS embedded,
         (SELECT count(*) FROM vectors v WHERE v.fingerprint = e.fingerprint) AS stored
  FROM embedders e;
CREATE VIEW v_lexicon AS
  SELECT g.gloss, g.headword, g.sense, t.df FROM lexicon_glosses g JOIN lexicon_terms t USING (headword);

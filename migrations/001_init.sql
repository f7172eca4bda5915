-- 001: the manifest (sources, documents), chunks, content-addressed vectors and run history.
-- Vectors belong to chunk texts, not to documents: documents point at text hashes, so a rename
-- or a paragraph moved between files re-embeds nothing.

CREATE TABLE sources (
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL UNIQUE,
  kind        TEXT NOT NULL CHECK (kind IN ('git', 'dir')),
  url         TEXT,                -- credentials stripped
  branch      TEXT,
  commit_sha  TEXT,                -- last commit fully indexed
  indexed_at  TEXT                 -- ISO-8601 UTC of that run
);

CREATE TABLE documents (
  id            INTEGER PRIMARY KEY,
  source_id     INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  path          TEXT NOT NULL,     -- relative to the source root, '/' separated
  content_hash  TEXT NOT NULL,     -- sha256 hex of the file's bytes
  stamp         TEXT NOT NULL,     -- cheap change check: git blob id, or size:mtime for dir sources
  size          INTEGER NOT NULL,  -- bytes
  title         TEXT,
  metadata      TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata)),
  chunker       TEXT NOT NULL,     -- chunker fingerprint (name, version, settings)
  indexed_at    TEXT NOT NULL,
  UNIQUE (source_id, path)
);
CREATE INDEX documents_content_hash ON documents(content_hash);

CREATE TABLE chunks (
  id           INTEGER PRIMARY KEY,
  document_id  INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ordinal      INTEGER NOT NULL,   -- 0-based position in the document
  key          TEXT NOT NULL,      -- stable id shown to callers
  heading      TEXT NOT NULL DEFAULT '',  -- heading path, e.g. '穷通宝鉴 › 论甲木'
  content      TEXT NOT NULL,      -- the passage as shown to people
  text         TEXT NOT NULL,      -- the exact text sent to the embedder (context + content)
  text_hash    TEXT NOT NULL,      -- sha256 hex of text: the key of its vector
  tokens       INTEGER NOT NULL,   -- estimated tokens of text (a CJK character = 1)
  metadata     TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata)),
  UNIQUE (document_id, ordinal)
);
CREATE INDEX chunks_text_hash ON chunks(text_hash);

CREATE TABLE embedders (
  fingerprint  TEXT PRIMARY KEY,   -- e.g. 'hash:cjk-ngram@1:1024'
  provider     TEXT NOT NULL,
  model        TEXT NOT NULL,
  dims         INTEGER NOT NULL,
  created_at   TEXT NOT NULL
);

-- embedding: dims float32 values, little-endian, 4*dims bytes (sqlite-vec's vector format).
CREATE TABLE vectors (
  fingerprint  TEXT NOT NULL REFERENCES embedders(fingerprint),
  text_hash    TEXT NOT NULL,
  dims         INTEGER NOT NULL,
  embedding    BLOB NOT NULL CHECK (length(embedding) = 4 * dims),
  created_at   TEXT NOT NULL,
  PRIMARY KEY (fingerprint, text_hash)
) WITHOUT ROWID;

CREATE TABLE runs (
  id           INTEGER PRIMARY KEY,
  trigger      TEXT NOT NULL DEFAULT 'manual',  -- manual | cron
  started_at   TEXT NOT NULL,
  finished_at  TEXT,
  status       TEXT NOT NULL CHECK (status IN ('running', 'ok', 'partial', 'failed', 'aborted')),
  fingerprint  TEXT NOT NULL,
  forced       INTEGER NOT NULL DEFAULT 0,
  embedded     INTEGER NOT NULL DEFAULT 0,      -- texts sent to the embedder
  requests     INTEGER NOT NULL DEFAULT 0,      -- embedder calls
  tokens       INTEGER NOT NULL DEFAULT 0,      -- estimated tokens sent
  error        TEXT
);

CREATE TABLE run_sources (
  run_id          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  source          TEXT NOT NULL,
  status          TEXT NOT NULL,
  commit_before   TEXT,
  commit_after    TEXT,
  added           INTEGER NOT NULL DEFAULT 0,
  changed         INTEGER NOT NULL DEFAULT 0,
  deleted         INTEGER NOT NULL DEFAULT 0,
  renamed         INTEGER NOT NULL DEFAULT 0,
  unchanged       INTEGER NOT NULL DEFAULT 0,
  skipped         INTEGER NOT NULL DEFAULT 0,   -- files refused (binary, too large, …)
  chunks_total    INTEGER NOT NULL DEFAULT 0,
  chunks_embedded INTEGER NOT NULL DEFAULT 0,
  chunks_reused   INTEGER NOT NULL DEFAULT 0,
  error           TEXT,
  PRIMARY KEY (run_id, source)
);

-- Views for people with the sqlite3 shell: no BLOBs.
CREATE VIEW v_documents AS
  SELECT s.name AS source, d.path, d.title, d.size, substr(d.content_hash, 1, 12) AS content_hash,
         (SELECT count(*) FROM chunks c WHERE c.document_id = d.id) AS chunks, d.indexed_at
  FROM documents d JOIN sources s ON s.id = d.source_id;

CREATE VIEW v_chunks AS
  SELECT c.id, s.name AS source, d.path, c.ordinal, c.key, c.heading, c.tokens,
         substr(c.text_hash, 1, 12) AS text_hash, substr(replace(c.content, char(10), ' '), 1, 80) AS preview
  FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id;

CREATE VIEW v_vectors AS
  SELECT fingerprint, text_hash, dims, length(embedding) AS bytes, created_at FROM vectors;

CREATE VIEW v_coverage AS
  SELECT e.fingerprint,
         (SELECT count(DISTINCT text_hash) FROM chunks) AS distinct_texts,
         (SELECT count(*) FROM (SELECT DISTINCT c.text_hash FROM chunks c
            JOIN vectors v ON v.fingerprint = e.fingerprint AND v.text_hash = c.text_hash)) AS embedded,
         (SELECT count(*) FROM vectors v WHERE v.fingerprint = e.fingerprint) AS stored
  FROM embedders e;

-- 002: keyword search (FTS5) and the index generation counter.
--
-- chunks_fts holds one row per chunk (rowid = chunks.id) with a pre-tokenised column: CJK unigrams
-- and bigrams and lowercased Latin words, space separated (src/search/tokenize.ts). Tokenising in JS
-- keeps CJK two-character terms (甲木, 伤官) matchable without a custom SQLite tokenizer, so rows are
-- inserted by SqliteStore.writeDocuments in the chunks' own transaction; deletes follow the chunks
-- here by trigger (also on ON DELETE CASCADE from documents). Existing chunks are (re)tokenised from JS
-- when a writable store is opened and meta.fts_version differs from TOKENIZER_VERSION.
CREATE VIRTUAL TABLE chunks_fts USING fts5(tokens, tokenize = 'unicode61 remove_diacritics 0');

CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
  DELETE FROM chunks_fts WHERE rowid = old.id;
END;

-- generation: bumped by every transaction that changes chunks or vectors, so a long-lived reader
-- (the in-memory vector index of `ragsync serve`) knows to reload without polling on a timer.
CREATE TABLE meta (
  key    TEXT PRIMARY KEY,
  value  INTEGER NOT NULL
);
INSERT INTO meta (key, value) VALUES ('generation', 0), ('fts_version', 0);

-- 023: a source's kind is any name of the source-kind registry (src/sources/registry.ts): the
-- CHECK listing the kinds goes, so a new kind is one registry entry and no migration (the config
-- loader refuses a kind the registry lacks before anything is written). Rebuilt as 020 did:
-- SQLite cannot drop a CHECK in place; every id kept, documents still point at "sources".
-- ragsync: foreign_keys off
PRAGMA legacy_alter_table = ON;
ALTER TABLE sources RENAME TO sources_before_open_kind;
CREATE TABLE sources (
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL UNIQUE,
  kind        TEXT NOT NULL CHECK (kind <> ''),
  url         TEXT,                -- credentials stripped (web: the start URL or sitemap)
  branch      TEXT,
  commit_sha  TEXT,                -- last commit fully indexed (web: none)
  indexed_at  TEXT,                -- ISO-8601 UTC of that run
  listing     TEXT                 -- migration 013
);
INSERT INTO sources (id, name, kind, url, branch, commit_sha, indexed_at, listing)
  SELECT id, name, kind, url, branch, commit_sha, indexed_at, listing FROM sources_before_open_kind;
DROP TABLE sources_before_open_kind;
PRAGMA legacy_alter_table = OFF;

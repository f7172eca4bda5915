-- 020: sources of kind 'web' (a crawled site: documents are its pages, by URL). SQLite cannot
-- change a CHECK in place: the table is renamed without rewriting the references to it
-- (legacy_alter_table, so documents still point at "sources"), copied into the new definition
-- with every id kept, and the old copy, which nothing references, is dropped. Foreign keys are
-- off meanwhile (the runner turns them off for a migration with the line below, and checks them
-- before it commits): with them on, the rename would point documents at the old copy.
-- ragsync: foreign_keys off
PRAGMA legacy_alter_table = ON;
ALTER TABLE sources RENAME TO sources_before_web;
CREATE TABLE sources (
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL UNIQUE,
  kind        TEXT NOT NULL CHECK (kind IN ('git', 'dir', 'web')),
  url         TEXT,                -- credentials stripped (web: the start URL or sitemap)
  branch      TEXT,
  commit_sha  TEXT,                -- last commit fully indexed (web: none)
  indexed_at  TEXT,                -- ISO-8601 UTC of that run
  listing     TEXT                 -- migration 013
);
INSERT INTO sources (id, name, kind, url, branch, commit_sha, indexed_at, listing)
  SELECT id, name, kind, url, branch, commit_sha, indexed_at, listing FROM sources_before_web;
DROP TABLE sources_before_web;
PRAGMA legacy_alter_table = OFF;

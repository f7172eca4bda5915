-- 003 (Postgres; SQLite 020): the kinds of source an index holds, 'web' (a crawled site: its
-- documents are pages, by URL) beside git and dir, checked as SQLite's table checks them.
ALTER TABLE sources ADD CONSTRAINT sources_kind CHECK (kind IN ('git', 'dir', 'web'));

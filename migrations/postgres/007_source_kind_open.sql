-- 007 (Postgres; SQLite 023): a source's kind is any name of the source-kind registry
-- (src/sources/registry.ts), so a new kind is one registry entry and no migration; the config
-- loader refuses a kind the registry lacks before anything is written.
ALTER TABLE sources DROP CONSTRAINT IF EXISTS sources_kind;
ALTER TABLE sources ADD CONSTRAINT sources_kind CHECK (kind <> '');

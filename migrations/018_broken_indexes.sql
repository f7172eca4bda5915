-- 018: the chunks and documents marked broken (metadata.broken true), each in a small partial
-- index: a one-shot search leaves the broken chunks out of its keyword match sets by looking up
-- these few rows instead of reading the flags of every chunk it matched (storage/sqlite/match-sets.ts).
-- The WHERE expressions are the ones the queries use, so SQLite picks these indexes.
CREATE INDEX chunks_broken ON chunks(id) WHERE json_extract(metadata, '$.broken') IN (1, 'true');
CREATE INDEX documents_broken ON documents(id) WHERE json_extract(metadata, '$.broken') IN (1, 'true');

-- 012: the chunk facts searches filter by (id, document, text hash, broken flag) in a narrow covering
-- index. They sit after content and text in a chunk's row, so reading them from the table read
-- every chunk's texts on the way (and their overflow pages): building every chunk's facts or looking
-- one up now reads only this index. The expression is written exactly as the readers write it, so
-- SQLite answers it from the index (storage/sqlite/facts.ts).
CREATE INDEX chunks_facts ON chunks(id, document_id, text_hash, json_extract(metadata, '$.broken'));

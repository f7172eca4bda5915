-- 004: a narrow index over the vectors' key. The primary key of a WITHOUT ROWID table is the table
-- itself, so probing it for "has this text a vector?" walks pages full of 4 KB BLOBs; this index
-- holds the keys alone, and the existence checks of every run (plan, embedder switch) name it.
CREATE INDEX vectors_key ON vectors(fingerprint, text_hash);

-- 007: the corpus lexicon. English gloss keys (lemmatised words or 2–3-word phrases, from the
-- CC-CEDICT dictionary) → the Chinese headwords that occur in the indexed documents of sources
-- using the lexicon, with their document frequency. Search expands English queries from it
-- without loading the dictionary. Kept current by the documents' own rows: the writer adds a
-- written document's headwords to df (summed over the whole write, one update per headword);
-- removing a document's row — rewritten, deleted, or its source dropped (cascade) — takes them
-- back by the trigger below, and a headword no document holds any more leaves with its glosses.

CREATE TABLE lexicon_terms (
  headword  TEXT PRIMARY KEY,          -- simplified Chinese, as the dictionary writes it
  df        INTEGER NOT NULL           -- documents containing it
) WITHOUT ROWID;

CREATE TABLE lexicon_glosses (
  gloss     TEXT NOT NULL,             -- English key: Porter stems of 1–3 content words, space separated
  headword  TEXT NOT NULL REFERENCES lexicon_terms(headword) ON DELETE CASCADE,
  sense     INTEGER NOT NULL,          -- which sense of the entry it glosses (0 = the first)
  PRIMARY KEY (gloss, headword)
) WITHOUT ROWID;
CREATE INDEX lexicon_glosses_headword ON lexicon_glosses(headword);

-- Which headwords each document holds (a JSON array): what its removal or rewrite takes back.
CREATE TABLE lexicon_docs (
  document_id  INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
  headwords    TEXT NOT NULL CHECK (json_valid(headwords))
);

CREATE TRIGGER lexicon_docs_delete AFTER DELETE ON lexicon_docs BEGIN
  UPDATE lexicon_terms SET df = df - 1 WHERE headword IN (SELECT value FROM json_each(OLD.headwords));
  DELETE FROM lexicon_terms WHERE df <= 0 AND headword IN (SELECT value FROM json_each(OLD.headwords));
END;

-- For people with the sqlite3 shell: SELECT * FROM v_lexicon WHERE gloss = 'messag queue';
CREATE VIEW v_lexicon AS
  SELECT g.gloss, g.headword, g.sense, t.df FROM lexicon_glosses g JOIN lexicon_terms t USING (headword);

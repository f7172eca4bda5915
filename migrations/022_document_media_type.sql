-- 022: what each document is, as its source gave it ('text/html' for a web page, 'text/markdown',
-- 'text/plain', 'text/x-<language>' for code), before the content step turned it into what its
-- chunker reads (HTML into Markdown). NULL for documents written before, until re-chunked.
ALTER TABLE documents ADD COLUMN media_type TEXT;

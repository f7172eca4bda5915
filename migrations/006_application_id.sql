-- Marks the file as a ragsync index ("rgsy" in the SQLite header's application_id), so ragsync can
-- tell its own database from another program's SQLite file before writing anything to it.
PRAGMA application_id = 1919382393;

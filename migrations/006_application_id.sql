-- 006: mark the file as ragsync's in the SQLite header (offset 68, `PRAGMA application_id`), so a
-- command pointed at another program's database refuses it instead of writing this schema into it.
-- 0x52475359 = "RGSY". Files made before this migration are recognised by schema_migrations.
PRAGMA application_id = 1380406105;

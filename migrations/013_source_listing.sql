-- 013: what a source's last complete run listed and planned with, so that an unchanged git source
-- is not listed again: the commit and every setting the listing and the plan read
-- (include/exclude, maxFileBytes, chunker and analyzer fingerprints, embedder fingerprint; see
-- sync/listing.ts). Set only when a run indexed the source in full (nothing skipped or deferred),
-- cleared before any run writes the source's documents; NULL means "list it".
ALTER TABLE sources ADD COLUMN listing TEXT;

import { redactSecrets } from '../core/redact.ts';
import type { SourceConfig } from '../config/load.ts';

/**
 * Bump when listing or planning files changes in a way none of the fingerprints below records
 * (which files `git ls-tree` yields, how a file is read or decoded): every source is listed again.
 */
const FORMAT = 1;

/**
 * The key a run records with a git source's commit once it indexed the source in full: the commit
 * and everything the listing and the plan read besides the stored documents. A later run that
 * fetches the same commit under the same key has nothing to list: the documents are the listing's.
 * Kept as the JSON itself, readable with sqlite3 (and no hash to load node:crypto for on a no-op
 * run); the URL is redacted, so no credential goes into it.
 */
export function listingKey(source: SourceConfig, commit: string, pipelineFingerprint: string, embedderFingerprint: string): string {
  return JSON.stringify([
    FORMAT,
    commit,
    source.kind,
    source.url ? redactSecrets(source.url) : null,
    source.branch,
    source.root,
    source.include,
    source.exclude,
    source.maxFileBytes,
    source.chunker,
    source.chunking,
    source.profile,
    source.lexicon,
    pipelineFingerprint,
    embedderFingerprint,
  ]);
}

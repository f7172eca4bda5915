import type { Database } from 'better-sqlite3';
import type { SourceState } from '../roles.ts';

/** Every source (or the one named) with its commit and its document and chunk counts. */
export function listSources(db: Database, name?: string): SourceState[] {
  return db
    .prepare(
      `SELECT s.name, s.kind, s.url, s.branch, s.commit_sha AS 'commit', s.indexed_at AS indexedAt,
              (SELECT count(*) FROM documents d WHERE d.source_id = s.id) AS documents,
              (SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.source_id = s.id) AS chunks
       FROM sources s WHERE ? IS NULL OR s.name = ? ORDER BY s.name`,
    )
    .all(name ?? null, name ?? null) as SourceState[];
}

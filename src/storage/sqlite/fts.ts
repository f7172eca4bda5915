import type { Database } from 'better-sqlite3';
import { indexText, TOKENIZER_VERSION } from '../../core/text/analyzer.ts';

/** Bumps the generation counter; call inside the transaction that changes chunks or vectors. */
export function bumpGeneration(db: Database): void {
  db.prepare("UPDATE meta SET value = value + 1 WHERE key = 'generation'").run();
}

export function ftsStale(db: Database): boolean {
  const v = db.prepare("SELECT value FROM meta WHERE key = 'fts_version'").pluck().get() as number | undefined;
  return v !== TOKENIZER_VERSION;
}

/**
 * Re-tokenises every chunk into chunks_fts when the tokenizer version changed (or 002 was just
 * applied to an index that already had chunks). One transaction: readers see the old table or the new.
 */
export function refreshFts(db: Database): number {
  if (!ftsStale(db)) return 0;
  const insert = db.prepare('INSERT INTO chunks_fts (rowid, tokens) VALUES (?, ?)');
  let n = 0;
  db.transaction(() => {
    db.prepare('DELETE FROM chunks_fts').run();
    // Pages by id: better-sqlite3 cannot write while a read cursor is open on the connection.
    const page = db.prepare('SELECT id, text FROM chunks WHERE id > ? ORDER BY id LIMIT 1000');
    for (let last = 0; ; ) {
      const rows = page.all(last) as { id: number; text: string }[];
      if (!rows.length) break;
      for (const r of rows) insert.run(r.id, indexText(r.text));
      n += rows.length;
      last = rows[rows.length - 1]!.id;
    }
    db.prepare("UPDATE meta SET value = ? WHERE key = 'fts_version'").run(TOKENIZER_VERSION);
    bumpGeneration(db);
  })();
  return n;
}

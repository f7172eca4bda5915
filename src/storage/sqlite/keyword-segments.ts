import type { Database } from 'better-sqlite3';

/**
 * Segments the keyword index (FTS5) may hold before a run merges them. Each flush of pending terms
 * adds one (a document write flushes every 256K characters of them) and FTS5 merges them only level
 * by level, so their number grows with the index, and a search reads every segment's postings of
 * each term it looks up. Merged, the postings are the same: the same rows match and rank the same.
 */
export const MAX_KEYWORD_SEGMENTS = 8;

/** FTS5's structure record (fts5_index.c): a 4-byte cookie, a 4-byte marker in its second version, then varints: levels, segments, … */
const STRUCTURE_ROWID = 10;
const STRUCTURE_V2 = [0xff, 0x00, 0x00, 0x01];

/** The segments the keyword index holds now, as its structure record counts them (0 when it has none). */
export function keywordSegments(db: Database): number {
  const block = db.prepare('SELECT block FROM chunks_fts_data WHERE id = ?').pluck().get(STRUCTURE_ROWID) as Buffer | undefined;
  if (!block || block.length < 6) return 0;
  let at = STRUCTURE_V2.every((b, i) => block[4 + i] === b) ? 8 : 4;
  // SQLite's varint: big-endian groups of 7 bits while the top bit is set, the ninth byte whole.
  const varint = () => {
    let v = 0;
    for (let n = 0; n < 9 && at < block.length; n++) {
      const b = block[at++]!;
      if (n === 8) return v * 256 + b;
      v = v * 128 + (b & 0x7f);
      if (!(b & 0x80)) break;
    }
    return v;
  };
  varint(); // levels
  return varint();
}

/** Pages of merge work per step: a step (its own transaction) takes milliseconds, not the whole merge's second or more. */
export const MERGE_STEP_PAGES = 64;

/**
 * Merges the keyword index into one segment when it holds more than `max`; true when it did. Done
 * in steps, each its own transaction, with `between` awaited after each (the event loop's turn):
 * FTS5's 'merge' with a negative page count works towards one segment and resumes where the last
 * step stopped; a step that writes (almost) nothing means it is done. Readers see the same rows at
 * every step.
 */
export async function compactKeywordIndex(
  db: Database,
  max = MAX_KEYWORD_SEGMENTS,
  between: () => Promise<void> = () => new Promise((resolve) => setImmediate(resolve)),
): Promise<boolean> {
  if (keywordSegments(db) <= max) return false;
  const step = db.prepare('INSERT INTO chunks_fts (chunks_fts, rank) VALUES (\'merge\', ?)');
  const total = db.prepare('SELECT total_changes()').pluck();
  for (;;) {
    const before = total.get() as number;
    step.run(-MERGE_STEP_PAGES);
    // FTS5's documented test: fewer than 2 changes, nothing was left to merge.
    if ((total.get() as number) - before < 2) return true;
    await between();
  }
}

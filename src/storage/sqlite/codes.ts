import type { Database } from 'better-sqlite3';
import { encodeInt8, normalizeRows } from '../../core/quantize.ts';
import { decodeVector } from './blob.ts';

/**
 * The int8 codes beside the float32 vectors (migration 010): what a one-shot search scans. Each is
 * computed from the float32 row exactly as the in-memory index quantises it on load
 * (core/quantize.ts), so both rank alike.
 */

/**
 * Every code of a fingerprint with its chunk ids (id, scale, residual, code): the codes table in
 * storage order (no index, no sort), each code's chunks from the narrow text_hash index. What a
 * one-shot scan streams, and what a pack holds.
 */
export const CODE_ROWS_SQL = `SELECT c.id, q.scale, q.residual, q.code FROM vector_codes q NOT INDEXED
   CROSS JOIN chunks c INDEXED BY chunks_text_hash ON c.text_hash = q.text_hash WHERE q.fingerprint = ?`;

/** A statement writing the code of one vector (call inside the transaction that writes the vector). */
export function codeWriter(db: Database): (fingerprint: string, textHash: string, vector: Float32Array) => void {
  const insert = db.prepare('INSERT OR REPLACE INTO vector_codes (fingerprint, text_hash, scale, residual, code) VALUES (?, ?, ?, ?, ?)');
  let unit = new Float32Array(0);
  let out = new Int8Array(0);
  return (fingerprint, textHash, vector) => {
    if (unit.length !== vector.length) (unit = new Float32Array(vector.length)), (out = new Int8Array(vector.length));
    unit.set(vector);
    normalizeRows(unit, unit.length);
    const { scale, residual } = encodeInt8(unit, out);
    insert.run(fingerprint, textHash, scale, residual, Buffer.from(out.buffer, out.byteOffset, out.byteLength));
  };
}

/** Whether a code was lost while its vector stayed (migration 015's mark): a writer then refills them. */
export function vectorCodesLost(db: Database): boolean {
  return !!db.prepare("SELECT 1 FROM meta WHERE key = 'codes_missing' AND value = 1").get();
}

/**
 * Codes for every vector that has none (an index made before migration 010, or codes lost since),
 * in one transaction that also clears the mark of lost codes.
 */
export function backfillVectorCodes(db: Database): number {
  const write = codeWriter(db);
  let written = 0;
  db.transaction(() => {
    // Pages by key: better-sqlite3 cannot write while a read cursor is open on the connection.
    const page = db.prepare(
      `SELECT v.fingerprint, v.text_hash, v.embedding FROM vectors v
       WHERE (v.fingerprint, v.text_hash) > (?, ?)
         AND NOT EXISTS (SELECT 1 FROM vector_codes q WHERE q.fingerprint = v.fingerprint AND q.text_hash = v.text_hash)
       ORDER BY v.fingerprint, v.text_hash LIMIT 500`,
    );
    for (let last: [string, string] = ['', '']; ; ) {
      const rows = page.raw().all(...last) as [string, string, Buffer][];
      if (!rows.length) break;
      for (const [fp, hash, blob] of rows) {
        if (blob.byteLength % 4 === 0) write(fp, hash, decodeVector(blob));
        written++;
      }
      const end = rows[rows.length - 1]!;
      last = [end[0], end[1]];
    }
    db.prepare("DELETE FROM meta WHERE key = 'codes_missing'").run();
  })();
  return written;
}


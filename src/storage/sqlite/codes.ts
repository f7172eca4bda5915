import type { Database } from 'better-sqlite3';
import { endianness } from 'node:os';
import { encodeInt8, normalizeRows } from '../../core/quantize.ts';
import { decodeVector } from './blob.ts';
import { embedderDims, readGeneration, vectorCount } from './statements.ts';

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

/** Whether some vector has no code (codes exist only with their vector: the counts tell). */
export function vectorCodesMissing(db: Database): boolean {
  return !!db
    .prepare('SELECT (SELECT count(*) FROM vectors INDEXED BY vectors_key) > (SELECT count(*) FROM vector_codes)')
    .pluck()
    .get();
}

/** Codes for every vector that has none (an index made before migration 010), in one transaction. */
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
  })();
  return written;
}

/**
 * The pack of a fingerprint's codes (migration 011): the rows the code scan streams, in one row of
 * four BLOBs, so a one-shot search reads them without a BLOB per chunk. Native byte order: packs are
 * written and read on little-endian machines only (elsewhere searches keep reading the rows).
 */
const PACKS = endianness() === 'LE';

/**
 * Writes the pack of `fingerprint` when it is missing or stale and every vector has its code;
 * returns whether it wrote one. One transaction: the pack matches the generation it names.
 */
export function refreshCodePack(db: Database, fingerprint: string): boolean {
  if (!PACKS) return false;
  return db.transaction(() => {
    const generation = readGeneration(db);
    const vectors = vectorCount(db, fingerprint);
    const held = db.prepare('SELECT generation, vectors FROM vector_code_packs WHERE fingerprint = ?').get(fingerprint) as
      | { generation: number; vectors: number }
      | undefined;
    if (held && held.generation === generation && held.vectors === vectors) return false;
    const codes = db.prepare('SELECT count(*) FROM vector_codes WHERE fingerprint = ?').pluck().get(fingerprint) as number;
    const dims = embedderDims(db, fingerprint);
    if (codes !== vectors || !vectors || !dims) {
      db.prepare('DELETE FROM vector_code_packs WHERE fingerprint = ?').run(fingerprint);
      return false;
    }
    // The rows the code scan streams, read in full before writing.
    const rows = db
      .prepare(CODE_ROWS_SQL)
      .raw()
      .all(fingerprint) as [number, number, number, Buffer][];
    const kept = rows.filter((r) => r[3].byteLength === dims);
    const refs = new Int32Array(kept.length);
    const scales = new Float64Array(kept.length);
    const residuals = new Float64Array(kept.length);
    const packed = Buffer.allocUnsafe(kept.length * dims);
    kept.forEach(([id, scale, residual, code], i) => {
      refs[i] = id;
      scales[i] = scale;
      residuals[i] = residual;
      code.copy(packed, i * dims);
    });
    const bytes = (a: Int32Array | Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
    db.prepare(
      `INSERT OR REPLACE INTO vector_code_packs (fingerprint, generation, vectors, dims, count, refs, scales, residuals, codes)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(fingerprint, generation, vectors, dims, kept.length, bytes(refs), bytes(scales), bytes(residuals), packed);
    return true;
  }).immediate();
}

export interface CodePack {
  dims: number;
  count: number;
  refs: Int32Array;
  scales: Float64Array;
  residuals: Float64Array;
  codes: Int8Array;
}

/** The pack of `fingerprint` when it is current (its generation and vector count the index's), else null. */
export function readCodePack(db: Database, fingerprint: string, generation: number, vectors: number, dims: number): CodePack | null {
  if (!PACKS) return null;
  const row = db
    .prepare('SELECT generation, vectors, dims, count, refs, scales, residuals, codes FROM vector_code_packs WHERE fingerprint = ?')
    .get(fingerprint) as
    | { generation: number; vectors: number; dims: number; count: number; refs: Buffer; scales: Buffer; residuals: Buffer; codes: Buffer }
    | undefined;
  if (!row || row.generation !== generation || row.vectors !== vectors || row.dims !== dims) return null;
  const n = row.count;
  if (row.refs.byteLength !== n * 4 || row.scales.byteLength !== n * 8 || row.residuals.byteLength !== n * 8 || row.codes.byteLength !== n * dims) return null;
  // Copied into aligned arrays (a BLOB's Buffer may start at any byte).
  const refs = new Int32Array(n);
  new Uint8Array(refs.buffer).set(row.refs);
  const scales = new Float64Array(n);
  new Uint8Array(scales.buffer).set(row.scales);
  const residuals = new Float64Array(n);
  new Uint8Array(residuals.buffer).set(row.residuals);
  const codes = new Int8Array(row.codes.buffer, row.codes.byteOffset, row.codes.byteLength);
  return { dims, count: n, refs, scales, residuals, codes };
}

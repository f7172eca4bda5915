import type { Database } from 'better-sqlite3';
import { endianness } from 'node:os';
import { encodeInt8, normalizeRows } from '../../core/quantize.ts';
import { decodeVector } from './blob.ts';
import { codeCount, embedderDims, readGeneration, vectorCount } from './statements.ts';

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

/**
 * The packs of a fingerprint's codes (migrations 011, 014): the rows the code scan streams, one row
 * of four BLOBs per source, so a one-shot search reads them without a BLOB per chunk, and only the
 * sources it is scoped to. Native byte order: packs are written and read on little-endian machines
 * only (elsewhere searches keep reading the rows).
 */
const PACKS = endianness() === 'LE';

/**
 * Writes the packs of `fingerprint` when they are missing or stale and every vector has its code;
 * returns whether it wrote them. One transaction: every pack matches the generation it names.
 */
export function refreshCodePack(db: Database, fingerprint: string): boolean {
  if (!PACKS) return false;
  return db.transaction(() => {
    const generation = readGeneration(db);
    const vectors = vectorCount(db, fingerprint);
    const dims = embedderDims(db, fingerprint);
    if (packsCurrent(db, fingerprint, { generation, vectors, dims })) return false;
    db.prepare('DELETE FROM vector_code_packs WHERE fingerprint = ?').run(fingerprint);
    if (codeCount(db, fingerprint) !== vectors || !vectors || !dims) return false;
    // The rows the code scan streams, read in full before writing, by their chunks' source.
    const sourceOf = new Map(
      db.prepare('SELECT c.id, d.source_id FROM chunks c JOIN documents d ON d.id = c.document_id').raw().all() as [number, number][],
    );
    const bySource = new Map<number, [number, number, number, Buffer][]>();
    for (const row of db.prepare(CODE_ROWS_SQL).raw().iterate(fingerprint) as IterableIterator<[number, number, number, Buffer]>) {
      if (row[3].byteLength !== dims) continue;
      const source = sourceOf.get(row[0])!;
      const rows = bySource.get(source);
      if (rows) rows.push(row);
      else bySource.set(source, [row]);
    }
    const insert = db.prepare(
      `INSERT INTO vector_code_packs (fingerprint, source_id, generation, vectors, dims, count, refs, scales, residuals, codes)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const bytes = (a: Int32Array | Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
    for (const [source, kept] of bySource) {
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
      insert.run(fingerprint, source, generation, vectors, dims, kept.length, bytes(refs), bytes(scales), bytes(residuals), packed);
    }
    return true;
  }).immediate();
}

/** Whether the packs of `fingerprint` were written at this generation, vector count and dims (all are written together: one row tells). */
function packsCurrent(db: Database, fingerprint: string, at: { generation: number; vectors: number; dims: number }): boolean {
  const held = db.prepare('SELECT generation, vectors, dims FROM vector_code_packs WHERE fingerprint = ? LIMIT 1').get(fingerprint) as
    | { generation: number; vectors: number; dims: number }
    | undefined;
  return !!held && held.generation === at.generation && held.vectors === at.vectors && held.dims === at.dims;
}

export interface CodePack {
  count: number;
  refs: Int32Array;
  scales: Float64Array;
  residuals: Float64Array;
  codes: Int8Array;
}

/**
 * The packs of `fingerprint` when they are current (their generation and vector count the
 * index's): those of the sources named by `sources`, or all. Null when they are not current.
 */
export function readCodePacks(
  db: Database,
  fingerprint: string,
  at: { generation: number; vectors: number; dims: number },
  sources?: readonly string[],
): CodePack[] | null {
  if (!PACKS || !packsCurrent(db, fingerprint, at)) return null;
  const columns = 'SELECT count, refs, scales, residuals, codes FROM vector_code_packs WHERE fingerprint = ?';
  const rows = (
    sources
      ? db
          .prepare(`${columns} AND source_id IN (SELECT id FROM sources WHERE name IN (SELECT value FROM json_each(?))) ORDER BY source_id`)
          .all(fingerprint, JSON.stringify(sources))
      : db.prepare(`${columns} ORDER BY source_id`).all(fingerprint)
  ) as { count: number; refs: Buffer; scales: Buffer; residuals: Buffer; codes: Buffer }[];
  const packs: CodePack[] = [];
  for (const row of rows) {
    const n = row.count;
    const { dims } = at;
    if (row.refs.byteLength !== n * 4 || row.scales.byteLength !== n * 8 || row.residuals.byteLength !== n * 8 || row.codes.byteLength !== n * dims) {
      return null;
    }
    // Copied into aligned arrays (a BLOB's Buffer may start at any byte).
    const refs = new Int32Array(n);
    new Uint8Array(refs.buffer).set(row.refs);
    const scales = new Float64Array(n);
    new Uint8Array(scales.buffer).set(row.scales);
    const residuals = new Float64Array(n);
    new Uint8Array(residuals.buffer).set(row.residuals);
    const codes = new Int8Array(row.codes.buffer, row.codes.byteOffset, row.codes.byteLength);
    packs.push({ count: n, refs, scales, residuals, codes });
  }
  return packs;
}

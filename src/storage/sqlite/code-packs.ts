import type { Database } from 'better-sqlite3';
import { endianness } from 'node:os';
import { codeCount, embedderDims, readGeneration, vectorCount, type SqliteConnection } from './statements.ts';

/**
 * The packs of a fingerprint's codes (migrations 011, 014, 017): the rows the code scan streams,
 * per source in segments of four BLOBs, so a one-shot search reads them without a BLOB per chunk,
 * a segment at a time, and only the sources it is scoped to. Native byte order: packs are written
 * and read on little-endian machines only (elsewhere searches keep reading the rows).
 */
const PACKS = endianness() === 'LE';

/** Codes per segment: about 1 MiB of them, whatever the dimensions. */
export const SEGMENT_BYTES = 1 << 20;

/** Code rows read per page while packing (the connection cannot write with a read cursor open). */
const PACK_PAGE = 2048;

/**
 * Writes the packs of `fingerprint` when they are missing or stale and every vector has its code;
 * returns whether it wrote them. One transaction: every pack matches the generation it names. The
 * codes are read by pages and written a segment at a time, so no more than a segment per source
 * (and a page) is held at once.
 */
export async function refreshCodePack(
  c: SqliteConnection,
  fingerprint: string,
  segmentBytes = SEGMENT_BYTES,
  between: () => Promise<void> = nextTurn,
): Promise<boolean> {
  if (!PACKS) return false;
  const db = c.db;
  // One transaction held across the event loop's turns between pages (readers, on their own
  // connections, see the old packs until it commits).
  db.exec('BEGIN IMMEDIATE');
  try {
    const wrote = await writePacks(c, fingerprint, segmentBytes, between);
    db.exec('COMMIT');
    return wrote;
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw err;
  }
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function writePacks(c: SqliteConnection, fingerprint: string, segmentBytes: number, between: () => Promise<void>): Promise<boolean> {
  const db = c.db;
  {
    const generation = readGeneration(c);
    const vectors = vectorCount(c, fingerprint);
    const dims = embedderDims(c, fingerprint);
    if (packsCurrent(c, fingerprint, { generation, vectors, dims })) return false;
    db.prepare('DELETE FROM vector_code_packs WHERE fingerprint = ?').run(fingerprint);
    db.prepare('DELETE FROM vector_code_columns WHERE fingerprint = ?').run(fingerprint);
    if (codeCount(c, fingerprint) !== vectors || !vectors || !dims) return false;
    const perSegment = Math.max(1, Math.floor(segmentBytes / dims));
    const columns = mostlyZeros(db, fingerprint) ? 1 : 0;
    const insert = db.prepare(
      `INSERT INTO vector_code_packs (fingerprint, source_id, segment, generation, vectors, dims, columns, count, refs, scales, residuals, codes)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    // The columns go to a scratch table in the order they are made, then into theirs in key order
    // (a dimension's segments side by side) through SQLite's sorter, which spills to temporary
    // files: inserted in place, segment by segment, they would touch a page per dimension each time.
    if (columns) {
      db.pragma('temp.cache_size = -2048'); // the scratch rows go to the temporary file, not to memory
      db.exec('CREATE TEMP TABLE IF NOT EXISTS code_columns_unsorted (source_id INTEGER, segment INTEGER, dim INTEGER, codes BLOB)');
    }
    const insertColumn = columns ? db.prepare('INSERT INTO temp.code_columns_unsorted (source_id, segment, dim, codes) VALUES (?, ?, ?, ?)') : null;
    const column = Buffer.allocUnsafe(perSegment);
    const bytes = (a: Int32Array | Float64Array, n: number) => Buffer.from(a.buffer, a.byteOffset, n * a.BYTES_PER_ELEMENT);
    // Per source: the segment being filled and how many were written.
    const open = new Map<number, { segment: number; n: number; refs: Int32Array; scales: Float64Array; residuals: Float64Array; codes: Buffer }>();
    const flush = (source: number) => {
      const o = open.get(source)!;
      if (!o.n) return;
      insert.run(fingerprint, source, o.segment, generation, vectors, dims, columns, o.n, bytes(o.refs, o.n), bytes(o.scales, o.n), bytes(o.residuals, o.n), o.codes.subarray(0, o.n * dims));
      if (insertColumn) {
        for (let dim = 0; dim < dims; dim++) {
          for (let row = 0; row < o.n; row++) column[row] = o.codes[row * dims + dim]!;
          insertColumn.run(source, o.segment, dim, column.subarray(0, o.n));
        }
      }
      (o.segment++, (o.n = 0));
    };
    // By pages of chunks in id order (each segment's rows ascending, as a scan ranks them), with
    // their codes; a chunk without a code of this fingerprint has no row.
    const page = db
      .prepare(
        `SELECT c.id, d.source_id, q.scale, q.residual, q.code FROM chunks c INDEXED BY chunks_facts
         JOIN documents d ON d.id = c.document_id
         JOIN vector_codes q ON q.fingerprint = ? AND q.text_hash = c.text_hash
         WHERE c.id > ? ORDER BY c.id LIMIT ?`,
      )
      .raw();
    for (let last = 0; ; ) {
      const rows = page.all(fingerprint, last, PACK_PAGE) as [number, number, number, number, Buffer][];
      if (!rows.length) break;
      last = rows[rows.length - 1]![0];
      for (const [id, source, scale, residual, code] of rows) {
        if (code.byteLength !== dims) continue;
        let o = open.get(source);
        if (!o) {
          o = { segment: 0, n: 0, refs: new Int32Array(perSegment), scales: new Float64Array(perSegment), residuals: new Float64Array(perSegment), codes: Buffer.allocUnsafe(perSegment * dims) };
          open.set(source, o);
        }
        o.refs[o.n] = id;
        o.scales[o.n] = scale;
        o.residuals[o.n] = residual;
        code.copy(o.codes, o.n * dims);
        if (++o.n === perSegment) flush(source);
      }
      await between();
    }
    for (const source of open.keys()) flush(source);
    if (columns) {
      db.prepare(
        `INSERT INTO vector_code_columns (fingerprint, source_id, segment, dim, codes)
         SELECT ?, source_id, segment, dim, codes FROM temp.code_columns_unsorted ORDER BY dim, source_id, segment`,
      ).run(fingerprint);
      db.exec('DROP TABLE temp.code_columns_unsorted');
    }
    return true;
  }
}

/** Codes sampled to tell whether a fingerprint's codes are mostly zeros. */
const SAMPLE = 256;

/**
 * Whether most bytes of a sample of the fingerprint's codes are zero (a sparse embedder, such as the
 * hash one): its queries have few non-zero dimensions too, and the packs are then also written by
 * dimension. A dense embedder's queries need every dimension: the columns would only cost space.
 */
function mostlyZeros(db: Database, fingerprint: string): boolean {
  const codes = db.prepare('SELECT code FROM vector_codes WHERE fingerprint = ? LIMIT ?').pluck().all(fingerprint, SAMPLE) as Buffer[];
  let zeros = 0;
  let bytes = 0;
  for (const code of codes) {
    for (let j = 0; j < code.byteLength; j++) if (code[j] === 0) zeros++;
    bytes += code.byteLength;
  }
  return bytes > 0 && zeros * 2 >= bytes;
}

/**
 * Whether the packs of `fingerprint` were written at this generation and dims, and (when given) this
 * vector count: all are written together, one row tells.
 */
function packsCurrent(c: SqliteConnection, fingerprint: string, at: { generation: number; vectors?: number; dims: number }): boolean {
  const held = c.prepared('SELECT generation, vectors, dims FROM vector_code_packs WHERE fingerprint = ? LIMIT 1').get(fingerprint) as
    | { generation: number; vectors: number; dims: number }
    | undefined;
  return !!held && held.generation === at.generation && (at.vectors === undefined || held.vectors === at.vectors) && held.dims === at.dims;
}

export interface CodePack {
  count: number;
  refs: Int32Array;
  scales: Float64Array;
  residuals: Float64Array;
  /** count × dims codes, row by row; absent when `columns` holds the dimensions asked for. */
  codes?: Int8Array;
  /** The codes of the dimensions asked for (`only`), each count long, in rows' order. */
  columns?: Int8Array[];
}

/**
 * The packs of `fingerprint` when they are current: those of the sources named by `sources`, or
 * all. Null when they are not current or a segment's BLOBs do not have the sizes its count and dims
 * give (checked by length, no BLOB read). The segments are read one at a time as they are iterated
 * (in the caller's transaction).
 *
 * Current means written at the index's generation (and dims): the packs hold the codes of the
 * chunks' vectors, and every transaction changing chunks or vectors bumps the generation, so the
 * vectors need not be counted (two index scans that grow with the corpus). The one change that
 * does not bump it, gc of vectors no chunk uses, touches no packed row.
 */
export function readCodePacks(
  c: SqliteConnection,
  fingerprint: string,
  at: { generation: number; dims: number },
  sources?: readonly string[],
  only?: readonly number[],
): { count: number; segments: () => Iterable<CodePack> } | null {
  if (!PACKS || !packsCurrent(c, fingerprint, at)) return null;
  const db = c.db;
  const sourceIn = sources ? ' AND source_id IN (SELECT id FROM sources WHERE name IN (SELECT value FROM json_each(?)))' : '';
  const where = `fingerprint = ?${sourceIn}`;
  const params = sources ? [fingerprint, JSON.stringify(sources)] : [fingerprint];
  const sizes = db
    .prepare(
      `SELECT coalesce(sum(count), 0), coalesce(sum(length(refs) != count * 4 OR length(scales) != count * 8
         OR length(residuals) != count * 8 OR length(codes) != count * ?), 0), coalesce(min(columns), 0) FROM vector_code_packs WHERE ${where}`,
    )
    .raw()
    .get(at.dims, ...params) as [number, number, number];
  if (sizes[1]) return null;
  // By dimension when every segment has its columns and they are fewer bytes: the codes BLOB (the
  // last column of the row) is then never read.
  const byColumn = only && sizes[2] === 1 && only.every((d) => Number.isInteger(d) && d >= 0 && d < at.dims) ? only : null;
  const rows = db.prepare(
    `SELECT source_id, segment, count, refs, scales, residuals${byColumn ? '' : ', codes'} FROM vector_code_packs WHERE ${where} ORDER BY source_id, segment`,
  );
  const columnRows = byColumn
    ? db.prepare(`SELECT source_id, segment, codes FROM vector_code_columns WHERE fingerprint = ? AND dim = ?${sourceIn} ORDER BY source_id, segment`).raw()
    : null;
  return {
    count: sizes[0],
    *segments() {
      // Each dimension's codes over every segment, read by one range of the key (a few KB per segment
      // each), then handed out per segment beside its refs, scales and residuals.
      const columns = (byColumn ?? []).map((dim) => {
        const all = new Int8Array(sizes[0]);
        const at: string[] = [];
        let end = 0;
        for (const [source, segment, codes] of columnRows!.iterate(fingerprint, dim, ...params.slice(1)) as Iterable<[number, number, Buffer]>) {
          if (end + codes.byteLength > all.length) throw new Error(`vector_code_columns: dimension ${dim} holds more codes than its packs`);
          all.set(codes, end);
          at.push(`${source}:${segment}:${end}:${codes.byteLength}`);
          end += codes.byteLength;
        }
        return { dim, all, at };
      });
      type Row = { source_id: number; segment: number; count: number; refs: Buffer; scales: Buffer; residuals: Buffer; codes?: Buffer };
      let first = 0;
      let index = 0;
      for (const row of rows.iterate(...params) as Iterable<Row>) {
        const n = row.count;
        const place = `${row.source_id}:${row.segment}:${first}:${n}`;
        for (const c of columns) if (c.at[index] !== place) throw new Error(`vector_code_columns: dimension ${c.dim} does not match segment ${row.segment} of source ${row.source_id}`);
        const segmentColumns = columnRows ? columns.map((c) => c.all.subarray(first, first + n)) : undefined;
        first += n;
        index++;
        const refs = new Int32Array(n);
        new Uint8Array(refs.buffer).set(row.refs);
        const scales = new Float64Array(n);
        new Uint8Array(scales.buffer).set(row.scales);
        const residuals = new Float64Array(n);
        new Uint8Array(residuals.buffer).set(row.residuals);
        const codes = row.codes && new Int8Array(row.codes.buffer, row.codes.byteOffset, row.codes.byteLength);
        yield { count: n, refs, scales, residuals, codes, columns: segmentColumns };
      }
    },
  };
}

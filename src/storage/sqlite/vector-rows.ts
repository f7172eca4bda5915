import type { Database, Statement } from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { endianness } from 'node:os';
import type { CodeSink, VectorRows, VectorSet, VectorSink } from '../ranking/vector-rows.ts';
import { decodeVector, encodeVector } from './blob.ts';
import { CODE_ROWS_SQL } from './codes.ts';
import { readCodePacks } from './code-packs.ts';
import type { Facts } from './facts.ts';
import { openSqlite } from './open-sqlite.ts';
import { codeCount, embedderDims, readGeneration, vectorCount, type SqliteConnection } from './statements.ts';

const LITTLE = endianness() === 'LE';

/** Page cache of the rescoring connection, KiB. */
const RESCORER_CACHE_KIB = 2048;

/**
 * The vectors and int8 codes of a SQLite index as the rankings of this process read them
 * (ranking/): whole sets for the in-memory index, streams for a one-shot scan, exact scores of a
 * few rows for rescoring. Part of the reader, not of its role.
 */
export class SqliteVectorRows implements VectorRows {
  private rescorer: Database | null = null;
  private rescore: Statement | null = null;

  constructor(
    private readonly c: SqliteConnection,
    /** The reader's chunk facts (their text hashes key the vectors rescoring reads). */
    private readonly facts: () => Facts,
  ) {}

  private get db(): Database {
    return this.c.db;
  }

  async generation(): Promise<number> {
    return readGeneration(this.c);
  }

  async loadVectors(fingerprint: string): Promise<VectorSet> {
    let refs = new Int32Array(0);
    let vectors = new Float32Array(0);
    const { generation, dims, count } = await this.scanVectors(fingerprint, {
      start(total, dims) {
        refs = new Int32Array(total);
        vectors = new Float32Array(total * dims);
      },
      row(i, ref, v) {
        refs[i] = ref;
        vectors.set(v, i * v.length);
      },
    });
    return { generation, dims, refs: refs.subarray(0, count), vectors: vectors.subarray(0, count * dims) };
  }

  async scanVectors(fingerprint: string, sink: VectorSink): Promise<{ generation: number; dims: number; count: number }> {
    // CROSS JOIN: chunks outer, in id order, each vector found by its key; a plain JOIN lets the
    // planner read the vectors first and sort every BLOB into a temporary b-tree.
    return this.vectorRows(
      fingerprint,
      sink,
      `SELECT c.id, v.embedding FROM chunks c CROSS JOIN vectors v ON v.fingerprint = ? AND v.text_hash = c.text_hash
       ORDER BY c.id`,
    );
  }

  async vectorScores(fingerprint: string, refs: readonly number[], query: Float32Array): Promise<Map<number, number>> {
    // Vectors by their key, from the facts' text hashes: the scan itself joins no chunk rows.
    const refsOf = new Map<string, number[]>();
    for (const [ref, h] of this.facts().textHashes(refs)) refsOf.set(h, [...(refsOf.get(h) ?? []), ref]);
    const rows = this.rescoring()
      .all(encodeVector(query), JSON.stringify([...refsOf.keys()]), fingerprint, query.length * 4) as [string, number][];
    const out = new Map<number, number>();
    for (const [h, score] of rows) for (const ref of refsOf.get(h)!) out.set(ref, score);
    return out;
  }

  async vectorsOf(fingerprint: string, refs: readonly number[]): Promise<Map<number, Float32Array>> {
    const out = new Map<number, Float32Array>();
    // One statement for any batch size (json_each over the ids) so it is prepared once.
    const rows = this.c.prepared(
      `SELECT c.id, v.embedding FROM json_each(?) j CROSS JOIN chunks c ON c.id = j.value
       CROSS JOIN vectors v ON v.fingerprint = ? AND v.text_hash = c.text_hash`,
    )
      .raw()
      .all(JSON.stringify(refs), fingerprint) as [number, Buffer][];
    for (const [id, blob] of rows) if (blob.byteLength % 4 === 0) out.set(id, decodeVector(blob));
    return out;
  }

  async streamVectors(fingerprint: string, sink: VectorSink): Promise<{ generation: number; dims: number; count: number }> {
    // No ORDER BY: sorting would copy every BLOB into a temporary b-tree first.
    return this.vectorRows(fingerprint, sink, 'SELECT c.id, v.embedding FROM chunks c JOIN vectors v ON v.fingerprint = ? AND v.text_hash = c.text_hash');
  }

  /** Every chunk's vector of `fingerprint` handed to `sink` one row at a time, in the order `sql` gives (id, embedding). */
  private vectorRows(fingerprint: string, sink: VectorSink, sql: string): { generation: number; dims: number; count: number } {
    return this.db.transaction(() => {
      const generation = readGeneration(this.c);
      const dims = embedderDims(this.c, fingerprint);
      const total = this.db
        .prepare('SELECT count(*) FROM chunks c JOIN vectors v ON v.fingerprint = ? AND v.text_hash = c.text_hash')
        .pluck()
        .get(fingerprint) as number;
      sink.start(total, dims);
      const row = new Float32Array(dims);
      const bytes = new Uint8Array(row.buffer);
      let i = 0;
      // Each page is read once: a small page cache for the scan (the default, 16 MB with
      // better-sqlite3, would keep 16 MB of vector pages resident for nothing), the connection's own afterwards.
      const cache = this.db.pragma('cache_size', { simple: true }) as number;
      this.db.pragma('cache_size = -1024');
      const rows = this.db.prepare(sql).raw().iterate(fingerprint) as IterableIterator<[number, Buffer]>;
      try {
        for (const [id, blob] of rows) {
          if (blob.byteLength !== dims * 4) continue; // a foreign row: never mix dimensions
          if (LITTLE) bytes.set(blob);
          else row.set(decodeVector(blob));
          sink.row(i++, id, row);
        }
      } finally {
        rows.return?.();
        this.db.pragma(`cache_size = ${cache}`);
      }
      return { generation, dims, count: i };
    })();
  }

  async streamCodes(fingerprint: string, sink: CodeSink, sources?: readonly string[]): Promise<{ generation: number; dims: number; count: number } | null> {
    return this.db.transaction(() => {
      const generation = readGeneration(this.c);
      const dims = embedderDims(this.c, fingerprint);
      // The packed copies when they are current (written by the last index run): one row per source
      // instead of one per chunk, and only the sources the search is scoped to.
      const packs = dims ? readCodePacks(this.c, fingerprint, { generation, dims }, sources, sink.columns && sink.only) : null;
      if (packs) {
        sink.start(packs.count, dims);
        let first = 0;
        for (const p of packs.segments()) {
          if (p.codes) sink.rows(first, p.refs, p.scales, p.residuals, p.codes);
          else sink.columns!(first, p.refs, p.scales, p.residuals, p.columns!);
          first += p.count;
        }
        return { generation, dims, count: first };
      }
      // Codes are written with their vectors and deleted with them (trigger): equal counts mean one
      // code per vector. Both counts read only the narrow key indexes.
      const vectors = vectorCount(this.c, fingerprint);
      if (codeCount(this.c, fingerprint) !== vectors) return null;
      // An upper bound (chunks without a vector are not streamed): counting the join would probe every row twice.
      sink.start(vectors ? (this.db.prepare('SELECT count(*) FROM chunks').pluck().get() as number) : 0, dims);
      const code = new Int8Array(dims);
      const bytes = new Uint8Array(code.buffer);
      let i = 0;
      const cache = this.db.pragma('cache_size', { simple: true }) as number;
      this.db.pragma('cache_size = -1024');
      const rows = this.db
        .prepare(CODE_ROWS_SQL)
        .raw()
        .iterate(fingerprint) as IterableIterator<[number, number, number, Buffer]>;
      try {
        for (const [id, scale, residual, blob] of rows) {
          if (blob.byteLength !== dims) continue; // a foreign row: never mix dimensions
          bytes.set(blob);
          sink.row(i++, id, scale, residual, code);
        }
      } finally {
        rows.return?.();
        this.db.pragma(`cache_size = ${cache}`);
      }
      return { generation, dims, count: i };
    })();
  }

  /**
   * The rescoring statement, on a connection opened on first use: a second read-only connection to
   * the same file with sqlite-vec's distance functions, so the main connection's page cache keeps
   * the FTS and chunk pages searches read. Not memory-mapped: mapping halved the rescoring time but
   * made every vector page it touched resident (+40–95 MB RSS over both corpora, docs/benchmarks/query-path.md). An
   * in-memory database rescores in place.
   */
  private rescoring(): Statement {
    if (!this.rescore) {
      const db = this.db;
      let r = db;
      if (!db.memory && db.name) {
        r = openSqlite(db.name, { readonly: true, fileMustExist: true, timeout: 10_000 });
        // Vectors are read at random, each rarely twice: the key index's pages are what is worth
        // keeping (better-sqlite3's default cache, 16 MB, fills with vector pages instead).
        r.pragma(`cache_size = -${RESCORER_CACHE_KIB}`);
      }
      sqliteVec.load(r);
      this.rescorer = r;
      this.rescore = r
        .prepare(
          `SELECT j.value, 1 - vec_distance_cosine(v.embedding, ?) FROM json_each(?) j
           CROSS JOIN vectors v ON v.fingerprint = ? AND v.text_hash = j.value AND length(v.embedding) = ?`,
        )
        .raw();
    }
    return this.rescore;
  }

  /** Closes the rescoring connection (before the main one closes). */
  close(): void {
    if (this.rescorer && this.rescorer !== this.db && this.rescorer.open) this.rescorer.close();
    this.rescorer = this.rescore = null;
  }
}

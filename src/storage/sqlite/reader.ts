import type { Database } from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { openSqlite } from './open-sqlite.ts';
import { endianness } from 'node:os';
import type { ChunkFilter, FieldValueShape, StoredHit } from '../../core/types.ts';
import { matchExpression } from '../../core/text/analyzer.ts';
import type { ChunkText, CodeSink, IndexReader, KeywordQuery, LexiconRow, MatchSets, NearestQuery, RefScore, VectorSet, VectorSink } from '../roles.ts';
import { nearestRefs } from '../ranking/nearest.ts';
import { VectorIndex, type VectorSource } from '../ranking/vector-index.ts';
import { VectorScan } from '../ranking/vector-scan.ts';
import { decodeVector, encodeVector } from './blob.ts';
import { parseJson } from './connection.ts';
import { CachedFacts, chunkFacts, factsCanFilter, factsFilter, LookupFacts, rowOf, type Facts } from './facts.ts';
import { filterSql } from './filter.ts';
import { fieldValues } from './field-values.ts';
import { allTokens, matchSetsOnce } from './match-sets.ts';
import { CODE_ROWS_SQL, readCodePacks } from './codes.ts';
import { codeCount, embedderDims, prepared, readGeneration, vectorCount } from './statements.ts';
import { mergedTermScores } from './term-scores.ts';
import { MatchCache } from '../ranking/match-cache.ts';

const LITTLE = endianness() === 'LE';

type HitRow = Omit<StoredHit, 'metadata' | 'startLine' | 'endLine'> & {
  metadata: string;
  docMetadata: string;
  mediaType: string | null;
  startLine: number | null;
  endLine: number | null;
};
const HIT_COLUMNS = `c.id AS ref, c.key AS id, s.name AS source, d.path, d.title, c.heading, c.content, c.metadata,
  d.metadata AS docMetadata, d.media_type AS mediaType, c.start_line AS startLine, c.end_line AS endLine`;
const HIT_JOINS = `JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id`;
/** Hit metadata: the document's media type and fields (url, tags, dates) overlaid with the chunk's own. */
const toHit = ({ docMetadata, mediaType, startLine, endLine, ...r }: HitRow): StoredHit => ({
  ...r,
  metadata: { ...(mediaType ? { mediaType } : {}), ...parseJson(docMetadata), ...parseJson(r.metadata) },
  ...(startLine !== null && endLine !== null ? { startLine, endLine } : {}),
});

export class SqliteIndexReader implements IndexReader {
  constructor(
    readonly db: Database,
    /** A process that answers a query or two and exits: chunk facts are looked up per id, not cached for every chunk. */
    readonly oneShot = false,
  ) {}

  /** The connection's chunk facts, in the strategy of the process's lifetime (facts.ts). */
  private facts(): Facts {
    let f = factStrategies.get(this.db);
    if (!f) {
      const generation = () => readGeneration(this.db);
      factStrategies.set(this.db, (f = this.oneShot ? new LookupFacts(this.db, generation) : new CachedFacts(this.db, generation)));
    }
    return f;
  }

  async lexiconLookup(keys: string[]): Promise<LexiconRow[]> {
    if (!keys.length) return [];
    // Questions repeat their words: each key's rows are kept until the index changes.
    const c = lexiconCache(this.db, readGeneration(this.db));
    const cache = c.rows;
    if (c.count > LEXICON_CACHE_ROWS) (cache.clear(), (c.count = 0));
    const missing = keys.filter((k) => !cache.has(k));
    if (missing.length) {
      const rows = prepared(
        this.db,
        `SELECT g.gloss, g.headword, g.sense, t.df FROM lexicon_glosses g JOIN lexicon_terms t ON t.headword = g.headword
         WHERE g.gloss IN (SELECT value FROM json_each(?))`,
      ).all(JSON.stringify(missing)) as LexiconRow[];
      for (const k of missing) cache.set(k, []);
      for (const r of rows) cache.get(r.gloss)?.push(r);
      c.count += rows.length;
    }
    return keys.flatMap((k) => cache.get(k) ?? []);
  }

  async matchSets(tokenLists: string[][], filter?: ChunkFilter): Promise<MatchSets> {
    if (this.oneShot) return matchSetsOnce(this.db, tokenLists, filter);
    const generation = readGeneration(this.db);
    const facts = chunkFacts(this.db, generation);
    // A filter the facts answer narrows the sets and the count (rarity among the searched chunks).
    const narrow = factsCanFilter(filter);
    const { pass, share } = narrow ? factsFilter(facts, filter) : { pass: null, share: 1 };
    const cache = matchCache(this.db, generation);
    const scope = narrow ? `${[...(filter?.sources ?? [])].sort().join(',')}|${filter?.includeBroken ? 1 : 0}` : '*';
    const stmt = prepared(this.db, 'SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?').pluck();
    const sets = tokenLists.map((tokens) => {
      if (!tokens.length) return new Int32Array(0);
      const key = `${scope}\u0000${tokens.join(' ')}`;
      let set = cache.get(key);
      if (!set) {
        const rows: number[] = [];
        for (const id of stmt.all(allTokens(tokens)) as number[]) {
          const row = rowOf(facts, id);
          if (row >= 0 && (!pass || pass(id))) rows.push(row);
        }
        cache.set(key, (set = Int32Array.from(rows)));
      }
      return set;
    });
    return { sets, refs: facts.ids, total: Math.round(facts.ids.length * share), filtered: narrow };
  }

  /**
   * Ranked in this process, exact: a one-shot reader scans the stored int8 codes (only a sparse
   * query's dimensions when the store keeps them by dimension) and rescores the best against the
   * float32 rows; a long-lived one keeps the in-memory index. The same matches and scores either way.
   */
  async nearest(q: NearestQuery): Promise<RefScore[]> {
    if (q.k <= 0) return [];
    return nearestRefs(this, this.vectorSource(q.fingerprint), q.vector, q.k, q.filter, q.exclude?.length ? new Set(q.exclude) : undefined);
  }

  /** The vector source ranking `fingerprint` for this connection, in the strategy of the process's lifetime. */
  vectorSource(fingerprint: string): VectorSource {
    let byFingerprint = vectorSources.get(this.db);
    if (!byFingerprint) vectorSources.set(this.db, (byFingerprint = new Map()));
    let v = byFingerprint.get(fingerprint);
    if (!v) byFingerprint.set(fingerprint, (v = this.oneShot ? new VectorScan(this, fingerprint) : new VectorIndex(this, fingerprint)));
    return v;
  }

  async keyword(q: KeywordQuery): Promise<RefScore[]> {
    if (q.k <= 0) return [];
    return this.keywordRefs(q);
  }

  async keywordSearch(q: KeywordQuery): Promise<StoredHit[]> {
    const refs = await this.keywordRefs(q);
    const score = new Map(refs.map((r) => [r.ref, r.score]));
    return (await this.getChunks(refs.map((r) => r.ref))).map((h) => ({ ...h, score: score.get(h.ref)! }));
  }

  async keywordRefs(q: KeywordQuery): Promise<RefScore[]> {
    if (!q.tokens.length) return [];
    const head = q.headWeight ?? 1;
    if (!(Number.isFinite(head) && head >= 0)) throw new Error(`headWeight must be a number ≥ 0 (got ${head})`);
    const match = matchExpression(q.tokens);
    if (!factsCanFilter(q.filter)) {
      const f = filterSql(q.filter);
      return prepared(
        this.db,
        `SELECT c.id AS ref, -bm25(chunks_fts, ?, 1) AS score
         FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid ${HIT_JOINS}
         WHERE chunks_fts MATCH ? AND ${f.sql}
         ORDER BY score DESC, c.id
         LIMIT ?`,
      ).all(head, match, ...f.params, q.k) as RefScore[];
    }
    // The FTS table alone ranks (no join or JSON per matching row); the facts filter its rows in
    // rank order, read lazily until k pass.
    const { pass, share } = this.facts().filter(q.filter);
    if (share === 0) return [];
    if (q.reuse) return mergedTermScores(this.db, chunkFacts(this.db, readGeneration(this.db)), q.tokens, head, q.k, pass);
    // With a LIMIT SQLite keeps the best rows in a small heap instead of sorting every match (a
    // common word matches tens of thousands). The order is total (rowid breaks ties), so the first
    // `limit` rows are the unlimited order's first; too few passing the filter: a larger limit.
    const ranked = prepared(
      this.db,
      `SELECT rowid, -bm25(chunks_fts, ?, 1) AS score FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY score DESC, rowid LIMIT ?`,
    ).raw();
    for (let limit = Math.ceil(q.k / share) + q.k; ; limit *= 4) {
      const rows = ranked.all(head, match, limit) as [number, number][];
      const out: RefScore[] = [];
      for (const [ref, score] of rows) {
        if (!pass(ref)) continue;
        out.push({ ref, score });
        if (out.length >= q.k) break;
      }
      if (out.length >= q.k || rows.length < limit) return out;
    }
  }

  async refFilter(filter?: ChunkFilter): Promise<((ref: number) => boolean) | null> {
    return factsCanFilter(filter) ? this.facts().filter(filter).pass : null;
  }

  async filterRefs(refs: readonly number[], filter?: ChunkFilter): Promise<number[]> {
    if (factsCanFilter(filter)) {
      const { pass } = this.facts().filter(filter);
      return refs.filter(pass);
    }
    const f = filterSql(filter);
    const ok = new Set(
      prepared(this.db, `SELECT c.id FROM json_each(?) j CROSS JOIN chunks c ON c.id = j.value ${HIT_JOINS} WHERE ${f.sql}`)
        .pluck()
        .all(JSON.stringify(refs), ...f.params) as number[],
    );
    return refs.filter((r) => ok.has(r));
  }

  async getChunks(refs: readonly number[], filter?: ChunkFilter): Promise<StoredHit[]> {
    const wanted = filter ? await this.filterRefs(refs, filter) : refs;
    if (!wanted.length) return [];
    // One prepared statement for any number of ids (a JSON array), rows in the order asked.
    const rows = prepared(
      this.db,
      `SELECT ${HIT_COLUMNS}, 0 AS score FROM json_each(?) j CROSS JOIN chunks c ON c.id = j.value ${HIT_JOINS} ORDER BY j.key`,
    ).all(JSON.stringify(wanted)) as HitRow[];
    return rows.map(toHit);
  }

  async chunkTexts(refs: readonly number[]): Promise<ChunkText[]> {
    if (!refs.length) return [];
    // The columns before the embedded text: the rest of a long row (its overflow pages) is not read.
    return prepared(
      this.db,
      `SELECT c.id AS ref, c.document_id AS doc, d.title, c.heading, c.content FROM json_each(?) j CROSS JOIN chunks c ON c.id = j.value
       JOIN documents d ON d.id = c.document_id`,
    ).all(JSON.stringify(refs)) as ChunkText[];
  }

  async chunkTerms(refs: readonly number[]): Promise<{ ref: number; terms: string }[]> {
    if (!refs.length) return [];
    return prepared(this.db, 'SELECT f.rowid AS ref, f.body AS terms FROM json_each(?) j CROSS JOIN chunks_fts f ON f.rowid = j.value').all(
      JSON.stringify(refs),
    ) as { ref: number; terms: string }[];
  }

  async anyChunk(filter: ChunkFilter): Promise<boolean> {
    const f = filterSql(filter);
    return !!this.db.prepare(`SELECT 1 FROM chunks c ${HIT_JOINS} WHERE ${f.sql} LIMIT 1`).get(...f.params);
  }

  async fieldValues(fields: string[], shape: FieldValueShape): Promise<string[]> {
    return fieldValues(this.db, fields, shape);
  }

  async findChunks(ref: { source?: string; path?: string; id?: string }): Promise<number[]> {
    const where: string[] = [];
    const params: string[] = [];
    if (ref.source) (where.push('s.name = ?'), params.push(ref.source));
    if (ref.path) (where.push('d.path = ?'), params.push(ref.path));
    if (ref.id) (where.push('c.key = ?'), params.push(ref.id));
    if (!where.length) return [];
    return this.db
      .prepare(`SELECT c.id FROM chunks c ${HIT_JOINS} WHERE ${where.join(' AND ')} ORDER BY c.id`)
      .pluck()
      .all(...params) as number[];
  }

  async loadVectors(fingerprint: string): Promise<VectorSet> {
    // One read transaction: the generation and the rows come from the same snapshot.
    return this.db.transaction(() => {
      const generation = readGeneration(this.db);
      const dims = embedderDims(this.db, fingerprint);
      const count = this.db
        .prepare('SELECT count(*) FROM chunks c JOIN vectors v ON v.fingerprint = ? AND v.text_hash = c.text_hash')
        .pluck()
        .get(fingerprint) as number;
      const refs = new Int32Array(count);
      const vectors = new Float32Array(count * dims);
      let i = 0;
      const rows = this.db
        .prepare(
          // CROSS JOIN: chunks outer, in id order, each vector found by its key; a plain JOIN lets
          // the planner read the vectors first and sort every BLOB into a temporary b-tree.
          `SELECT c.id, v.embedding FROM chunks c CROSS JOIN vectors v ON v.fingerprint = ? AND v.text_hash = c.text_hash
           ORDER BY c.id`,
        )
        .raw()
        .iterate(fingerprint) as IterableIterator<[number, Buffer]>;
      for (const [id, blob] of rows) {
        if (blob.byteLength !== dims * 4) continue; // a foreign row: never mix dimensions
        refs[i] = id;
        vectors.set(decodeVector(blob), i * dims);
        i++;
      }
      return { generation, dims, refs: refs.subarray(0, i), vectors: vectors.subarray(0, i * dims) };
    })();
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
    const rows = prepared(
      rescorer(this.db),
      `SELECT j.value, 1 - vec_distance_cosine(v.embedding, ?) FROM json_each(?) j
       CROSS JOIN vectors v ON v.fingerprint = ? AND v.text_hash = j.value AND length(v.embedding) = ?`,
    )
      .raw()
      .all(encodeVector(query), JSON.stringify([...refsOf.keys()]), fingerprint, query.length * 4) as [string, number][];
    const out = new Map<number, number>();
    for (const [h, score] of rows) for (const ref of refsOf.get(h)!) out.set(ref, score);
    return out;
  }

  async vectorsOf(fingerprint: string, refs: readonly number[]): Promise<Map<number, Float32Array>> {
    const out = new Map<number, Float32Array>();
    // One statement for any batch size (json_each over the ids) so it is prepared once.
    const rows = prepared(this.db,
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
      const generation = readGeneration(this.db);
      const dims = embedderDims(this.db, fingerprint);
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
      const generation = readGeneration(this.db);
      const dims = embedderDims(this.db, fingerprint);
      // The packed copies when they are current (written by the last index run): one row per source
      // instead of one per chunk, and only the sources the search is scoped to.
      const packs = dims ? readCodePacks(this.db, fingerprint, { generation, dims }, sources, sink.columns && sink.only) : null;
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
      const vectors = vectorCount(this.db, fingerprint);
      if (codeCount(this.db, fingerprint) !== vectors) return null;
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

  async generation(): Promise<number> {
    return readGeneration(this.db);
  }
}

const factStrategies = new WeakMap<Database, Facts>();
/** Per connection, the vector source of each fingerprint searched (SqliteIndexReader.vectorSource). */
const vectorSources = new WeakMap<Database, Map<string, VectorSource>>();
const rescorers = new WeakMap<Database, Database>();
/** Page cache of the rescoring connection, KiB. */
const RESCORER_CACHE_KIB = 2048;
/**
 * The connection rescoring reads through, opened on first use: a second read-only connection to
 * the same file with sqlite-vec's distance functions, so the main connection's page cache keeps
 * the FTS and chunk pages searches read. Not memory-mapped: mapping halved the rescoring time but
 * made every vector page it touched resident (+40–95 MB RSS over both corpora, docs/benchmarks/query-path.md). An
 * in-memory database rescores in place.
 */
function rescorer(db: Database): Database {
  let r = rescorers.get(db);
  if (!r) {
    if (db.memory || !db.name) r = db;
    else {
      r = openSqlite(db.name, { readonly: true, fileMustExist: true, timeout: 10_000 });
      // Vectors are read at random, each rarely twice: the key index's pages are what is worth
      // keeping (better-sqlite3's default cache, 16 MB, fills with vector pages instead).
      r.pragma(`cache_size = -${RESCORER_CACHE_KIB}`);
    }
    sqliteVec.load(r);
    rescorers.set(db, r);
  }
  return r;
}

/** Closes what the reader opened beside a connection (call before closing it). */
export function closeReaderExtras(db: Database): void {
  const r = rescorers.get(db);
  if (r && r !== db && r.open) r.close();
  rescorers.delete(db);
  vectorSources.delete(db);
}

/** Lexicon rows kept for recent keys (about 100 bytes each), emptied once past this or when the index changes. */
const LEXICON_CACHE_ROWS = 20_000;
const lexiconCaches = new WeakMap<Database, { generation: number; rows: Map<string, LexiconRow[]>; count: number }>();
function lexiconCache(db: Database, generation: number): { rows: Map<string, LexiconRow[]>; count: number } {
  let c = lexiconCaches.get(db);
  if (!c || c.generation !== generation) lexiconCaches.set(db, (c = { generation, rows: new Map(), count: 0 }));
  return c;
}

const matchCaches = new WeakMap<Database, MatchCache>();
function matchCache(db: Database, generation: number): MatchCache {
  let c = matchCaches.get(db);
  if (!c || c.generation !== generation) matchCaches.set(db, (c = new MatchCache(generation)));
  return c;
}


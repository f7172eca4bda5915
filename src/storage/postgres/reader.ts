import type { ChunkFilter, FieldValueShape, StoredHit } from '../../core/types.ts';
import { indexOfSorted } from '../../core/sorted-ids.ts';
import { normalizeRows } from '../../core/quantize.ts';
import { lineRange } from '../line-range.ts';
import type { ChunkText, IndexReader, KeywordQuery, LexiconRow, MatchSets, NearestQuery, RefScore } from '../roles.ts';
import type { PgDb } from './db.ts';
import { field, pgFilterSql } from './filter.ts';
import { decodeVectorSend, vectorLiteral } from './vectors.ts';
import { annType } from './writer.ts';
import { byScoreThenRef, TIE_MARGIN } from '../ranking/score-order.ts';
import { MatchCache } from '../ranking/match-cache.ts';

const HIT_COLUMNS = `c.id AS ref, c.key AS id, s.name AS source, d.path, d.title, c.heading, c.content,
  jsonb_strip_nulls(jsonb_build_object('mediaType', d.media_type)) || d.metadata || c.metadata AS metadata, c.start_line AS "startLine", c.end_line AS "endLine"`;
type HitRow = Omit<StoredHit, 'startLine' | 'endLine'> & { startLine: number | null; endLine: number | null };
/** A chunk's line range only where it was recorded (as the SQLite reader gives it). */
const toHit = ({ startLine, endLine, ...r }: HitRow): StoredHit => ({
  ...r,
  ...lineRange(startLine, endLine),
});
const HIT_JOINS = `JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id`;

/** FTS5's bm25 constants, so both backends rank keyword hits alike. */
const K1 = 1.2;
const B = 0.75;

/**
 * HNSW candidates kept when the config sets none: pgvector's own 40 found .75 of the true top 10 on
 * the bookmarks corpus's vectors, 200 found .94 (docs/benchmarks/postgres.md); on 200k vectors
 * with the m 32 / ef_construction 128 build, passages .98 and short queries .83
 * (docs/benchmarks/hnsw-scale.md).
 */
const DEFAULT_EF_SEARCH = 200;

/** Config `search.exact` / `search.efSearch`: what a query that says nothing of its own gets. */
export interface VectorSearchDefaults {
  exact?: boolean;
  efSearch?: number;
}

/**
 * Search's view of a Postgres index. Ranking happens in the server: `nearest` (HNSW, or exact) and
 * `keyword` (BM25 over the analyzer's tokens, computed as SQLite's FTS5 does); no vector crosses
 * to this process but the few hybrid search compares (vectorsOf).
 */
export class PgIndexReader implements IndexReader {
  constructor(
    private readonly db: PgDb,
    private readonly defaults: VectorSearchDefaults = {},
  ) {}

  async generation(): Promise<number> {
    const [r] = await this.db.query<{ value: number }>(`SELECT value FROM meta WHERE key = 'generation'`);
    return r!.value;
  }

  async nearest(query: NearestQuery): Promise<RefScore[]> {
    const q = { ...query, exact: query.exact ?? this.defaults.exact, efSearch: query.efSearch ?? this.defaults.efSearch ?? DEFAULT_EF_SEARCH };
    if (q.k <= 0) return [];
    const dims = await this.dimsOf(q.fingerprint);
    if (dims !== q.vector.length) return [];
    const ann = q.exact ? null : annType(dims);
    // Scaled to unit length first, as the exact rescoring of an in-process ranking has it.
    const unit = Float32Array.from(q.vector);
    normalizeRows(unit, unit.length);
    const params: unknown[] = [vectorLiteral(unit), q.k + TIE_MARGIN];
    const filter = pgFilterSql(q.filter, params);
    const without = q.exclude?.size ? `AND NOT (c.id = ANY ($${params.push([...q.exclude])}::bigint[]))` : '';
    // The fingerprint as a literal: the partial HNSW index is chosen only when the planner sees it.
    const fp = `'${q.fingerprint.replace(/'/g, "''")}'`;
    // Approximate: ordered by the indexed expression alone, so the planner walks the HNSW index
    // (a second sort key would make it sort every row). Either way a few rows more than k come
    // back and are put in the order the in-process ranking gives (scores within float rounding
    // tie, in reference order), then cut to k.
    const order = ann ? `(v.embedding::${ann.type}) <=> ($1::vector::${ann.type})` : `v.embedding <=> $1::vector, c.id`;
    const sql = `SELECT c.id AS ref, 1 - (v.embedding <=> $1::vector) AS score
       FROM vectors v JOIN chunks c ON c.text_hash = v.text_hash ${HIT_JOINS}
       WHERE v.fingerprint = ${fp} AND ${filter} ${without}
       ORDER BY ${order} LIMIT $2`;
    // Filtered HNSW scans go on until enough rows pass (pgvector ≥ 0.8), in distance order.
    const rows = ann
      ? await this.db.withSettings({ 'hnsw.iterative_scan': 'strict_order', 'hnsw.ef_search': String(Math.trunc(q.efSearch)) }, (c) => c.query<RefScore>(sql, params))
      : await this.db.q.query<RefScore>(sql, params);
    return rows.rows.sort(byScoreThenRef).slice(0, q.k);
  }

  /** A fingerprint's dimensions (they never change once its embedder row exists); null without one. */
  private readonly dims = new Map<string, number>();
  private async dimsOf(fingerprint: string): Promise<number | null> {
    const known = this.dims.get(fingerprint);
    if (known !== undefined) return known;
    const [e] = await this.db.query<{ dims: number }>('SELECT dims FROM embedders WHERE fingerprint = $1', [fingerprint]);
    if (e) this.dims.set(fingerprint, e.dims);
    return e?.dims ?? null;
  }

  async keyword(q: KeywordQuery): Promise<RefScore[]> {
    if (!q.tokens.length || q.k <= 0) return [];
    const head = q.headWeight ?? 1;
    if (!(Number.isFinite(head) && head >= 0)) throw new Error(`headWeight must be a number ≥ 0 (got ${head})`);
    const params: unknown[] = [q.tokens, head, q.k];
    const filter = pgFilterSql(q.filter, params);
    // bm25 as FTS5 computes it: per query token (repeats count again), idf over the chunks holding
    // it (its postings), the weighted term frequency of head and body, the row's length against
    // the average, summed in query order as FTS5 sums (so float rounding, and so ties, agree);
    // chunks tied on score in id order. Everything comes from the query terms' rows of the
    // postings index; the filter reads the chunk rows of the candidates only. `terms` counts the
    // query tokens a chunk holds (repeats again) as SQLite's per-term scores do: per-query fusion
    // reads it (search/trust.ts), so both backends must report it alike.
    return this.db.query<RefScore>(
      `WITH stats AS MATERIALIZED (
         SELECT greatest((SELECT value FROM meta WHERE key = 'chunks'), 1)::float8 AS n,
                greatest((SELECT value FROM meta WHERE key = 'chunk_terms'), 1)::float8 AS terms),
       qi AS MATERIALIZED (
         SELECT t.tok, t.i, greatest(ln((stats.n - h.df + 0.5) / (h.df + 0.5)), 1e-6) AS idf
         FROM unnest($1::text[]) WITH ORDINALITY AS t(tok, i) CROSS JOIN stats
         CROSS JOIN LATERAL (SELECT count(*)::float8 AS df FROM postings p WHERE p.term = t.tok) h),
       scored AS MATERIALIZED (
         SELECT p.chunk_id AS id,
                sum(qi.idf * f.f * ${K1 + 1} / (f.f + ${K1} * (1 - ${B} + ${B} * p.len / (stats.terms / stats.n))) ORDER BY qi.i) AS score,
                count(*)::int AS terms
         FROM qi JOIN postings p ON p.term = qi.tok CROSS JOIN stats
           CROSS JOIN LATERAL (SELECT $2::float8 * p.head_tf + p.body_tf AS f) f
         GROUP BY p.chunk_id)
       SELECT c.id AS ref, scored.score, scored.terms FROM scored JOIN chunks c ON c.id = scored.id ${HIT_JOINS}
       WHERE ${filter}
       ORDER BY scored.score DESC, c.id
       LIMIT $3`,
      params,
    );
  }

  async matchSets(tokenLists: string[][], filter?: ChunkFilter): Promise<MatchSets> {
    // As SQLite's: a filter of sources and broken chunks narrows the sets (and the count, by the
    // sources' share); one with metadata conditions or a path is left to the caller.
    const narrow = !filter?.where?.length && filter?.path === undefined;
    const g = await this.generationState();
    // Sets and counts kept while the generation stands, as SQLite's reader keeps them: concept
    // scoring asks for the same common words query after query, and those are the costly ones.
    const scope = narrow ? `${[...(filter?.sources ?? [])].sort().join(',')}|${filter?.includeBroken ? 1 : 0}` : '*';
    const lists = tokenLists.map((tokens) => [...new Set(tokens)]);
    const keys = lists.map((tokens) => `${scope}\u0000${tokens.join(' ')}`);
    const sets = keys.map((k, i) => (lists[i]!.length ? g.matches.get(k) : new Int32Array(0)));
    const missing = sets.flatMap((set, i) => (set ? [] : [i]));
    const countKey = narrow && filter?.sources?.length ? [...filter.sources].sort().join(',') : null;
    // Every missing list in one query: the chunks with a posting for every token of a list (FTS5's
    // AND over head and body), from the postings index; the filter reads only those chunks' rows.
    const terms: string[] = [];
    const listOf: number[] = [];
    const sizes: number[] = [];
    missing.forEach((i, j) => {
      for (const t of lists[i]!) (terms.push(t), listOf.push(j + 1));
      sizes.push(lists[i]!.length);
    });
    const params: unknown[] = [terms, listOf, sizes];
    const where = narrow ? pgFilterSql(filter, params) : 'true';
    const count = async (): Promise<number | null> => {
      if (countKey === null) return null;
      let n = g.counts.get(countKey);
      if (n === undefined) {
        [{ n }] = (await this.db.query<{ n: number }>(`SELECT count(*) AS n FROM chunks c ${HIT_JOINS} WHERE s.name = ANY ($1::text[])`, [filter!.sources])) as [{ n: number }];
        g.counts.set(countKey, n);
      }
      return n;
    };
    const [total, rows] = await Promise.all([
      count(),
      terms.length
        ? this.db.query<{ list: number; id: number }>(
            `WITH q AS (SELECT * FROM unnest($1::text[], $2::int[]) AS q(term, list)),
             hit AS (SELECT q.list, p.chunk_id FROM q JOIN postings p ON p.term = q.term
                     GROUP BY q.list, p.chunk_id HAVING count(*) = ($3::int[])[q.list])
             SELECT hit.list, c.id FROM hit JOIN chunks c ON c.id = hit.chunk_id ${narrow ? HIT_JOINS : ''} WHERE ${where} ORDER BY hit.list, c.id`,
            params,
          )
        : [],
    ]);
    const found = missing.map(() => [] as number[]);
    for (const r of rows) {
      const p = indexOfSorted(g.refs, r.id);
      if (p >= 0) found[r.list - 1]!.push(p);
    }
    missing.forEach((i, j) => g.matches.set(keys[i]!, (sets[i] = Int32Array.from(found[j]!))));
    return { sets: sets as Int32Array[], refs: g.refs, total: total ?? g.refs.length, filtered: narrow };
  }

  /** What is kept while the generation stands: every chunk id ascending, match sets, per-source counts. */
  private generationCache: { generation: number; refs: Int32Array; matches: MatchCache; counts: Map<string, number> } | null = null;
  private async generationState(): Promise<NonNullable<PgIndexReader['generationCache']>> {
    const generation = await this.generation();
    if (this.generationCache?.generation !== generation) {
      const rows = await this.db.query<{ id: number }>('SELECT id FROM chunks ORDER BY id');
      this.generationCache = { generation, refs: Int32Array.from(rows.map((r) => r.id)), matches: new MatchCache(generation), counts: new Map() };
    }
    return this.generationCache;
  }

  async filterRefs(refs: readonly number[], filter?: ChunkFilter): Promise<number[]> {
    if (!refs.length) return [];
    const params: unknown[] = [refs];
    const f = pgFilterSql(filter, params);
    const ok = new Set(
      (await this.db.query<{ id: number }>(`SELECT c.id FROM chunks c ${HIT_JOINS} WHERE c.id = ANY ($1::bigint[]) AND ${f}`, params)).map((r) => r.id),
    );
    return refs.filter((r) => ok.has(r));
  }

  async getChunks(refs: readonly number[], filter?: ChunkFilter): Promise<StoredHit[]> {
    const wanted = filter ? await this.filterRefs(refs, filter) : refs;
    if (!wanted.length) return [];
    const rows = await this.db.query<HitRow>(
      `SELECT ${HIT_COLUMNS}, 0 AS score FROM unnest($1::bigint[]) WITH ORDINALITY AS w(id, i) JOIN chunks c ON c.id = w.id ${HIT_JOINS}
       ORDER BY w.i`,
      [wanted],
    );
    return rows.map(toHit);
  }

  async chunkTexts(refs: readonly number[]): Promise<ChunkText[]> {
    if (!refs.length) return [];
    return this.db.query<ChunkText>(
      `SELECT c.id AS ref, c.document_id AS doc, d.title, c.heading, c.content FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id = ANY ($1::bigint[])`,
      [refs],
    );
  }

  async chunkTerms(refs: readonly number[]): Promise<{ ref: number; terms: string }[]> {
    if (!refs.length) return [];
    return this.db.query<{ ref: number; terms: string }>('SELECT id AS ref, terms FROM chunks WHERE id = ANY ($1::bigint[])', [refs]);
  }

  async fieldValues(fields: string[], shape: FieldValueShape): Promise<string[]> {
    // As SQLite's (storage/sqlite/field-values.ts): strings and numbers, string elements of
    // arrays, or months as the month filter reads them ('YYYY-MM…' dates and 'YYYYMM' alike).
    const json = field(fields, 'json');
    const from = 'FROM chunks c JOIN documents d ON d.id = c.document_id';
    const sql = {
      value: `SELECT DISTINCT ${json} #>> '{}' AS v ${from} WHERE jsonb_typeof(${json}) IN ('string', 'number')`,
      element: `SELECT DISTINCT e #>> '{}' AS v ${from}, jsonb_array_elements(CASE WHEN jsonb_typeof(${json}) = 'array' THEN ${json} ELSE '[]' END) e
                WHERE jsonb_typeof(e) = 'string'`,
      month: `SELECT DISTINCT m AS v FROM (SELECT replace(substr(${field(fields)}, 1, 7), '-', '') AS m ${from}) x WHERE m ~ '^[0-9]{6}$'`,
    }[shape];
    const raw = (await this.db.query<{ v: string }>(sql)).map((r) => r.v);
    return (shape === 'month' ? raw.map((m) => `${m.slice(0, 4)}-${m.slice(4)}`) : raw).sort();
  }

  async anyChunk(filter: ChunkFilter): Promise<boolean> {
    const params: unknown[] = [];
    const f = pgFilterSql(filter, params);
    return (await this.db.query(`SELECT 1 FROM chunks c ${HIT_JOINS} WHERE ${f} LIMIT 1`, params)).length > 0;
  }

  async documentPaths(): Promise<{ source: string; path: string }[]> {
    return this.db.query<{ source: string; path: string }>('SELECT s.name AS source, d.path FROM documents d JOIN sources s ON s.id = d.source_id ORDER BY s.name, d.path');
  }

  async findChunks(ref: { source?: string; path?: string; id?: string }): Promise<number[]> {
    const where: string[] = [];
    const params: string[] = [];
    const p = (v: string) => `$${params.push(v)}`;
    if (ref.source) where.push(`s.name = ${p(ref.source)}`);
    if (ref.path) where.push(`d.path = ${p(ref.path)}`);
    if (ref.id) where.push(`c.key = ${p(ref.id)}`);
    if (!where.length) return [];
    return (await this.db.query<{ id: number }>(`SELECT c.id FROM chunks c ${HIT_JOINS} WHERE ${where.join(' AND ')} ORDER BY c.id`, params)).map(
      (r) => r.id,
    );
  }

  async termCounts(terms: readonly string[]): Promise<number[]> {
    if (!terms.length) return [];
    const rows = await this.db.query<{ term: string; n: number }>('SELECT term, count(*)::int AS n FROM postings WHERE term = ANY ($1::text[]) GROUP BY term', [[...terms]]);
    const n = new Map(rows.map((r) => [r.term, r.n]));
    return terms.map((t) => n.get(t) ?? 0);
  }

  async lexiconHeadwords(minLength: number): Promise<{ headword: string; df: number }[]> {
    return this.db.query<{ headword: string; df: number }>('SELECT headword, df FROM lexicon_terms WHERE df > 0 AND char_length(headword) >= $1', [minLength]);
  }

  async lexiconLookup(keys: string[]): Promise<LexiconRow[]> {
    if (!keys.length) return [];
    return this.db.query<LexiconRow>(
      `SELECT g.gloss, g.headword, g.sense, t.df FROM lexicon_glosses g JOIN lexicon_terms t ON t.headword = g.headword
       WHERE g.gloss = ANY ($1::text[])`,
      [keys],
    );
  }

  async vectorsOf(fingerprint: string, refs: readonly number[]): Promise<Map<number, Float32Array>> {
    if (!refs.length) return new Map();
    const rows = await this.db.query<{ id: number; e: Buffer }>(
      `SELECT c.id, vector_send(v.embedding) AS e FROM chunks c JOIN vectors v ON v.fingerprint = $1 AND v.text_hash = c.text_hash
       WHERE c.id = ANY ($2::bigint[])`,
      [fingerprint, refs],
    );
    return new Map(rows.map((r) => [r.id, decodeVectorSend(r.e)]));
  }
}

import type { ChunkFilter, FieldValueShape, StoredHit } from '../../core/types.ts';
import { matchExpression } from '../../core/text/analyzer.ts';
import { lineRange } from '../line-range.ts';
import type { ChunkText, IndexReader, KeywordQuery, LexiconRow, MatchSets, NearestQuery, RefScore } from '../roles.ts';
import { nearestRefs } from '../ranking/nearest.ts';
import { VectorIndex, type VectorSource } from '../ranking/vector-index.ts';
import type { RefFilters } from '../ranking/vector-rows.ts';
import { VectorScan } from '../ranking/vector-scan.ts';
import { parseJson } from './connection.ts';
import { CachedFacts, factsCanFilter, factsFilter, LookupFacts, rowOf, type Facts } from './facts.ts';
import { filterSql } from './filter.ts';
import { FieldValues } from './field-values.ts';
import { allTokens, matchSetsOnce } from './match-sets.ts';
import { readGeneration, type SqliteConnection } from './statements.ts';
import { TermScores } from './term-scores.ts';
import { SqliteVectorRows } from './vector-rows.ts';
import { MatchCache } from '../ranking/match-cache.ts';
import { cachedRows, ChunkRows } from './chunk-rows.ts';

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
  ...lineRange(startLine, endLine),
});

/** unicode61's token characters (its default categories: L* N* Co); anything else separates. */
const SINGLE_FTS_TOKEN = /^[\p{L}\p{N}\p{Co}]+$/u;
const TOKEN_CHAR = /[\p{L}\p{N}\p{Co}]/u;

/** The code point starting at `i` is a token character (false past the end). */
function tokenCharAt(text: string, i: number): boolean {
  const cp = text.codePointAt(i);
  return cp !== undefined && TOKEN_CHAR.test(String.fromCodePoint(cp));
}

/** `term` (token characters only) occurs in `text` bounded by non-token characters or the ends: one of its tokens. */
export function holdsToken(text: string, term: string): boolean {
  for (let i = text.indexOf(term); i >= 0; i = text.indexOf(term, i + 1)) {
    let before = i - 1;
    // The character before may be the low half of a surrogate pair.
    if (before > 0 && (text.charCodeAt(before) & 0xfc00) === 0xdc00) before--;
    if ((before < 0 || !tokenCharAt(text, before)) && !tokenCharAt(text, i + term.length)) return true;
  }
  return false;
}

export class SqliteIndexReader implements IndexReader, RefFilters {
  /** The vectors and codes the rankings in this process read (not part of the reader role). */
  readonly vectors: SqliteVectorRows;
  private all: CachedFacts | null = null;
  private lookup: LookupFacts | null = null;
  /** The vector source of each fingerprint searched (vectorSource). */
  private readonly sources = new Map<string, VectorSource>();
  private readonly terms: TermScores;
  private readonly fields: FieldValues;
  private lexicon: { generation: number; rows: Map<string, LexiconRow[]>; count: number } | null = null;
  private matches: MatchCache | null = null;
  private vocab = false;
  /** Chunk rows read lately (a long-lived reader's; a one-shot one reads each once anyway). */
  private readonly rows: ChunkRows | null;

  constructor(
    private readonly c: SqliteConnection,
    /** A process that answers a query or two and exits: chunk facts are looked up per id, not cached for every chunk. */
    readonly oneShot = false,
  ) {
    this.vectors = new SqliteVectorRows(c, () => this.facts());
    this.terms = new TermScores(c.db);
    this.fields = new FieldValues(c);
    this.rows = oneShot ? null : new ChunkRows();
  }

  /** The recent rows at the index's current generation, or null for a one-shot reader. */
  private recentRows(): ChunkRows | null {
    return this.rows?.at(readGeneration(this.c)) ?? null;
  }

  private get db() {
    return this.c.db;
  }

  /** Every chunk's facts, held per generation. */
  private allFacts(): CachedFacts {
    return (this.all ??= new CachedFacts(this.c));
  }

  /** The chunk facts in the strategy of the process's lifetime (facts.ts). */
  private facts(): Facts {
    return this.oneShot ? this.lookupFacts() : this.allFacts();
  }

  private lookupFacts(): LookupFacts {
    return (this.lookup ??= new LookupFacts(this.c));
  }

  async lexiconHeadwords(minLength: number): Promise<{ headword: string; df: number }[]> {
    return this.c.prepared('SELECT headword, df FROM lexicon_terms WHERE df > 0 AND length(headword) >= ?').all(minLength) as { headword: string; df: number }[];
  }

  async termCounts(terms: readonly string[]): Promise<number[]> {
    if (!terms.length) return [];
    // FTS5's vocabulary view over the keyword index, made per connection (temp: no schema change); a
    // term's row is read from its doclist, so a pair of characters costs a few microseconds.
    if (!this.vocab) {
      this.db.exec('CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_fts_terms USING fts5vocab(main, chunks_fts, row)');
      this.vocab = true;
    }
    // One statement for the lot (a lookup each costs four times as much).
    const rows = this.c.prepared('SELECT term, doc FROM temp.chunks_fts_terms WHERE term IN (SELECT value FROM json_each(?))').raw().all(JSON.stringify(terms)) as [string, number][];
    const n = new Map(rows);
    return terms.map((t) => n.get(t) ?? 0);
  }

  async lexiconLookup(keys: string[]): Promise<LexiconRow[]> {
    if (!keys.length) return [];
    // Questions repeat their words: each key's rows are kept until the index changes.
    const generation = readGeneration(this.c);
    if (this.lexicon?.generation !== generation) this.lexicon = { generation, rows: new Map(), count: 0 };
    const c = this.lexicon;
    const cache = c.rows;
    if (c.count > LEXICON_CACHE_ROWS) (cache.clear(), (c.count = 0));
    const missing = keys.filter((k) => !cache.has(k));
    if (missing.length) {
      const rows = this.c.prepared(
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
    if (this.oneShot) return matchSetsOnce(this.c, tokenLists, filter, () => this.lookupFacts().brokenIds());
    const facts = this.allFacts().current();
    // A filter the facts answer narrows the sets and the count (rarity among the searched chunks).
    const narrow = factsCanFilter(filter);
    const { pass, share } = narrow ? factsFilter(facts, filter) : { pass: null, share: 1 };
    if (this.matches?.generation !== facts.generation) this.matches = new MatchCache(facts.generation);
    const cache = this.matches;
    const scope = narrow ? `${[...(filter?.sources ?? [])].sort().join(',')}|${filter?.includeBroken ? 1 : 0}` : '*';
    const stmt = this.c.prepared('SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?').pluck();
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
    return nearestRefs(this, this.vectorSource(q.fingerprint), q.vector, q.k, q.filter, q.exclude?.size ? q.exclude : undefined);
  }

  /** The vector source ranking `fingerprint` for this connection, in the strategy of the process's lifetime. */
  vectorSource(fingerprint: string): VectorSource {
    let v = this.sources.get(fingerprint);
    if (!v) this.sources.set(fingerprint, (v = this.oneShot ? new VectorScan(this.vectors, fingerprint) : new VectorIndex(this.vectors, fingerprint)));
    return v;
  }

  async keyword(q: KeywordQuery): Promise<RefScore[]> {
    if (q.k <= 0 || !q.tokens.length) return [];
    const head = q.headWeight ?? 1;
    if (!(Number.isFinite(head) && head >= 0)) throw new Error(`headWeight must be a number ≥ 0 (got ${head})`);
    const match = matchExpression(q.tokens);
    if (!factsCanFilter(q.filter)) {
      const f = filterSql(q.filter);
      const hits = this.c.prepared(
        `SELECT c.id AS ref, -bm25(chunks_fts, ?, 1) AS score
         FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid ${HIT_JOINS}
         WHERE chunks_fts MATCH ? AND ${f.sql}
         ORDER BY score DESC, c.id
         LIMIT ?`,
      ).all(head, match, ...f.params, q.k) as RefScore[];
      return q.countTerms ? this.countTerms(hits, q.tokens) : hits;
    }
    // The FTS table alone ranks (no join or JSON per matching row); the facts filter its rows in
    // rank order, read lazily until k pass.
    const { pass, share } = this.facts().filter(q.filter);
    if (share === 0) return [];
    if (q.reuse) return this.terms.merged(this.allFacts().current(), q.tokens, head, q.k, pass);
    // With a LIMIT SQLite keeps the best rows in a small heap instead of sorting every match (a
    // common word matches tens of thousands). The order is total (rowid breaks ties), so the first
    // `limit` rows are the unlimited order's first; too few passing the filter: a larger limit.
    const ranked = this.c.prepared(
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
      if (out.length >= q.k || rows.length < limit) return q.countTerms ? this.countTerms(out, q.tokens) : out;
    }
  }

  /**
   * Each hit's count of the query's tokens (a repeated token counts again), as the reused per-term
   * scores give it: fusion weighs a query by it, so a one-shot search ranks as a long-lived one.
   * The hits' rows are read once and their terms checked in memory (a MATCH per token read each
   * token's whole doclist); a token the FTS tokenizer would split (not one run of letters and
   * digits) is asked of FTS5 itself, limited to the hits' rows.
   */
  private countTerms(hits: RefScore[], tokens: readonly string[]): RefScore[] {
    if (!hits.length) return hits;
    // The query's distinct terms with their repeats: those FTS5 keeps whole are looked up in the
    // rows' text, the others asked of FTS5.
    const whole = new Map<string, number>();
    const split = new Map<string, number>();
    for (const t of tokens) {
      const term = t.toLowerCase();
      const into = SINGLE_FTS_TOKEN.test(term) ? whole : split;
      into.set(term, (into.get(term) ?? 0) + 1);
    }
    const refs = JSON.stringify(hits.map((h) => h.ref));
    const at = new Map<number, RefScore>();
    for (const h of hits) (h.terms = 0), at.set(h.ref, h);
    if (whole.size) {
      const rows = this.c.prepared("SELECT rowid, head || ' ' || body FROM chunks_fts WHERE rowid IN (SELECT value FROM json_each(?))").raw().all(refs) as [number, string][];
      // Each of the query's few terms looked for in the row's text as a whole token (a run of
      // letters and digits, as FTS5 splits it): no array of the row's thousands of tokens to collect.
      for (const [ref, text] of rows) {
        let n = 0;
        const lower = text.toLowerCase();
        for (const [term, k] of whole) if (holdsToken(lower, term)) n += k;
        at.get(ref)!.terms! += n;
      }
    }
    if (split.size) {
      const holding = this.c.prepared('SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))').pluck();
      for (const [term, n] of split) for (const ref of holding.all(matchExpression([term]), refs) as number[]) at.get(ref)!.terms! += n;
    }
    return hits;
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
      this.c.prepared(`SELECT c.id FROM json_each(?) j CROSS JOIN chunks c ON c.id = j.value ${HIT_JOINS} WHERE ${f.sql}`)
        .pluck()
        .all(JSON.stringify(refs), ...f.params) as number[],
    );
    return refs.filter((r) => ok.has(r));
  }

  async getChunks(refs: readonly number[], filter?: ChunkFilter): Promise<StoredHit[]> {
    const wanted = filter ? await this.filterRefs(refs, filter) : refs;
    if (!wanted.length) return [];
    const recent = this.recentRows();
    // Copies: a caller may add to a hit it was given, never to the one kept.
    return recent ? cachedRows(recent.hits, wanted, (missing) => this.readHits(missing)).map((h) => ({ ...h })) : this.readHits(wanted);
  }

  private readHits(refs: readonly number[]): StoredHit[] {
    // One prepared statement for any number of ids (a JSON array), rows in the order asked.
    const rows = this.c.prepared(
      `SELECT ${HIT_COLUMNS}, 0 AS score FROM json_each(?) j CROSS JOIN chunks c ON c.id = j.value ${HIT_JOINS} ORDER BY j.key`,
    ).all(JSON.stringify(refs)) as HitRow[];
    return rows.map(toHit);
  }

  async chunkTexts(refs: readonly number[]): Promise<ChunkText[]> {
    if (!refs.length) return [];
    const recent = this.recentRows();
    return recent ? cachedRows(recent.texts, refs, (missing) => this.readTexts(missing)) : this.readTexts(refs);
  }

  private readTexts(refs: readonly number[]): ChunkText[] {
    // The columns before the embedded text: the rest of a long row (its overflow pages) is not read.
    return this.c.prepared(
      `SELECT c.id AS ref, c.document_id AS doc, d.title, c.heading, c.content FROM json_each(?) j CROSS JOIN chunks c ON c.id = j.value
       JOIN documents d ON d.id = c.document_id`,
    ).all(JSON.stringify(refs)) as ChunkText[];
  }

  async chunkTerms(refs: readonly number[]): Promise<{ ref: number; terms: string }[]> {
    if (!refs.length) return [];
    const recent = this.recentRows();
    return recent ? cachedRows(recent.terms, refs, (missing) => this.readTerms(missing)) : this.readTerms(refs);
  }

  private readTerms(refs: readonly number[]): { ref: number; terms: string }[] {
    return this.c.prepared('SELECT f.rowid AS ref, f.body AS terms FROM json_each(?) j CROSS JOIN chunks_fts f ON f.rowid = j.value').all(
      JSON.stringify(refs),
    ) as { ref: number; terms: string }[];
  }

  async anyChunk(filter: ChunkFilter): Promise<boolean> {
    const f = filterSql(filter);
    return !!this.db.prepare(`SELECT 1 FROM chunks c ${HIT_JOINS} WHERE ${f.sql} LIMIT 1`).get(...f.params);
  }

  async fieldValues(fields: string[], shape: FieldValueShape): Promise<string[]> {
    return this.fields.of(fields, shape);
  }

  async documentPaths(): Promise<{ source: string; path: string }[]> {
    return this.db.prepare('SELECT s.name AS source, d.path FROM documents d JOIN sources s ON s.id = d.source_id ORDER BY s.name, d.path').all() as {
      source: string;
      path: string;
    }[];
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

  async vectorsOf(fingerprint: string, refs: readonly number[]): Promise<Map<number, Float32Array>> {
    return this.vectors.vectorsOf(fingerprint, refs);
  }

  async generation(): Promise<number> {
    return readGeneration(this.c);
  }

  /** Closes what the reader opened beside the connection (call before closing it). */
  close(): void {
    this.vectors.close();
    this.sources.clear();
  }
}

/** Lexicon rows kept for recent keys (about 100 bytes each), emptied once past this or when the index changes. */
const LEXICON_CACHE_ROWS = 20_000;

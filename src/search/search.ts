import { existsSync } from 'node:fs';
import type { Config } from '../config/load.ts';
import { createEmbedder } from '../embedding/create.ts';
import type { Embedder } from '../embedding/types.ts';
import { SqliteStore } from '../storage/sqlite/index-store.ts';
import type { ChunkFilter, ChunkHit, Store, StoredHit } from '../storage/roles.ts';
import { RagsyncError, EXIT } from '../core/errors.ts';
import { selectSources } from '../sync/run.ts';
import { toChunkFilter, type FilterOptions } from './filters.ts';
import { queryTokens } from '../core/text/analyzer.ts';
import { VectorIndex } from './vector-index.ts';
import { collapseDuplicates, mmr, rrf, temporalDecay, type Candidate, type RrfWeights } from './fuse.ts';
import type { Reranker } from './rerank.ts';

export const MODES = ['vector', 'keyword', 'hybrid'] as const;
export type SearchMode = (typeof MODES)[number];

export interface SearchOptions extends FilterOptions {
  k?: number;
  /** Default hybrid. */
  mode?: SearchMode;
  /** Results scoring below are dropped (the score of the mode: cosine, -bm25 or RRF). */
  minScore?: number;
  /** RRF weights of the vector and keyword lists (default 1 and 1). */
  weights?: Partial<RrfWeights>;
  /** MMR lambda in (0, 1]; 1 (default) = no diversification. */
  mmr?: number;
  /** Collapse identical / near-identical texts (default true). */
  dedupe?: boolean;
  /** Temporal decay half-life in days on added_at/date (bookmarks); off by default. */
  halfLifeDays?: number;
  /** Attach each result's component ranks and scores. */
  explain?: boolean;
  /** Apply the searcher's reranker to the fused top N (default: yes when one is configured). */
  rerank?: boolean;
}

export interface SearchResponse {
  results: SearchResult[];
  /** true: reordered by the reranker; false: it failed or timed out (fused order kept); null: none used. */
  reranked: boolean | null;
  rerankError?: string;
}

export interface Explain {
  mode: SearchMode;
  vector: { rank: number; score: number } | null;
  keyword: { rank: number; score: number } | null;
  decay: number | null;
  duplicates: number;
  /** Relevance score from the reranker, when it ran. */
  rerank?: number;
}

export interface SearchResult extends ChunkHit {
  /** Book title (classics: metadata.bookTitle, else the document title). */
  book: string | null;
  /** Chapter (metadata.chapter, else the heading). */
  chapter: string;
  url: string | null;
  tags: string[];
  date: string | null;
  explain?: Explain;
}

export interface RelatedResult extends SearchResult {}

export const DEFAULT_K = 10;
export const MAX_K = 100;
export const MAX_QUERY_CHARS = 1000;

const usage = (msg: string) => new RagsyncError(msg, EXIT.usage);
const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

export function toResult(h: StoredHit | ChunkHit, score: number): SearchResult {
  const m = h.metadata;
  const { ref: _ref, ...hit } = h as StoredHit;
  return {
    ...hit,
    score,
    book: str(m.bookTitle) ?? h.title,
    chapter: str(m.chapter) ?? h.heading,
    url: str(m.url),
    tags: Array.isArray(m.tags) ? m.tags.map(String) : [],
    date: str(m.added_at) ?? str(m.date),
  };
}

/** A long-lived search handle (the HTTP server, the MCP server and the agent tool keep one open). */
export class Searcher {
  readonly index: VectorIndex;

  constructor(
    readonly store: Store,
    readonly embedder: Embedder,
    /** For validating --source names; null accepts any. */
    readonly config: Config | null = null,
    /** Optional second stage over the fused top N. */
    readonly reranker: Reranker | null = null,
  ) {
    this.index = new VectorIndex(store, embedder.info.fingerprint);
  }

  static open(config: Config, embedder?: Embedder, reranker?: Reranker | null): Searcher {
    if (!existsSync(config.db)) {
      throw new RagsyncError(`no index at ${config.db}: run "ragsync index" first`, EXIT.failed);
    }
    return new Searcher(
      new SqliteStore(config.db, { readonly: true }),
      embedder ?? createEmbedder(config.embedder),
      config,
      reranker ?? null,
    );
  }

  private filterOf(opts: FilterOptions): ChunkFilter {
    const sources = opts.sources?.length && this.config ? selectSources(this.config, opts.sources).map((s) => s.name) : opts.sources;
    return toChunkFilter({ ...opts, sources });
  }

  private async embedQuery(q: string): Promise<Float32Array> {
    const [v] = await this.embedder.embed([q], { purpose: 'query' });
    return v!;
  }

  /**
   * Vector top-n passing the filter: exact top-k in memory, then the store drops what the filter
   * rejects; the window widens until n pass or the index is exhausted.
   */
  private async vectorHits(
    query: Float32Array,
    n: number,
    filter: ChunkFilter,
    exclude?: Set<number>,
  ): Promise<StoredHit[]> {
    let window = n * 4;
    const rank = await this.index.ranker(query);
    for (;;) {
      const matches = rank(window, exclude ? (ref) => !exclude.has(ref) : undefined);
      const hits = await this.store.getChunks(
        matches.map((m) => m.ref),
        filter,
      );
      const score = new Map(matches.map((m) => [m.ref, m.score]));
      if (hits.length >= n || matches.length < window) return hits.slice(0, n).map((h) => ({ ...h, score: score.get(h.ref)! }));
      window *= 4;
    }
  }

  private async keywordHits(q: string, n: number, filter: ChunkFilter): Promise<StoredHit[]> {
    const hits = await this.store.keywordSearch({ tokens: queryTokens(q), k: n, filter });
    if (hits.length) return hits;
    // No CJK bigram matched: fall back to single characters.
    const uni = queryTokens(q, { unigrams: true });
    return uni.length > queryTokens(q).length ? this.store.keywordSearch({ tokens: uni, k: n, filter }) : [];
  }

  async search(query: string, opts: SearchOptions = {}): Promise<SearchResult[]> {
    return (await this.searchDetailed(query, opts)).results;
  }

  /** The fused top N reordered by the reranker; on any failure the fused order stands. */
  private async rerankTop(q: string, list: Candidate[], k: number): Promise<{ list: Candidate[]; error?: string; scores?: Map<number, number> }> {
    const n = Math.max(k, this.reranker!.topN);
    const head = list.slice(0, n);
    try {
      const ranked = await this.reranker!.rerank(q, head.map((c) => c.content));
      const scores = new Map<number, number>();
      const seen = new Set<number>();
      const order: Candidate[] = [];
      for (const r of [...ranked].sort((a, b) => b.score - a.score)) {
        if (seen.has(r.index)) continue;
        seen.add(r.index);
        const c = head[r.index]!;
        scores.set(c.ref, r.score);
        order.push({ ...c, score: r.score });
      }
      // Candidates the reranker did not score keep their fused order after the scored ones.
      for (let i = 0; i < head.length; i++) if (!seen.has(i)) order.push(head[i]!);
      return { list: [...order, ...list.slice(n)], scores };
    } catch (err) {
      return { list, error: err instanceof Error ? err.message : String(err) };
    }
  }

  async searchDetailed(query: string, opts: SearchOptions = {}): Promise<SearchResponse> {
    const q = query.trim();
    if (!q) throw usage('empty query');
    if (q.length > MAX_QUERY_CHARS) throw usage(`query longer than ${MAX_QUERY_CHARS} characters`);
    const k = opts.k ?? DEFAULT_K;
    if (!Number.isInteger(k) || k < 1 || k > MAX_K) throw usage(`k must be 1..${MAX_K} (got ${k})`);
    const mode = opts.mode ?? 'hybrid';
    if (!MODES.includes(mode)) throw usage(`mode must be one of ${MODES.join('|')} (got "${mode}")`);
    const lambda = opts.mmr ?? 1;
    if (!(lambda > 0 && lambda <= 1)) throw usage(`mmr must be in (0, 1] (got ${lambda})`);
    if (opts.halfLifeDays !== undefined && !(opts.halfLifeDays > 0)) throw usage(`halfLifeDays must be > 0`);
    const filter = this.filterOf(opts);
    // Candidates per list: enough for fusion, collapse and MMR to have something to choose from.
    const pool = Math.max(k * 5, 50);

    const [vec, kw] = await Promise.all([
      mode === 'keyword' ? [] : this.embedQuery(q).then((v) => this.vectorHits(v, pool, filter)),
      mode === 'vector' ? [] : this.keywordHits(q, pool, filter),
    ]);
    const hits = new Map<number, StoredHit>();
    for (const h of [...vec, ...kw]) hits.set(h.ref, h);
    const weights = { vector: opts.weights?.vector ?? 1, keyword: opts.weights?.keyword ?? 1 };
    let list: Candidate[] = rrf(vec, kw, weights);
    // Single-list modes keep the list's own score (cosine or -bm25) rather than RRF's.
    if (mode !== 'hybrid') list = list.map((c) => ({ ...c, score: (c.vector ?? c.keyword)!.score }));
    for (const c of list) {
      const m = hits.get(c.ref)!.metadata;
      c.date = str(m.added_at) ?? str(m.date);
    }
    // Unless a later stage reorders (MMR, decay, rerank) or --explain counts duplicates, only the top k
    // survivors matter (minScore only drops from the tail).
    const needAll = lambda < 1 || !!opts.halfLifeDays || !!this.reranker || !!opts.explain;
    if (opts.dedupe !== false) list = collapseDuplicates(list, 0.9, needAll ? Infinity : k);
    if (opts.halfLifeDays) list = temporalDecay(list, opts.halfLifeDays);
    list = mmr(list, lambda < 1 ? k : list.length, lambda);
    let reranked: boolean | null = null;
    let rerankError: string | undefined;
    let rerankScores: Map<number, number> | undefined;
    if (this.reranker && opts.rerank !== false && list.length) {
      const r = await this.rerankTop(q, list, k);
      list = r.list;
      reranked = !r.error;
      rerankError = r.error;
      rerankScores = r.scores;
    }
    if (opts.minScore !== undefined) list = list.filter((c) => c.score >= opts.minScore!);
    const results = list.slice(0, k).map((c) => {
      const r = toResult(hits.get(c.ref)!, c.score);
      if (opts.explain) {
        r.explain = {
          mode,
          vector: c.vector ?? null,
          keyword: c.keyword ?? null,
          decay: c.decay ?? null,
          duplicates: c.duplicates?.length ?? 0,
          ...(rerankScores?.has(c.ref) ? { rerank: rerankScores.get(c.ref)! } : {}),
        };
      }
      return r;
    });
    return { results, reranked, ...(rerankError ? { rerankError } : {}) };
  }

  /**
   * The documents most similar to a given one (by source + path, or a chunk id): the mean of its
   * chunk vectors against every other document's chunks, best chunk per document, itself excluded.
   */
  async related(
    ref: string | { source?: string; path?: string; id?: string },
    opts: FilterOptions & { k?: number } = {},
  ): Promise<SearchResult[]> {
    const k = opts.k ?? DEFAULT_K;
    if (!Number.isInteger(k) || k < 1 || k > MAX_K) throw usage(`k must be 1..${MAX_K} (got ${k})`);
    // A bare string is a document path if one exists, else a chunk id.
    if (typeof ref === 'string') ref = (await this.store.findChunks({ path: ref })).length ? { path: ref } : { id: ref };
    if (!ref.path && !ref.id) throw usage('related needs a path or an id');
    const what = `${ref.source ? ref.source + ':' : ''}${ref.path ?? ref.id}`;
    const found = await this.store.findChunks(ref);
    if (!found.length) throw usage(`not in the index: ${what}`);
    const docs = new Map<string, StoredHit>();
    for (const h of await this.store.getChunks(found, { includeBroken: true })) docs.set(`${h.source}\u0000${h.path}`, h);
    if (docs.size > 1) {
      throw usage(`"${what}" names ${docs.size} documents (${[...new Set([...docs.values()].map((h) => h.source))].join(', ')}): pass a source`);
    }
    const self = [...docs.values()][0]!;
    // A chunk id stands for its whole document.
    const own = await this.store.findChunks({ source: self.source, path: self.path });
    const dims = (await this.index.current()).dims;
    const centroid = new Float32Array(dims);
    let n = 0;
    for (const r of own) {
      const v = await this.index.vectorOf(r);
      if (!v) continue;
      for (let j = 0; j < dims; j++) centroid[j]! += v[j]!;
      n++;
    }
    if (!n) return [];
    const filter = this.filterOf(opts);
    const isSelf = (h: StoredHit) => h.source === self.source && h.path === self.path;
    let pool = k * 8;
    for (;;) {
      const hits = (await this.vectorHits(centroid, pool, filter, new Set(own))).filter((h) => !isSelf(h));
      const best = new Map<string, StoredHit>();
      for (const h of hits) {
        const key = `${h.source}\u0000${h.path}`;
        if (!best.has(key)) best.set(key, h); // hits are best-first
      }
      if (best.size >= k || hits.length < pool) return [...best.values()].slice(0, k).map((h) => toResult(h, h.score));
      pool *= 4;
    }
  }

  async close(): Promise<void> {
    await this.store.close();
    await this.embedder.close?.();
  }
}

/** One-shot search: opens the index, searches, closes. */
export async function search(config: Config, query: string, opts: SearchOptions = {}): Promise<SearchResult[]> {
  const s = Searcher.open(config);
  try {
    return await s.search(query, opts);
  } finally {
    await s.close();
  }
}

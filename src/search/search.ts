import { closestValues } from './closest.ts';
import type { Config } from '../config/load.ts';
import { selectSources } from '../config/select.ts';
import { RagsyncError, EXIT } from '../core/errors.ts';
import type { CandidatePrior, Expansion, FilterSpec, ToolMentions } from '../core/profile.ts';
import { defaultAnalyzer, indexTokens, queryTerms, type Analyzer } from '../core/text/analyzer.ts';
import type { ChunkFilter, ChunkHit, StoredHit } from '../core/types.ts';
import type { ChunkText, RefScore } from '../storage/roles.ts';
import type { Embedder } from '../embedding/types.ts';
import type { SearchStore } from '../storage/roles.ts';
import { headWeight } from './field-weights.ts';
import { knownShape, toChunkFilter, unknownValueError, valuesToCheck } from './filters.ts';
import { EXPANSION_TUNING, expansionWeightOf, gatherExpansions, literalShare, MAX_CONCEPT_EXPANSIONS, MAX_EXPANSIONS, type Expander } from './expand.ts';
import { conceptRefs } from './concepts.ts';
import { COMPOUND, lexiconExpander, withoutCompoundsBesideProfile } from './lexicon.ts';
import { pinyinExpander, withoutPinyinParts } from './pinyin.ts';
import { TermCountCache } from './term-counts.ts';
import { literalFirst, literalPatterns } from './literal.ts';
import { capPerDocument, collapseDuplicates, mmr, ownListsScore, rrf, RRF_K, temporalDecay, type Candidate, type ExpansionList } from './fuse.ts';
import { fullCoverFirst, leaderPasses, listTrust, literalByKeyword, ownWordsFirst, placeAtLeast, queryEvidence, TRUST_TUNING, type ListTrust } from './trust.ts';
import type { Reranker } from './rerank.ts';
import { DEFAULT_K, DEFAULT_PER_DOC, MAX_K, parseSearchRequest, type SearchMode, type SearchOptions, type SearchRequest } from './request.ts';
import { normalizeRows } from '../core/quantize.ts';
import { QueryAnalyses } from './query-analyses.ts';
import { resolveDocRef } from './doc-ref.ts';

export { MODES, MAX_K, MAX_QUERY_CHARS, DEFAULT_K, DEFAULT_PER_DOC, type SearchMode, type SearchOptions, type SearchRequest } from './request.ts';

export interface SearchResponse {
  results: SearchResult[];
  /** true: reordered by the reranker; false: it failed or timed out (fused order kept); null: none used. */
  reranked: boolean | null;
  rerankError?: string;
  /** With explain: the expansions searched beside the query's own words (empty when off or none). */
  expansions?: Expansion[];
  /** With explain: how long each stage took (analyse, retrieve, weigh, fuse, collapse, rerank, present) and what it did. */
  stages?: StageReport[];
}

/** One stage of a search as explain reports it. */
export interface StageReport {
  stage: string;
  ms: number;
  /** What it did, in words: "keyword 50, vector 50, 1 expansion list, 2 literal". */
  did: string;
}

export interface Explain {
  mode: SearchMode;
  vector: { rank: number; score: number } | null;
  keyword: { rank: number; score: number } | null;
  decay: number | null;
  duplicates: number;
  /** Rank and score in the expansion terms' keyword list, and the expansion weight it earned there. */
  expansion: { rank: number; score: number; weight: number } | null;
  /** Rank and score in the keyword list of a profile's own expansions (Profile.expansionWeight), and the weight it earned. */
  profileExpansion?: { rank: number; score: number; weight: number } | null;
  /** Relevance score from the reranker, when it ran. */
  rerank?: number;
  /** The passage holds the query's words in order (the literal stage ranked it above the others). */
  literal?: boolean;
  /** The factor its profile's candidate prior put on its score (Profile.candidatePrior), when not 1. */
  prior?: number;
}

export interface SearchResult extends ChunkHit {
  /** Fields the source's profile gives its results (e.g. book and chapter, or url, tags and date). */
  fields: Record<string, unknown>;
  explain?: Explain;
}

const usage = (msg: string) => new RagsyncError(msg, EXIT.usage);
/** Chunks `mentioning` reads at once, and the most a store without match sets is asked for. */
const MENTION_PAGE = 200;
const MENTION_SCAN = 5000;
const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/** Which sources a search covers, the profiles in force for them, and the config's search switches. */
export type SearchScope = Pick<Config, 'sources' | 'profiles'> & { search?: { expand: boolean } };

/**
 * Knobs of query expansion the benchmarks turn (the defaults are what measured best there,
 * BENCHMARKS.md "Query expansion"). A query whose own words already match a passage well (a title
 * quoted, a term) is "literal": its expansions only nudge; otherwise they carry the search.
 */
export interface ExpansionTuning {
  /** RRF weight of the expansion list when the query is not literal. */
  weight: number;
  /**
   * The same when a profile's own list has expansions for the query too: a profile's equivalences
   * know its field better than the dictionary's guesses, which then stay below them.
   */
  besideProfile: number;
  /** RRF weight of the expansion list when it is. */
  literalWeight: number;
  /** Not literal: the vector leg embeds the query with its expansions (the hash embedder then sees the Chinese words). */
  expandVector: boolean;
  /** Share of the query's English content words the best own-keyword hit must hold to count as literal. */
  literal: number;
  /** Overrides the RRF weight of a profile's own expansion list (Profile.expansionWeight). */
  profile?: number;
  /** Rank the expansion list by concepts covered (concepts.ts) rather than by BM25 over all terms ORed. */
  concepts: boolean;
  /** Chinese words the corpus lexicon offers per English word or phrase. */
  perKey: number;
}

/** A query's expansions, by the list they are searched in (see Searcher.expansionsOf). */
export interface Expansions {
  shared: Expansion[];
  own: Expansion[];
  ownWeight: number;
}
const NO_EXPANSIONS: Expansions = { shared: [], own: [], ownWeight: 0 };

export interface SearcherOptions {
  /**
   * Let the store keep per-term keyword scores between queries (KeywordQuery.reuse). Default: on
   * for a long-lived searcher, off for a one-shot one (the commands, which search once).
   */
  reuseTerms?: boolean;
  /**
   * A process that answers a query or two and exits (the CLI): the store is opened for it (it
   * ranks without loading every vector, reads what it needs per ranked id instead of caching it
   * for every chunk).
   */
  oneShot?: boolean;
}

/** What a query's words make under the searched sources' analyzers (kept per query: QueryAnalyses). */
interface QueryAnalysis {
  /** It has terms, or at least a letter or digit (else it is refused). */
  searchable: boolean;
  analyzers: Analyzer[];
  ownTerms: string[][];
  /** Hybrid searches only (the other modes search no expansions). */
  expansions: Expansions;
  prior: CandidatePrior | null;
  /** Its words in order as stored terms hold them (literal.ts), made when first asked for. */
  patterns?: RegExp[];
}

/** What `analyse` makes of a request: everything the later stages read. */
interface SearchPlan {
  req: SearchRequest;
  filter: ChunkFilter;
  analyzers: Analyzer[];
  ownTerms: string[][];
  /** The query's distinct terms under the analyzer that makes fewest: what "all its words" counts. */
  termCount: number;
  analysis: QueryAnalysis;
  /** Candidates per list. */
  pool: number;
  /** A later stage reorders or counts the whole list (MMR, decay, rerank, explain). */
  needAll: boolean;
  perDoc: number;
  /** Collapse or the per-document cap thin the list. */
  thins: boolean;
  /** Depth of the vector list. */
  vectorN: number;
  expansions: Expansions;
  /** The searched profile's opinion of candidates (Profile.candidatePrior), and the factors it gave. */
  prior: CandidatePrior | null;
  priors: Map<number, number>;
}

/** Candidates of the fused list a profile's prior weighs: the head the answer comes from, with room to move up. */
const PRIOR_DEPTH = 30;

/** What `retrieve` brings: the ranked lists fusion takes. */
interface Retrieved {
  kw: RefScore[];
  vec: RefScore[];
  lists: ExpansionList[];
  literal: Set<number>;
  /** Keyword hits holding every term of the query. */
  fullCover: Set<number>;
  /** The query's words are found as written (literal hits, or its English words in its best keyword hit). */
  literalQuery: boolean;
  weights: { vector: number; keyword: number };
}

/** The chunks one search reads: titles and texts for the stages that weigh them, full hits for the results only. */
class ChunkCache {
  readonly texts = new Map<number, ChunkText>();
  readonly hits = new Map<number, StoredHit>();
  private readonly results = new Map<number, SearchResult>();

  constructor(
    private readonly store: SearchStore,
    private readonly toResult: (h: StoredHit) => SearchResult,
  ) {}

  async loadTexts(refs: number[]): Promise<void> {
    const missing = refs.filter((r) => !this.texts.has(r));
    if (missing.length) for (const t of await this.store.chunkTexts(missing)) this.texts.set(t.ref, t);
  }

  async loadHits(refs: number[]): Promise<void> {
    const missing = refs.filter((r) => !this.hits.has(r));
    if (missing.length) for (const h of await this.store.getChunks(missing)) this.hits.set(h.ref, h);
  }

  /** A loaded hit as a result (the profile's fields added once). */
  resultOf(ref: number): SearchResult {
    let r = this.results.get(ref);
    if (!r) this.results.set(ref, (r = this.toResult(this.hits.get(ref)!)));
    return r;
  }
}

/** Milliseconds per stage and what it did, for explain (`did` is only called when explaining). */
class StageClock {
  readonly stages: StageReport[] = [];
  private last = performance.now();

  lap(stage: string, did: () => string): void {
    const now = performance.now();
    this.stages.push({ stage, ms: Number((now - this.last).toFixed(2)), did: did() });
    this.last = now;
  }
}

const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** What the engine's own expanders mark their expansions with (the rest are the profiles'). */
const ENGINE_VIAS = new Set(['lexicon', COMPOUND, 'pinyin']);

/** A long-lived search handle (the HTTP server, the MCP server and the agent tool keep one open). */
export class Searcher {
  tuning: ExpansionTuning = { ...EXPANSION_TUNING };
  /** What a query's evidence makes fusion keep (trust.ts). */
  trustTuning = { ...TRUST_TUNING };
  /** Expanders beside the profiles' own and the corpus lexicon (a library user's). */
  readonly extraExpanders: Expander[] = [];
  private readonly lexicon: Expander;
  private readonly pinyin: Expander;
  private readonly reuseTerms: boolean;
  /** Recent queries' analyses (a long-lived searcher's: a one-shot one analyses its query once). */
  private readonly analyses: QueryAnalyses<QueryAnalysis> | null;

  constructor(
    readonly store: SearchStore,
    readonly embedder: Embedder,
    /** The configured sources (to check --source names) and their profiles. */
    readonly scope: SearchScope,
    /** Optional second stage over the fused top N. */
    readonly reranker: Reranker | null = null,
    opts: SearcherOptions = {},
  ) {
    const counts = new TermCountCache(store);
    this.lexicon = lexiconExpander(store, () => this.tuning.perKey, counts);
    this.pinyin = pinyinExpander(store, counts);
    this.reuseTerms = opts.reuseTerms ?? !opts.oneShot;
    this.analyses = opts.oneShot ? null : new QueryAnalyses();
  }

  /** Every filter the profiles in force offer (the ways in expose these). */
  filterSpecs(): FilterSpec[] {
    return this.scope.profiles.filters();
  }

  private filterOf(req: Pick<SearchRequest, 'filters' | 'path' | 'includeBroken' | 'sources'>): ChunkFilter {
    const sources = req.sources?.length ? selectSources(this.scope, req.sources).map((s) => s.name) : undefined;
    return toChunkFilter({ ...req, sources }, this.filterSpecs());
  }

  /** The analyzers of the searched sources' profiles (a source not configured uses the engine's). */
  private analyzers(sources: string[] | undefined): Analyzer[] {
    const names = new Set(sources?.length ? sources : this.scope.sources.map((s) => s.name));
    const out = new Set<Analyzer>();
    for (const s of this.scope.sources) if (names.has(s.name)) out.add(this.scope.profiles.get(s.profile).analyzer ?? defaultAnalyzer);
    if (!out.size) out.add(defaultAnalyzer);
    return [...out];
  }

  /**
   * The expansions of a query, or none when the request or the config turns expansion off. `shared`
   * are searched as one keyword list below the query's own words (dictionary guesses: the corpus
   * lexicon, profiles without an `expansionWeight`, extra expanders); `own` come from profiles that
   * give their field's own equivalences a list of their own, fused at `ownWeight`.
   */
  async expansionsOf(q: string, req: Pick<SearchRequest, 'expand'>, sources: string[] | undefined): Promise<Expansions> {
    if (!req.expand || this.scope.search?.expand === false) return NO_EXPANSIONS;
    const names = new Set(sources?.length ? sources : this.scope.sources.map((s) => s.name));
    const searched = this.scope.sources.filter((s) => names.has(s.name));
    const profiles = [...new Set(searched.map((s) => this.scope.profiles.get(s.profile)))].filter((p) => p.expandQuery);
    const ownProfiles = profiles.filter((p) => p.expansionWeight !== undefined);
    const sharedExpanders: Expander[] = profiles.filter((p) => p.expansionWeight === undefined).map((p) => (x) => p.expandQuery!(x));
    if (searched.some((s) => s.lexicon)) sharedExpanders.push(this.lexicon, this.pinyin);
    const own = await gatherExpansions(q, ownProfiles.map((p) => (x: string) => p.expandQuery!(x)));
    // A term the profile gives is searched in its list only.
    const all = await gatherExpansions(q, [...sharedExpanders, ...this.extraExpanders], this.tuning.concepts ? MAX_CONCEPT_EXPANSIONS : MAX_EXPANSIONS);
    const gathered = all.filter((e) => !own.some((o) => o.term === e.term));
    // A pinyin word spelling a longer stretch of the query outranks readings of its parts (also when the profile gives the word itself).
    // A pair of characters for two English words speaks only where the profiles found nothing.
    const shared = withoutCompoundsBesideProfile(withoutPinyinParts(gathered, all), [...own, ...all.filter((e) => !ENGINE_VIAS.has(e.via))]);
    return { shared, own: withoutPinyinParts(own, all), ownWeight: Math.max(0, ...ownProfiles.map((p) => p.expansionWeight!)) };
  }

  /** Query terms under every analyzer in force, distinct (they are ORed). */
  private terms(q: string, analyzers: Analyzer[], unigrams = false): string[] {
    return [...new Set(analyzers.flatMap((a) => queryTerms(a, q, { unigrams })))];
  }

  /** A hit as a result: the profile of its source adds its fields. */
  toResult(h: StoredHit | ChunkHit, score: number): SearchResult {
    const { ref: _ref, ...hit } = h as StoredHit;
    const source = this.scope.sources.find((s) => s.name === h.source);
    const fields = (source && this.scope.profiles.get(source.profile).resultFields?.(h)) || {};
    return { ...hit, score, fields };
  }

  private async embedQuery(q: string): Promise<Float32Array> {
    const [v] = await this.embedder.embed([q], { purpose: 'query' });
    return v!;
  }

  /** Vector top-n passing the filter, ranked by the store. References and scores only. */
  private async vectorRefs(query: Float32Array, n: number, filter: ChunkFilter, exclude?: Set<number>): Promise<RefScore[]> {
    // Exact, as search has always ranked: an approximate index is the config's choice to offer.
    return this.store.nearest({ fingerprint: this.embedder.info.fingerprint, vector: query, k: n, filter, exclude });
  }

  private async vectorHits(query: Float32Array, n: number, filter: ChunkFilter, exclude?: Set<number>): Promise<StoredHit[]> {
    return this.withChunks(await this.vectorRefs(query, n, filter, exclude));
  }

  /** The chunks of ranked references, scores kept. */
  private async withChunks(refs: RefScore[]): Promise<StoredHit[]> {
    const score = new Map(refs.map((r) => [r.ref, r.score]));
    return (await this.store.getChunks(refs.map((r) => r.ref))).map((h) => ({ ...h, score: score.get(h.ref)! }));
  }

  /**
   * `own`: the query's terms under each analyzer (queryTerms), ORed. `countTerms`: the hits carry
   * their counts of those terms (the hybrid search's evidence; a single list has no use for them).
   */
  private async keywordRefs(q: string, own: string[][], n: number, filter: ChunkFilter, analyzers: Analyzer[], countTerms: boolean): Promise<RefScore[]> {
    const terms = [...new Set(own.flat())];
    const head = headWeight();
    const reuse = this.reuseTerms;
    const hits = await this.store.keyword({ tokens: terms, k: n, filter, headWeight: head, reuse, countTerms });
    if (hits.length) return hits;
    // No CJK bigram matched: fall back to single characters.
    const uni = this.terms(q, analyzers, true);
    return uni.length > terms.length ? this.store.keyword({ tokens: uni, k: n, filter, headWeight: head, reuse, countTerms }) : [];
  }

  /** Keyword hits of the expansion terms, ORed (each term tokenised like a query). */
  private async expansionRefs(expansions: Expansion[], n: number, filter: ChunkFilter, analyzers: Analyzer[]): Promise<RefScore[]> {
    const terms = [...new Set(expansions.flatMap((e) => this.terms(e.term, analyzers)))];
    return terms.length ? this.store.keyword({ tokens: terms, k: n, filter, headWeight: headWeight(), reuse: this.reuseTerms }) : [];
  }

  /**
   * The references among the query's own keyword hits whose stored terms hold the query's words in
   * order (literal.ts).
   */
  private async literalRefs(q: string, analysis: QueryAnalysis, kw: RefScore[]): Promise<Set<number>> {
    // Only a hit holding every term of the query (under one analyzer) can hold its words in
    // order: where the store counts them, the others are not read.
    const need = Math.min(...analysis.ownTerms.map((t) => t.length));
    const maybe = kw.filter((h) => h.terms === undefined || h.terms >= need);
    const wanted = maybe.length ? (analysis.patterns ??= literalPatterns(q, analysis.analyzers)) : [];
    if (!wanted.length) return new Set();
    const out = new Set<number>();
    for (const { ref, terms } of await this.store.chunkTerms(maybe.map((h) => h.ref))) if (wanted.some((w) => w.test(terms))) out.add(ref);
    return out;
  }

  /**
   * The chunks whose keyword terms hold every index term of `words` (under one analyzer in force),
   * in reference order, unranked, with `opts.accept` deciding which to keep: what a tool checks
   * exactly itself (a symbol's references). The keyword index is rewritten with the chunks, so
   * this is current by construction; chunks are read a page at a time until `limit` are kept.
   */
  async mentioning(words: string, opts: ToolMentions): Promise<SearchResult[]> {
    const filters = Object.fromEntries(Object.entries(opts.filters ?? {}).map(([k, v]) => [k, typeof v === 'string' ? [v] : v]));
    const filter = this.filterOf({ ...opts, filters, includeBroken: false });
    const lists = [...new Map(this.analyzers(filter.sources).map((a) => indexTokens(a, words)).filter((t) => t.length).map((t) => [t.join(' '), t])).values()];
    if (!lists.length) return [];
    let refs: number[];
    if (this.store.matchSets) {
      const m = await this.store.matchSets(lists, filter);
      refs = [...new Set(m.sets.flatMap((set) => Array.from(set, (p) => m.refs[p]!)))].sort((a, b) => a - b);
    } else {
      // A store without match sets: the ORed keyword hits, a superset the caller's check narrows.
      refs = (await this.store.keyword({ tokens: [...new Set(lists.flat())], k: MENTION_SCAN, filter })).map((r) => r.ref);
    }
    const out: SearchResult[] = [];
    for (let i = 0; i < refs.length && out.length < opts.limit; i += MENTION_PAGE) {
      for (const h of await this.store.getChunks(refs.slice(i, i + MENTION_PAGE), filter)) {
        const r = this.toResult(h, 0);
        if (opts.accept && !opts.accept(r)) continue;
        out.push(r);
        if (out.length >= opts.limit) break;
      }
    }
    return out;
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
    return this.run(parseSearchRequest({ ...opts, query }));
  }

  /**
   * Runs a validated request (`fullPool`: the vector list at full depth, see `analyse`), in named
   * stages: analyse → retrieve → weigh → fuse → collapse → rerank → present. With `explain`, the response
   * says how long each took.
   */
  async run(req: SearchRequest, fullPool = false): Promise<SearchResponse> {
    const timed = req.explain ? new StageClock() : null;
    const plan = await this.analyse(req, fullPool);
    timed?.lap('analyse', () => {
      const ex = plan.expansions.own.length + plan.expansions.shared.length;
      return `${count(new Set(plan.ownTerms.flat()).size, 'query term')}, ${count(ex, 'expansion')}, up to ${plan.pool} candidates per list${plan.vectorN < plan.pool ? ` (vector ${plan.vectorN})` : ''}`;
    });
    const chunks = new ChunkCache(this.store, (h) => this.toResult(h, 0));
    const got = await this.retrieve(plan, chunks);
    timed?.lap('retrieve', () => `keyword ${got.kw.length}, vector ${got.vec.length}, ${count(got.lists.length, 'expansion list')}, ${got.literal.size} holding the query as written`);
    const trust = this.weigh(plan, got);
    timed?.lap('weigh', () => (trust ? trust.why : `single list (${req.mode})`));
    const fused = this.fuse(plan, got, trust, await this.weighByPrior(plan, this.merge(plan, got), chunks));
    timed?.lap('fuse', () => `${count(fused.length, 'candidate')} by reciprocal rank fusion (${req.mode})`);
    const collapsed = await this.collapse(plan, fused, chunks, got.vec.length);
    // The vector head the plan read ran short after collapse: again, at full depth.
    if (collapsed === null) return this.run(req, true);
    timed?.lap('collapse', () => {
      const how = [req.dedupe ? 'near-duplicates merged' : null, plan.perDoc ? `at most ${plan.perDoc} per document` : null, req.halfLifeDays ? 'decayed by date' : null, req.mmr < 1 ? `MMR ${req.mmr}` : null];
      return `${fused.length} → ${collapsed.length}${how.some(Boolean) ? ` (${how.filter(Boolean).join(', ')})` : ''}`;
    });
    const ranked = await this.rerankStage(plan, collapsed);
    timed?.lap('rerank', () =>
      ranked.reranked === null
        ? this.reranker
          ? 'off for this request'
          : 'no reranker configured'
        : ranked.reranked
          ? `top ${Math.min(collapsed.length, Math.max(req.k, this.reranker!.topN))} reordered by ${this.reranker!.name}`
          : `failed, fused order kept: ${ranked.error}`,
    );
    const results = await this.present(plan, ranked.list, chunks, ranked.scores);
    timed?.lap('present', () => `${count(results.length, 'result')}${req.minScore !== undefined ? ` (minScore ${req.minScore})` : ''}`);
    const { own, shared } = plan.expansions;
    return {
      results,
      reranked: ranked.reranked,
      ...(ranked.error ? { rerankError: ranked.error } : {}),
      ...(req.explain ? { expansions: [...own, ...shared], stages: timed!.stages } : {}),
    };
  }

  /** The request read: its filter, analyzers and own terms, the list depths, and its expansions. */
  private async analyse(req: SearchRequest, fullPool: boolean): Promise<SearchPlan> {
    const { query: q, k, mode, mmr: lambda } = req;
    const filter = this.filterOf(req);
    const analysis = await this.analysisOf(q, req, filter.sources);
    if (!analysis.searchable) throw usage(`query ${JSON.stringify(q)} has no searchable terms (letters, digits or CJK characters)`);
    const { analyzers, ownTerms } = analysis;
    // Candidates per list: enough for fusion, collapse and MMR to have something to choose from.
    const pool = Math.max(k * 5, 50);
    // Unless a later stage reorders (MMR, decay, rerank) or --explain counts duplicates, only the top k
    // survivors matter (minScore only drops from the tail).
    const needAll = lambda < 1 || !!req.halfLifeDays || !!this.reranker || req.explain;
    // A vector-only search needs only the head its answer comes from (each candidate is rescored
    // exactly); if collapse leaves fewer than k there, it runs again at full depth.
    const perDoc = req.perDoc ?? (mode === 'hybrid' ? DEFAULT_PER_DOC : 0);
    // Collapse and the per-document cap thin the list: they look further than k.
    const thins = req.dedupe || perDoc > 0;
    const head = thins ? 2 * k + 8 : k;
    const vectorN = mode === 'vector' && !needAll && !fullPool && head < pool ? head : pool;
    // Expansions join hybrid search only: keyword and vector modes stay the literal single legs.
    const { expansions, prior } = analysis;
    this.checkMinScore(req, expansions);
    const termCount = Math.min(...ownTerms.map((t) => new Set(t).size));
    return { req, filter, analyzers, ownTerms, termCount, analysis, pool, needAll, perDoc, thins, vectorN, expansions, prior, priors: new Map() };
  }

  /**
   * The query's terms, expansions and prior under the searched sources, from the recent analyses
   * when a long-lived searcher holds them at the index's generation (the lexicon changes with it).
   */
  private async analysisOf(q: string, req: SearchRequest, sources: string[] | undefined): Promise<QueryAnalysis> {
    const make = async (): Promise<QueryAnalysis> => {
      const analyzers = this.analyzers(sources);
      const searchable = this.terms(q, analyzers, true).length > 0 || /[\p{L}\p{N}]/u.test(q);
      if (!searchable) return { searchable, analyzers, ownTerms: [], expansions: NO_EXPANSIONS, prior: null };
      const ownTerms = analyzers.map((a) => queryTerms(a, q));
      // Expansions join hybrid search only: keyword and vector modes stay the literal single legs.
      const expansions = req.mode === 'hybrid' ? await this.expansionsOf(q, req, sources) : NO_EXPANSIONS;
      return { searchable, analyzers, ownTerms, expansions, prior: this.priorOf(q, sources) };
    };
    if (!this.analyses) return make();
    // Everything the analysis reads besides the index: the query, the sources, whether it expands and how.
    const { concepts, perKey } = this.tuning;
    const key = [req.mode === 'hybrid', req.expand, concepts, perKey, this.extraExpanders.length, sources?.join('\u0001') ?? '', q].join('\u0000');
    return this.analyses.of(key, await this.store.generation(), make);
  }

  /** The candidate prior of the searched sources' profile, when they all share one that has it. */
  private priorOf(q: string, sources: string[] | undefined): CandidatePrior | null {
    const names = new Set(sources?.length ? sources : this.scope.sources.map((s) => s.name));
    const profiles = new Set(this.scope.sources.filter((s) => names.has(s.name)).map((s) => this.scope.profiles.get(s.profile)));
    const [only] = profiles;
    return profiles.size === 1 && only!.candidatePrior ? only!.candidatePrior(q) : null;
  }

  /**
   * The head of the RRF list weighed by the profile's prior (its texts read: the later stages read
   * them anyway) and reordered, before fusion's per-query steps: what those keep in place (the
   * keyword list's leader, the passages holding the query as written) the prior does not move.
   */
  private async weighByPrior(plan: SearchPlan, fused: Candidate[], chunks: ChunkCache): Promise<Candidate[]> {
    const { prior, priors } = plan;
    if (!prior || !fused.length) return fused;
    const head = fused.slice(0, PRIOR_DEPTH);
    await chunks.loadTexts(head.map((c) => c.ref));
    for (const c of head) {
      const t = chunks.texts.get(c.ref);
      const f = t ? prior(t) : 1;
      if (f === 1) continue;
      priors.set(c.ref, f);
      c.score = c.score >= 0 ? c.score * f : c.score / f;
    }
    if (!priors.size) return fused;
    head.sort((a, b) => b.score - a.score || a.ref - b.ref);
    return [...head, ...fused.slice(PRIOR_DEPTH)];
  }

  /** The ranked lists: the query's own keyword hits, the expansions' lists, the literal matches and the vector leg. */
  private async retrieve(plan: SearchPlan, chunks: ChunkCache): Promise<Retrieved> {
    const { req, filter, analyzers, ownTerms, termCount, pool, vectorN } = plan;
    const { query: q, mode } = req;
    const { shared, own, ownWeight } = plan.expansions;
    const expanded = shared.length > 0 || own.length > 0;
    const vectorLeg = (text: string) => (mode === 'keyword' ? [] : this.embedQuery(text).then((v) => this.vectorRefs(v, vectorN, filter)));
    // The shared list ranked by concepts covered when the store can (`structured`), else by the ORed terms.
    const sharedList = async (): Promise<{ list: RefScore[]; structured: boolean }> => {
      const byConcepts = this.tuning.concepts ? await conceptRefs(this.store, q, shared, pool, filter, analyzers) : null;
      return byConcepts ? { list: byConcepts, structured: true } : { list: await this.expansionRefs(shared, pool, filter, analyzers), structured: false };
    };
    const [kw, { list: ex, structured }, exOwn, vec0] = await Promise.all([
      mode === 'vector' ? [] : this.keywordRefs(q, ownTerms, pool, filter, analyzers, mode === 'hybrid'),
      shared.length ? sharedList() : { list: [], structured: false },
      own.length ? this.expansionRefs(own, pool, filter, analyzers) : [],
      // Without expansions the vector leg does not wait for the keyword one.
      expanded ? null : vectorLeg(q),
    ]);
    const lists: ExpansionList[] = [];
    let vec = vec0 ?? [];
    // The literal stage (literal.ts): which of the query's own keyword hits hold its words in order.
    const literal = mode === 'hybrid' ? await this.literalRefs(q, plan.analysis, kw) : new Set<number>();
    const fullCover = new Set(mode === 'hybrid' ? kw.filter((h) => h.terms !== undefined && h.terms >= termCount).map((h) => h.ref) : []);
    // The English words of the query in its best keyword hit (read only for a query that has some).
    let englishShare = 0;
    if (mode === 'hybrid' && kw.length && /[a-z]/i.test(q)) {
      await chunks.loadTexts([kw[0]!.ref]);
      const best = chunks.texts.get(kw[0]!.ref);
      if (best) englishShare = literalShare(q, `${best.title ?? ''}\n${best.heading}\n${best.content}`);
    }
    const weights = req.weights ?? { vector: 1, keyword: 1 };
    // Literal: the query's words occur as written somewhere, or its English words in its best keyword hit.
    const literalQuery = literal.size > 0 || englishShare >= this.tuning.literal;
    if (expanded) {
      // Weighing expansions reads the texts of their hits.
      await chunks.loadTexts([...new Set([...(structured ? [] : ex.map((h) => h.ref)), ...exOwn.map((h) => h.ref)])]);
      const textOf = (ref: number) => {
        const h = chunks.texts.get(ref);
        return h ? `${h.heading}\n${h.content}` : '';
      };
      const vectorText = !literalQuery && this.tuning.expandVector ? `${q} ${[...own, ...shared].map((e) => e.term).join(' ')}` : q;
      vec = await vectorLeg(vectorText);
      if (ex.length) {
        const weight = (literalQuery ? this.tuning.literalWeight : exOwn.length ? this.tuning.besideProfile : this.tuning.weight) * weights.keyword;
        // A concept score already holds its terms' weights.
        lists.push({ field: 'expansion', list: ex, weight, weightOf: structured ? () => 1 : (h) => expansionWeightOf(textOf(h.ref), shared) });
      }
      if (exOwn.length) {
        const weight = (this.tuning.profile ?? ownWeight) * weights.keyword;
        lists.push({ field: 'profileExpansion', list: exOwn, weight, weightOf: (h) => expansionWeightOf(textOf(h.ref), own) });
      }
    }
    return { kw, vec, lists, literal, fullCover, literalQuery, weights };
  }

  /**
   * The per-query decision (trust.ts): from what the query's own lists show — its words found as
   * written, the share of its terms one passage holds, how far the keyword list's first stands out
   * — what fusion must keep. Single-list modes have nothing to decide.
   */
  private weigh(plan: SearchPlan, got: Retrieved): ListTrust | null {
    if (plan.req.mode !== 'hybrid') return null;
    return listTrust(queryEvidence(got.kw, plan.termCount, got.literalQuery, plan.req.query, got.literal.size > 0), this.trustTuning);
  }

  /**
   * Fusion, in order, of the RRF list the prior weighed (`merge`, `weighByPrior`): the passages holding every word of the
   * query ahead of those only its expansions brought (when its words are found); the keyword list's
   * first kept near the top when the query's words pick it out clearly, passing only what the
   * lists agree on less; the literal matches first.
   */
  private fuse(plan: SearchPlan, got: Retrieved, trust: ListTrust | null, fused: Candidate[]): Candidate[] {
    let list = fused;
    if (trust?.fullCoverFirst && got.lists.length) {
      list = fullCoverFirst(list, got.fullCover);
      // Most of the query's own words in a passage outweigh a synonym: the expansions' votes lift no passage over it.
      const holders = new Set(got.kw.filter((h) => h.terms !== undefined && h.terms >= this.trustTuning.found * plan.termCount).map((h) => h.ref));
      list = ownWordsFirst(list, holders, (c) => ownListsScore(c, got.weights));
    }
    if (trust) {
      // What the profile's prior counts less than the leader (a README, a test) the lists' agreement does not hold above it.
      const agreed = leaderPasses(trust, this.trustTuning);
      const leader = got.kw[0]?.ref;
      const factor = (ref: number | undefined) => (ref === undefined ? 1 : (plan.priors.get(ref) ?? 1));
      // A leader the prior counts less (a README, a test holding the question's words) keeps its fused place.
      if (factor(leader) >= 1) list = placeAtLeast(list, leader, trust.keywordLeaderAt, (c) => agreed(c) || factor(c.ref) < factor(leader));
    }
    if (trust?.literalByKeyword) list = literalByKeyword(list, got.literal);
    return literalFirst(list, got.literal);
  }

  /** Reciprocal rank fusion of the lists; single-list modes keep the list's own score (cosine or -bm25) rather than RRF's. */
  private merge(plan: SearchPlan, got: Retrieved): Candidate[] {
    const list = rrf(got.vec, got.kw, got.weights, got.lists);
    return plan.req.mode === 'hybrid' ? list : list.map((c) => ({ ...c, score: (c.vector ?? c.keyword)!.score }));
  }

  /**
   * Near-duplicates collapsed, the per-document cap, temporal decay and MMR. Texts are read only
   * for the candidates these read. Null when the vector head the plan read (vectorN < pool) ran
   * short after collapse: the caller runs again at full depth.
   */
  private async collapse(plan: SearchPlan, fused: Candidate[], chunks: ChunkCache, vectorHits: number): Promise<Candidate[] | null> {
    const { req, needAll, perDoc, thins, vectorN, pool } = plan;
    const { k, mmr: lambda } = req;
    let list = fused;
    // Texts for the head of the fused list (`from`: the steps below reassign `list`).
    const load = async (from: Candidate[], upTo: number) => {
      const head = from.slice(0, upTo);
      await chunks.loadTexts(head.map((c) => c.ref));
      for (const c of head) c.content ||= chunks.texts.get(c.ref)?.content ?? '';
    };
    // Without dedupe the top k are the answer; with it, texts are read for a few more than k (the
    // usual collapses), then for the head the vector leg ranked, then for all, while collapse runs short.
    const first = needAll ? list.length : thins ? Math.min(k + 2, list.length) : k;
    await load(list, first);
    const limit = needAll ? Infinity : k;
    // Collapse is greedy in rank order (so is the cap): k survivors among the loaded head are the k it would keep.
    const thin = (head: Candidate[], all: number) => {
      const kept = req.dedupe ? collapseDuplicates(head, 0.9, perDoc ? Infinity : limit) : head;
      // Chunks beyond the cap fill the places left only once every candidate is read.
      return perDoc ? capPerDocument(kept, perDoc, (c) => chunks.texts.get(c.ref)?.doc, limit, head.length >= all) : kept;
    };
    if (req.halfLifeDays) {
      await chunks.loadHits(list.map((c) => c.ref));
      for (const c of list) {
        if (!chunks.hits.has(c.ref)) continue;
        const r = chunks.resultOf(c.ref);
        c.date = str(r.fields.date) ?? str(r.metadata.date);
      }
    }
    if (thins) {
      const all = list;
      list = thin(all.slice(0, first), all.length);
      let loaded = first;
      for (const more of [2 * k + 8, all.length]) {
        if (list.length >= k || loaded >= all.length) break;
        const n = Math.min(more, all.length);
        if (n <= loaded) continue;
        for (const c of all) delete c.duplicates;
        await load(all, n);
        list = thin(all.slice(0, n), all.length);
        loaded = n;
      }
    } else if (!needAll) list = list.slice(0, k);
    if (vectorN < pool && list.length < k && vectorHits === vectorN) return null;
    if (req.halfLifeDays) list = temporalDecay(list, req.halfLifeDays);
    return mmr(list, lambda < 1 ? k : list.length, lambda);
  }

  /** The reranker over the top N, when there is one and the request wants it; on failure the order stands. */
  private async rerankStage(plan: SearchPlan, list: Candidate[]): Promise<{ list: Candidate[]; reranked: boolean | null; error?: string; scores?: Map<number, number> }> {
    const { req } = plan;
    if (!this.reranker || !req.rerank || !list.length) return { list, reranked: null };
    const r = await this.rerankTop(req.query, list, req.k);
    return { list: r.list, reranked: !r.error, error: r.error, scores: r.scores };
  }

  /** The top k as results: minScore applied, chunks a sync removed meanwhile dropped, explain attached. */
  private async present(plan: SearchPlan, ranked: Candidate[], chunks: ChunkCache, rerankScores?: Map<number, number>): Promise<SearchResult[]> {
    const { req } = plan;
    const { k, mode } = req;
    let list = ranked;
    if (req.minScore !== undefined) list = list.filter((c) => c.score >= req.minScore!);
    // A chunk a sync removed between ranking and loading is dropped.
    list = list.filter((c) => chunks.texts.has(c.ref));
    await chunks.loadHits(list.slice(0, k).map((c) => c.ref));
    list = list.filter((c) => chunks.hits.has(c.ref));
    const top = list.slice(0, k).map((c) => {
      const r = { ...chunks.resultOf(c.ref), score: c.score };
      if (req.explain) {
        r.explain = {
          mode,
          vector: c.vector ?? null,
          keyword: c.keyword ?? null,
          decay: c.decay ?? null,
          duplicates: c.duplicates?.length ?? 0,
          expansion: c.expansion ?? null,
          profileExpansion: c.profileExpansion ?? null,
          literal: !!c.literal,
          ...(plan.priors.has(c.ref) ? { prior: plan.priors.get(c.ref)! } : {}),
          ...(rerankScores?.has(c.ref) ? { rerank: rerankScores.get(c.ref)! } : {}),
        };
      }
      return r;
    });
    if (!top.length) await this.checkUnknownValues(req.filters);
    return top;
  }

  /**
   * Scores differ by mode: hybrid gives fused RRF scores (at most (vector + keyword weight) / 61,
   * 0.0328 with the default weights), vector cosine similarity (at most 1), keyword -bm25 (no
   * bound). A threshold no result can reach is refused rather than answered with nothing.
   */
  private checkMinScore(req: SearchRequest, ex: Expansions): void {
    if (req.minScore === undefined) return;
    const reranked = !!this.reranker && req.rerank;
    const w = req.weights ?? { vector: 1, keyword: 1 };
    // A query with expansions has more lists: the expansion terms' keyword hits, and a profile's own.
    const extra =
      (ex.shared.length ? Math.max(this.tuning.weight, this.tuning.literalWeight, this.tuning.besideProfile) : 0) + (ex.own.length ? (this.tuning.profile ?? ex.ownWeight) : 0);
    const expanded = extra > 0;
    const ceiling = req.mode === 'hybrid' && !reranked ? (w.vector + w.keyword + extra * w.keyword) / (RRF_K + 1) : req.mode === 'vector' ? 1 : Infinity;
    if (req.minScore > ceiling) {
      const scale =
        req.mode === 'hybrid'
          ? `fused (RRF) scores are at most ${ceiling.toFixed(4)} with weights ${w.vector},${w.keyword}${expanded ? " and this query's expansions" : ''}`
          : 'cosine scores are at most 1';
      throw usage(`minScore ${req.minScore} can never be met in ${req.mode} mode: ${scale} (see "Scores" in docs/search.md)`);
    }
  }

  /**
   * Nothing matched: a filter value that no chunk in the index has (a tag, a month, a book key the
   * profile does not list) is a typo, refused naming the closest known values rather than answered
   * with an empty list. Only then are the values looked up, so a search that finds something pays nothing.
   */
  private async checkUnknownValues(filters: SearchRequest['filters'] | undefined): Promise<void> {
    for (const u of valuesToCheck(filters, this.filterSpecs())) {
      if (await this.store.anyChunk({ where: [u.condition], includeBroken: true })) continue;
      const shape = knownShape(u.spec);
      const held = u.spec.knownFromIndex && shape ? await this.store.fieldValues(u.spec.fields, shape) : [];
      throw unknownValueError(u.spec, u.value, [...(u.spec.values ?? []), ...held]);
    }
  }

  /**
   * The documents most similar to a given one (by source + path, or a chunk id), as whole
   * documents: the mean of its chunk vectors against each candidate document's (the candidates:
   * the documents of the chunks nearest its mean), averaged with the candidate's best chunk, itself
   * excluded. One chunk that happens to match no longer decides alone.
   */
  /** "(did you mean classics:穷通宝鉴.md?)" for a document name that matched none, or nothing when the index is empty. */
  private async closestDocument(what: string): Promise<string> {
    const known = (await this.store.documentPaths()).map((d) => `${d.source}:${d.path}`);
    const [best] = closestValues(what.replace(/:\d+(-\d+)?$/, ''), known, 1);
    return best ? ` (did you mean ${best}?)` : '';
  }

  async related(
    ref: string | { source?: string; path?: string; id?: string },
    opts: { k?: number; sources?: string[]; filters?: SearchRequest['filters']; path?: string } = {},
  ): Promise<SearchResult[]> {
    const k = opts.k ?? DEFAULT_K;
    if (!Number.isInteger(k) || k < 1 || k > MAX_K) throw usage(`k must be 1..${MAX_K} (got ${k})`);
    ref = await resolveDocRef(ref, (r) => this.store.findChunks(r));
    if (!ref.path && !ref.id) throw usage('related needs a path or an id');
    const what = `${ref.source ? ref.source + ':' : ''}${ref.path ?? ref.id}`;
    const found = await this.store.findChunks(ref);
    if (!found.length) throw usage(`not in the index: ${what}${await this.closestDocument(what)}`);
    const docs = new Map<string, StoredHit>();
    for (const h of await this.store.getChunks(found, { includeBroken: true })) docs.set(`${h.source}\u0000${h.path}`, h);
    if (docs.size > 1) {
      throw usage(`"${what}" names ${docs.size} documents (${[...new Set([...docs.values()].map((h) => h.source))].join(', ')}): pass a source`);
    }
    const self = [...docs.values()][0]!;
    // A chunk id stands for its whole document.
    const own = await this.store.findChunks({ source: self.source, path: self.path });
    const centroid = await this.meanVector(own);
    if (!centroid) return [];
    const filter = this.filterOf({ filters: {}, includeBroken: false, ...opts });
    const isSelf = (h: StoredHit) => h.source === self.source && h.path === self.path;
    // Candidates: the documents of the chunks nearest the mean, enough of them to re-rank.
    const want = Math.max(2 * k, 20);
    let pool = want * 4;
    let best = new Map<string, StoredHit>();
    for (;;) {
      const hits = (await this.vectorHits(centroid, pool, filter, new Set(own))).filter((h) => !isSelf(h));
      best = new Map<string, StoredHit>();
      for (const h of hits) {
        const key = `${h.source}\u0000${h.path}`;
        if (!best.has(key)) best.set(key, h); // hits are best-first
      }
      if (!best.size) await this.checkUnknownValues(opts.filters);
      if (best.size >= want || hits.length < pool) break;
      pool *= 4;
    }
    const scored: { h: StoredHit; score: number }[] = [];
    for (const h of best.values()) {
      const mean = await this.meanVector(await this.store.findChunks({ source: h.source, path: h.path }));
      // The whole document's likeness and its best passage's, in equal parts (measured: docs/benchmarks/literal-and-expansions.md).
      scored.push({ h, score: mean ? (cosine(centroid, mean) + h.score) / 2 : h.score });
    }
    scored.sort((a, b) => b.score - a.score);
    return scored.slice(0, k).map(({ h, score }) => this.toResult(h, score));
  }

  /** The mean of some chunks' vectors, each scaled to unit length (null when none has one). */
  private async meanVector(refs: number[]): Promise<Float32Array | null> {
    const vectors = await this.store.vectorsOf(this.embedder.info.fingerprint, refs);
    let mean: Float32Array | null = null;
    for (const r of refs) {
      const v = vectors.get(r);
      if (!v || (mean && v.length !== mean.length)) continue;
      normalizeRows(v, v.length);
      mean ??= new Float32Array(v.length);
      for (let j = 0; j < v.length; j++) mean[j]! += v[j]!;
    }
    return mean;
  }

  async close(): Promise<void> {
    await this.store.close();
    await this.embedder.close?.();
    await this.reranker?.close?.();
  }
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) (dot += a[i]! * b[i]!), (na += a[i]! * a[i]!), (nb += b[i]! * b[i]!);
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/** A Searcher, or a Config the engine opens one from on first use (and keeps open): what the agent tools take. */
export type SearcherLike = Searcher | Config;

/** A Searcher, or how to get one when first needed. */
export type SearcherSource = Searcher | (() => Promise<Searcher>);

/** The searcher of a source, asked for once. */
export function lazySearcher(s: SearcherSource): () => Promise<Searcher> {
  if (s instanceof Searcher) return () => Promise.resolve(s);
  let open: Promise<Searcher> | null = null;
  return () => (open ??= s());
}

// zod/mini (see config/schema.ts): every search parses its request here.
import * as z from 'zod/mini';
import '../config/zod-english.ts';
import { describeIssue } from '../config/load.ts';
import { RagsyncError, EXIT } from '../core/errors.ts';

/**
 * One search request, the contract every way in shares (CLI flags, HTTP parameters, MCP and AI SDK
 * tool inputs are each mapped onto it and validated here). Profile filters (book, tag, month …) go
 * under `filters` by name; which names exist depends on the profiles in force (search/filters.ts).
 */

export const MODES = ['vector', 'keyword', 'hybrid'] as const;
export type SearchMode = (typeof MODES)[number];

export const DEFAULT_K = 10;
export const MAX_K = 100;
export const MAX_QUERY_CHARS = 1000;
/** Results one document may give a hybrid search by default (measured: docs/benchmarks/literal-and-expansions.md). */
export const DEFAULT_PER_DOC = 3;
/** A query sent in a request body (POST /search, MCP, answers): a whole chart reading fits. */
export const MAX_BODY_QUERY_CHARS = 8000;
/** Most values of one list (sources, one filter's values): beyond it a request is refused, not slow. */
export const MAX_LIST = 64;

const list = z.array(z.string().check(z.trim(), z.minLength(1), z.maxLength(200))).check(z.maxLength(MAX_LIST, { error: `at most ${MAX_LIST} values` }));

export const searchOptionsSchema = z.strictObject({
  k: z._default(z.number().check(z.int(), z.minimum(1), z.maximum(MAX_K)), DEFAULT_K),
  mode: z._default(z.enum(MODES, { error: (iss) => `mode must be one of ${MODES.join('|')} (got ${JSON.stringify(iss.input)})` }), 'hybrid'),
  /** Only these sources (default: all). */
  sources: z.optional(list),
  /** picomatch glob on the document path. */
  path: z.optional(z.string().check(z.trim(), z.minLength(1, { error: 'path glob is empty' }), z.maxLength(500))),
  /** Results scoring below are dropped (the score of the mode: cosine, -bm25 or RRF). */
  minScore: z.optional(z.number()),
  /** RRF weights of the vector and keyword lists (default 1 and 1). */
  weights: z.optional(
    z
      .object({ vector: z._default(z.number().check(z.minimum(0)), 1), keyword: z._default(z.number().check(z.minimum(0)), 1) })
      .check(z.refine((w) => w.vector + w.keyword > 0, { error: 'weights must not both be 0' })),
  ),
  /** MMR lambda in (0, 1]; 1 = no diversification. */
  mmr: z._default(z.number().check(z.gt(0, { error: 'mmr must be in (0, 1]' }), z.maximum(1, { error: 'mmr must be in (0, 1]' })), 1),
  /** Collapse identical / near-identical texts. */
  dedupe: z._default(z.boolean(), true),
  /**
   * At most this many results from one document (0: no cap). Default: DEFAULT_PER_DOC in hybrid
   * mode, no cap in the single-list modes.
   */
  perDoc: z.optional(z.number().check(z.int({ error: 'perDoc must be a whole number' }), z.minimum(0, { error: 'perDoc must be ≥ 0' }), z.maximum(MAX_K))),
  /** Temporal decay half-life in days on the results' date; off by default. */
  halfLifeDays: z.optional(z.number().check(z.positive({ error: 'halfLifeDays must be > 0' }))),
  /** Keep chunks a chunker marked broken. */
  includeBroken: z._default(z.boolean(), false),
  /** Attach each result's component ranks and scores. */
  explain: z._default(z.boolean(), false),
  /**
   * Add expansions (a profile's synonyms and glossary, the corpus lexicon's Chinese words for
   * English ones) as secondary terms; false searches the query's own words only.
   */
  expand: z._default(z.boolean(), true),
  /** Apply the searcher's reranker to the fused top N (when one is configured). */
  rerank: z._default(z.boolean(), true),
  /** Profile filters by name: one value, or several for repeatable ones (held as a list either way). */
  filters: z._default(z.record(z.string(), z.pipe(z.transform((v: unknown) => (typeof v === 'string' ? [v] : v)), list)), {}),
});

const requestSchema = (max: number) =>
  z.extend(searchOptionsSchema, {
    query: z.string().check(z.trim(), z.minLength(1, { error: 'empty query' }), z.maxLength(max, { error: `query longer than ${max} characters` })),
  });

export const searchRequestSchema = requestSchema(MAX_QUERY_CHARS);
const bodyRequestSchema = requestSchema(MAX_BODY_QUERY_CHARS);

export type SearchOptions = z.input<typeof searchOptionsSchema>;
export type SearchRequest = z.output<typeof searchRequestSchema>;

/** Validates a request; a bad field is a usage error naming the field and the value. */
export function parseSearchRequest(input: unknown, from: 'params' | 'body' = 'params'): SearchRequest {
  const parsed = (from === 'body' ? bodyRequestSchema : searchRequestSchema).safeParse(input, { reportInput: true });
  if (!parsed.success) throw new RagsyncError(describeIssue(parsed.error.issues[0]!), EXIT.usage);
  return parsed.data;
}

/** "1,2" → RRF weights {vector: 1, keyword: 2} (each ≥ 0, not both 0). */
export function parseWeights(v: string): { vector: number; keyword: number } {
  const m = /^\s*([\d.]+)\s*,\s*([\d.]+)\s*$/.exec(v);
  const w = m ? { vector: Number(m[1]), keyword: Number(m[2]) } : null;
  if (!w || !Number.isFinite(w.vector) || !Number.isFinite(w.keyword) || w.vector + w.keyword <= 0) {
    throw new RagsyncError(`weights must be "VECTOR,KEYWORD" non-negative numbers (got "${v}")`, EXIT.usage);
  }
  return w;
}

import { z } from 'zod';
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
/** Most values of one list (sources, one filter's values): beyond it a request is refused, not slow. */
export const MAX_LIST = 64;

const list = z.array(z.string().trim().min(1).max(200)).max(MAX_LIST, { error: `at most ${MAX_LIST} values` });

export const searchOptionsSchema = z
  .object({
    k: z.number().int().min(1).max(MAX_K).default(DEFAULT_K),
    mode: z.enum(MODES, { error: (iss) => `mode must be one of ${MODES.join('|')} (got ${JSON.stringify(iss.input)})` }).default('hybrid'),
    /** Only these sources (default: all). */
    sources: list.optional(),
    /** picomatch glob on the document path. */
    path: z.string().trim().min(1, { error: 'path glob is empty' }).max(500).optional(),
    /** Results scoring below are dropped (the score of the mode: cosine, -bm25 or RRF). */
    minScore: z.number().finite().optional(),
    /** RRF weights of the vector and keyword lists (default 1 and 1). */
    weights: z
      .object({ vector: z.number().min(0).finite().default(1), keyword: z.number().min(0).finite().default(1) })
      .refine((w) => w.vector + w.keyword > 0, { error: 'weights must not both be 0' })
      .optional(),
    /** MMR lambda in (0, 1]; 1 = no diversification. */
    mmr: z.number().gt(0, { error: 'mmr must be in (0, 1]' }).max(1, { error: 'mmr must be in (0, 1]' }).default(1),
    /** Collapse identical / near-identical texts. */
    dedupe: z.boolean().default(true),
    /** Temporal decay half-life in days on the results' date; off by default. */
    halfLifeDays: z.number().positive({ error: 'halfLifeDays must be > 0' }).optional(),
    /** Keep chunks a chunker marked broken. */
    includeBroken: z.boolean().default(false),
    /** Attach each result's component ranks and scores. */
    explain: z.boolean().default(false),
    /**
     * Add expansions (a profile's synonyms and glossary, the corpus lexicon's Chinese words for
     * English ones) as secondary terms; false searches the query's own words only.
     */
    expand: z.boolean().default(true),
    /** Apply the searcher's reranker to the fused top N (when one is configured). */
    rerank: z.boolean().default(true),
    /** Profile filters by name: one value, or several for repeatable ones (held as a list either way). */
    filters: z.record(z.string(), z.preprocess((v) => (typeof v === 'string' ? [v] : v), list)).default({}),
  })
  .strict();

export const searchRequestSchema = searchOptionsSchema.extend({
  query: z.string().trim().min(1, { error: 'empty query' }).max(MAX_QUERY_CHARS, { error: `query longer than ${MAX_QUERY_CHARS} characters` }),
});

export type SearchOptions = z.input<typeof searchOptionsSchema>;
export type SearchRequest = z.output<typeof searchRequestSchema>;

/** Validates a request; a bad field is a usage error naming the field and the value. */
export function parseSearchRequest(input: unknown): SearchRequest {
  const parsed = searchRequestSchema.safeParse(input, { reportInput: true });
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

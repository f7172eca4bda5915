import { DEFAULT_PER_DOC, MAX_K, MODES, type SearchRequest } from './request.ts';

/**
 * The search contract's fields as the ways in expose them: HTTP parameters (server/params.ts),
 * the MCP tool's and the AI SDK tool's input schemas (search/filter-fields.ts) are all generated
 * from this list, so none drifts from request.ts. A test holds the list equal to the request
 * schema's keys. Profile filters are not here: they come from the profiles in force.
 */
export interface ContractField {
  /** The field of SearchRequest. */
  name: Exclude<keyof SearchRequest, 'filters'>;
  kind: 'string' | 'int' | 'number' | 'bool' | 'mode' | 'list' | 'weights';
  description: string;
  /** HTTP GET's parameter name, where it differs (kept so existing links work; the field's own name is accepted too). */
  param?: string;
  min?: number;
  max?: number;
}

export const SEARCH_FIELDS: readonly ContractField[] = [
  { name: 'query', kind: 'string', param: 'q', description: 'what to look for' },
  { name: 'k', kind: 'int', min: 1, max: MAX_K, description: 'number of results (default 10)' },
  { name: 'mode', kind: 'mode', description: `${MODES.join(' | ')} (default hybrid)` },
  { name: 'sources', kind: 'list', param: 'source', description: 'only these sources' },
  { name: 'path', kind: 'string', description: 'document path glob' },
  { name: 'minScore', kind: 'number', description: 'drop results scoring below (cosine, -bm25 or RRF, by mode)' },
  { name: 'weights', kind: 'weights', description: 'RRF weights of the vector and keyword lists (default 1 and 1)' },
  { name: 'mmr', kind: 'number', description: 'diversify with MMR (0..1, 1 = off)' },
  { name: 'dedupe', kind: 'bool', description: 'collapse near-identical passages (default true)' },
  { name: 'perDoc', kind: 'int', min: 0, max: MAX_K, description: `at most this many results from one document (default ${DEFAULT_PER_DOC} in hybrid mode; 0 = no cap)` },
  { name: 'halfLifeDays', kind: 'number', param: 'halfLife', description: "temporal decay half-life in days on the results' date" },
  { name: 'includeBroken', kind: 'bool', description: 'include chunks marked broken' },
  { name: 'explain', kind: 'bool', description: "attach component ranks and scores, and list the query's expansions" },
  { name: 'expand', kind: 'bool', description: 'add synonyms, glossary and cross-lingual terms as secondary terms (default true)' },
  { name: 'rerank', kind: 'bool', description: 'apply the configured reranker to the fused top N (default true)' },
];

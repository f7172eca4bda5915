// The library: what the CLI, the HTTP server and the agent tool are built from.
export { loadConfig, parseConfig, type Config, type SourceConfig } from './config/load.ts';
export { indexRun, runIndex, type IndexOptions, type IndexResult, type SourceResult } from './sync/run.ts';
export type { Progress } from './sync/apply.ts';
export {
  search,
  Searcher,
  MODES,
  type SearchOptions,
  type SearchResult,
  type SearchMode,
  type Explain,
} from './search/search.ts';
export { BOOKS, type BookKey, type FilterOptions } from './search/filters.ts';
export { setSearchNormalizer } from './search/tokenize.ts';
export { SqliteStore } from './storage/sqlite.ts';
export type { Store, ChunkFilter, ChunkHit } from './storage/types.ts';
export { HashEmbedder } from './embedding/hash.ts';
export type { Embedder } from './embedding/types.ts';
export { withEmbedderDimensions } from './embedding/remote/detect.ts';
export { createChunker } from './chunking/registry.ts';
export { RagsyncError, EXIT } from './util/errors.ts';
export { normalizeForSearch, toSimplified } from './text/normalize.ts';
export { keywordsOf, LEXICON } from './chunking/classics/lexicon.ts';

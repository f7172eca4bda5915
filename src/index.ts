// The library: what the CLI, the HTTP server and the agent tools are built from.
export { loadConfig, parseConfig, builtinProfiles } from './builtin.ts';
export type { Config, SourceConfig } from './config/load.ts';
export { indexRun, runIndex, type IndexOptions, type IndexResult, type SourceResult } from './sync/run.ts';
export type { Progress } from './sync/apply.ts';
export { Searcher, type SearchResult, type Explain, type SearchResponse } from './search/search.ts';
export { MODES, parseSearchRequest, searchRequestSchema, type SearchOptions, type SearchRequest, type SearchMode } from './search/request.ts';
export { openIndex } from './storage/open.ts';
export type { IndexWriter, IndexReader, RunLog, RunHistory, SyncStore, SearchStore, AdminStore } from './storage/roles.ts';
export type { ChunkFilter, ChunkHit, Chunker, ChunkerFactory, WorkCounts } from './core/types.ts';
export { createProfileRegistry, type Profile, type ProfileRegistry, type FilterSpec } from './core/profile.ts';
export { defaultAnalyzer, type Analyzer } from './core/text/analyzer.ts';
export { HashEmbedder } from './embedding/hash.ts';
export type { Embedder } from './embedding/types.ts';
export { withEmbedderDimensions } from './embedding/remote/detect.ts';
export { RagsyncError, EXIT } from './core/errors.ts';

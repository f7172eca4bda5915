// The library: what the CLI, the HTTP server and the agent tools are built from.
export { loadConfig, parseConfig, builtinProfiles } from './builtin.ts';
export type { Config, SourceConfig } from './config/load.ts';
export type { IndexOptions, IndexResult, SourceResult } from './sync/run.ts';
export { openEngine, Engine, type EngineOptions, type Lifetime } from './engine/engine.ts';
export { indexRun, runIndex, search, openSearcher } from './engine/library.ts';
export type { Progress } from './sync/apply.ts';
export { Searcher, type SearchResult, type Explain, type SearchResponse, type SearcherOptions } from './search/search.ts';
export type { Reranker } from './search/rerank.ts';
export { MODES, parseSearchRequest, searchRequestSchema, type SearchOptions, type SearchRequest, type SearchMode } from './search/request.ts';
export { indexes } from './engine/engine.ts';
export type { IndexWriter, IndexReader, RunLog, RunHistory, SyncStore, SearchStore, AdminStore } from './storage/roles.ts';
export type { ChunkFilter, ChunkHit, Chunker, ChunkerFactory, WorkCounts } from './core/types.ts';
export { createProfileRegistry, type Profile, type ProfileRegistry, type FilterSpec } from './core/profile.ts';
export { defaultAnalyzer, type Analyzer } from './core/text/analyzer.ts';
export { HashEmbedder } from './embedding/hash.ts';
export type { Embedder } from './embedding/types.ts';
export { withEmbedderDimensions } from './embedding/remote/detect.ts';
export { RagsyncError, EXIT } from './core/errors.ts';

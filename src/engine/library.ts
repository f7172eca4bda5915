import type { Config } from '../config/load.ts';
import { createEmbedder } from '../embedding/create.ts';
import type { Embedder } from '../embedding/types.ts';
import type { Reranker } from '../search/rerank.ts';
import type { SearchOptions } from '../search/request.ts';
import { Searcher, type SearcherLike, type SearcherOptions, type SearcherSource, type SearchResult } from '../search/search.ts';
import { openIndex } from '../storage/open.ts';
import type { Progress } from '../sync/apply.ts';
import type { IndexOptions, IndexResult } from '../sync/run-result.ts';
import { openEngine } from './engine.ts';

/** The library's one-call forms, each over an engine opened for the call. */

/** One index run as an async generator of progress events returning the run's result. */
export async function* indexRun(config: Config, opts: IndexOptions = {}): AsyncGenerator<Progress, IndexResult> {
  const engine = openEngine(config, { lifetime: 'one-shot', log: opts.log, embedder: opts.embedder });
  try {
    return yield* engine.indexRun(opts);
  } finally {
    await engine.close();
  }
}

/** One index run to the end, each progress event handed to `onProgress`. */
export async function runIndex(config: Config, opts: IndexOptions = {}, onProgress?: (p: Progress) => void): Promise<IndexResult> {
  const engine = openEngine(config, { lifetime: 'one-shot', log: opts.log, embedder: opts.embedder });
  try {
    return await engine.index(opts, onProgress);
  } finally {
    await engine.close();
  }
}

/** One search: the configured embedder and reranker, the one-shot strategy; closed after. */
export async function search(config: Config, query: string, opts: SearchOptions = {}): Promise<SearchResult[]> {
  const engine = openEngine(config, { lifetime: 'one-shot' });
  try {
    return await (await engine.searcher()).search(query, opts);
  } finally {
    await engine.close();
  }
}

/**
 * A searcher from exactly these parts (no reranker unless given; the embedder's size must be known):
 * for a library user assembling their own. `openEngine(config).searcher()` is the configured one.
 */
export function openSearcher(config: Config, embedder?: Embedder, reranker?: Reranker | null, opts: SearcherOptions = {}): Searcher {
  return new Searcher(openIndex(config, 'search', { oneShot: opts.oneShot }), embedder ?? createEmbedder(config.embedder), config, reranker ?? null, opts);
}

/** What an agent tool searches: the Searcher given, or the configured one of a long-lived engine over the Config. */
export function searcherSource(s: SearcherLike): SearcherSource {
  if (s instanceof Searcher) return s;
  let engine: ReturnType<typeof openEngine> | null = null;
  return () => (engine ??= openEngine(s, { lifetime: 'long-lived' })).searcher();
}
export type { IndexOptions, IndexResult } from '../sync/run-result.ts';

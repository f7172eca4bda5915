import { existsSync } from 'node:fs';
import type { Config } from '../config/load.ts';
import { createEmbedder } from '../embedding/create.ts';
import type { Embedder } from '../embedding/types.ts';
import { SqliteStore } from '../storage/sqlite.ts';
import type { ChunkHit, Store } from '../storage/types.ts';
import { RagsyncError, EXIT } from '../util/errors.ts';
import { selectSources } from '../sync/run.ts';

export interface SearchOptions {
  k?: number;
  /** Only these sources (default: all). */
  sources?: string[];
}

export type SearchResult = ChunkHit;

export const DEFAULT_K = 10;
export const MAX_K = 100;

/** A long-lived search handle (the HTTP server and the agent tool keep one open). */
export class Searcher {
  private constructor(
    readonly config: Config,
    private readonly store: Store,
    readonly embedder: Embedder,
  ) {}

  static open(config: Config, embedder?: Embedder): Searcher {
    if (!existsSync(config.db)) {
      throw new RagsyncError(`no index at ${config.db}: run "ragsync index" first`, EXIT.failed);
    }
    return new Searcher(config, new SqliteStore(config.db, { readonly: true }), embedder ?? createEmbedder(config.embedder));
  }

  /** Exact cosine top-k over the configured embedder's vectors. Results never carry vectors. */
  async search(query: string, opts: SearchOptions = {}): Promise<SearchResult[]> {
    const q = query.trim();
    if (!q) throw new RagsyncError('empty query', EXIT.usage);
    const k = opts.k ?? DEFAULT_K;
    if (!Number.isInteger(k) || k < 1 || k > MAX_K) throw new RagsyncError(`k must be 1..${MAX_K} (got ${k})`, EXIT.usage);
    const sources = opts.sources?.length ? selectSources(this.config, opts.sources).map((s) => s.name) : undefined;
    const [vector] = await this.embedder.embed([q], { purpose: 'query' });
    return this.store.searchVectors({ fingerprint: this.embedder.info.fingerprint, vector: vector!, k, sources });
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

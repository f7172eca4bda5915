import type { Config, SourceConfig } from '../config/load.ts';
import type { Logger } from '../core/log.ts';
import type { Engine } from '../engine/engine.ts';
import type { RemoveResult, SourceListing } from '../sync/manage-sources.ts';
import type { IndexOptions, IndexResult } from '../sync/run-result.ts';

/** What the code and doc indexers use of their knowledge manager. */
export interface KnowledgeCore {
  readonly configFile: string;
  readonly log: Logger;
  readonly config: Config;
  engine(): Engine;
  reload(): Promise<void>;
  index(opts: IndexOptions): Promise<IndexResult>;
  sourcesOf(kind: 'code' | 'docs'): SourceConfig[];
  addDocSource(url: string, opts?: AddDocSourceOptions): Promise<{ source: SourceListing; result: IndexResult | null }>;
  removeDocSource(name: string): Promise<RemoveResult>;
  crawlDocs(opts?: { force?: boolean }): Promise<IndexResult | null>;
}

/** What the index holds of one kind of source. */
export interface KindStats {
  sources: number;
  documents: number;
  chunks: number;
}

export interface AddDocSourceOptions {
  name?: string;
  include?: string[];
  exclude?: string[];
  /** Crawl it now (default false: `crawlSource` or `crawlDocs` later). */
  crawl?: boolean;
}

/** Code sources are those chunked as code; every other source is documentation. */
export const isCodeSource = (s: Pick<SourceConfig, 'chunker'>) => s.chunker === 'code';

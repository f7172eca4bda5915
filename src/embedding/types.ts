import type { EmbedderInfo } from '../core/types.ts';

export interface EmbedStats {
  /** Calls made to the provider (retries included). */
  requests: number;
  /** Estimated tokens sent. */
  tokens: number;
  retries: number;
}

export interface Embedder {
  /** provider, model, dims and anything else that changes vectors: the key vectors are stored under. */
  readonly info: EmbedderInfo;
  /** How many texts one embed() call should carry. */
  readonly batchSize: number;
  /** Whether vectors come back L2-normalised (search then needs no norms). */
  readonly normalized: boolean;
  /** How many embed() calls may usefully run at once (default 1). */
  readonly concurrency?: number;
  /** One vector per text, in order. Throws rather than return a partial or malformed batch. */
  embed(texts: string[], opts?: { signal?: AbortSignal; purpose?: 'document' | 'query' }): Promise<Float32Array[]>;
  readonly stats: EmbedStats;
  /** Where a remote embedder sends its requests, credentials removed (named in its errors). */
  readonly endpoint?: string;
  /** Throws (a usage error) when the embedder cannot work at all, e.g. its API key is not set. */
  ready?(): void;
  close?(): Promise<void>;
}

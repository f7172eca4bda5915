/**
 * The storage interface sync and search are written against. It is deliberately narrow and async so
 * that a second backend (Postgres + pgvector) can implement it without touching either.
 */

export interface SourceInfo {
  name: string;
  kind: 'git' | 'dir';
  url: string | null;
  branch: string | null;
}

export interface SourceState extends SourceInfo {
  commit: string | null;
  indexedAt: string | null;
  documents: number;
  chunks: number;
}

/** What the manifest knows of one indexed file. */
export interface StoredDocument {
  path: string;
  contentHash: string;
  stamp: string;
  size: number;
  chunker: string;
}

export interface ChunkRecord {
  ordinal: number;
  key: string;
  heading: string;
  content: string;
  /** Exact text sent to the embedder. */
  text: string;
  textHash: string;
  tokens: number;
  metadata: Record<string, unknown>;
}

export interface DocumentRecord extends StoredDocument {
  title: string | null;
  metadata: Record<string, unknown>;
  chunks: ChunkRecord[];
}

export interface EmbedderInfo {
  fingerprint: string;
  provider: string;
  model: string;
  dims: number;
}

export interface VectorRecord {
  textHash: string;
  vector: Float32Array;
}

export interface VectorQuery {
  fingerprint: string;
  vector: Float32Array;
  k: number;
  sources?: string[];
}

/** One search hit; never carries a vector. */
export interface ChunkHit {
  id: string;
  source: string;
  path: string;
  title: string | null;
  heading: string;
  content: string;
  metadata: Record<string, unknown>;
  score: number;
}

/**
 * Filters over chunk/document metadata (chunkers set book, tags, added_at, month, broken). A field
 * is read from the chunk's metadata first, then the document's.
 */
export interface ChunkFilter {
  sources?: string[];
  /** Classics book key (metadata.book); undefined or 'all' = any. */
  book?: string;
  /** Every tag must be present (case-insensitive) in metadata.tags. */
  tags?: string[];
  /** Month 'YYYY-MM' of metadata.month or of the date (added_at/date). */
  month?: string;
  /** Inclusive ISO dates (YYYY-MM-DD) on metadata.added_at (or .date). */
  since?: string;
  until?: string;
  /** picomatch glob on the document path. */
  path?: string;
  /** Chunks with metadata.broken = true are left out unless this is set. */
  includeBroken?: boolean;
}

/** A hit plus the chunk's row reference (for the vector index); still never a vector. */
export interface StoredHit extends ChunkHit {
  ref: number;
}

export interface KeywordQuery {
  /** Tokens from src/search/tokenize.ts queryTokens, ORed; ranked by BM25. */
  tokens: string[];
  k: number;
  filter?: ChunkFilter;
}

/** The active fingerprint's vectors, one row per chunk, for the in-memory index. */
export interface VectorSet {
  generation: number;
  dims: number;
  /** Chunk references (StoredHit.ref), parallel to the rows of `vectors`. */
  refs: Int32Array;
  /** refs.length × dims floats, row-major. */
  vectors: Float32Array;
}

export type RunStatus = 'running' | 'ok' | 'partial' | 'failed' | 'aborted';

export type SourceRunStatus = 'ok' | 'partial' | 'failed' | 'skipped';

/** Files by what a run did with them. */
export interface DocumentCounts {
  added: number;
  changed: number;
  deleted: number;
  renamed: number;
  unchanged: number;
  /** Refused: binary, invalid UTF-8, over maxFileBytes. */
  skipped: number;
}

/** Chunks of the documents a run wrote: distinct texts embedded, chunks whose vector existed. */
export interface ChunkCounts {
  total: number;
  toEmbed: number;
  reused: number;
}

export interface RunSourceRecord {
  source: string;
  status: SourceRunStatus;
  commitBefore: string | null;
  commitAfter: string | null;
  documents: DocumentCounts;
  chunks: ChunkCounts;
  error: string | null;
}

export interface RunRecord {
  id: number;
  trigger: string;
  status: RunStatus;
  startedAt: string;
  finishedAt: string | null;
  fingerprint: string;
  forced: boolean;
  embedded: number;
  requests: number;
  tokens: number;
  /** Embedder calls retried during the run. */
  retries: number;
  error: string | null;
  sources: RunSourceRecord[];
}

export interface RunStart {
  trigger: string;
  fingerprint: string;
  forced: boolean;
}

export interface RunFinish {
  status: Exclude<RunStatus, 'running'>;
  embedded: number;
  requests: number;
  tokens: number;
  retries?: number;
  error: string | null;
  sources: RunSourceRecord[];
}

/** Who holds the index lock (one writer at a time across processes). */
export interface LockHolder {
  token: string;
  pid: number;
  host: string;
  procStart: string | null;
  acquiredAt: string;
  heartbeatAt: string;
}

export type LockAttempt = { acquired: true; replaced: LockHolder | null } | { acquired: false; holder: LockHolder };

export interface CoverageRow {
  fingerprint: string;
  dims: number;
  /** Distinct chunk texts in the index that have a vector for this fingerprint. */
  covered: number;
  /** Vectors stored, referenced or not. */
  stored: number;
}

export interface StatusReport {
  sources: SourceState[];
  distinctTexts: number;
  coverage: CoverageRow[];
  runs: RunRecord[];
}

export interface ExportRow {
  id: string;
  source: string;
  path: string;
  heading: string;
  content: string;
  metadata: Record<string, unknown>;
  textHash: string;
}

export interface Store {
  /** Creates or updates a source's row (kind, url, branch) and returns its state. */
  ensureSource(info: SourceInfo): Promise<SourceState>;
  getSource(name: string): Promise<SourceState | null>;
  setSourceCommit(name: string, commit: string | null, indexedAt: string): Promise<void>;
  listDocuments(source: string): Promise<StoredDocument[]>;

  registerEmbedder(info: EmbedderInfo): Promise<void>;
  /** The subset of `textHashes` that has no vector for `fingerprint`. */
  missingVectors(fingerprint: string, textHashes: Iterable<string>): Promise<Set<string>>;
  /**
   * Chunk texts of `source`'s stored documents that have no vector for `fingerprint` — after the
   * embedder was switched, unchanged documents still need vectors under the new fingerprint.
   */
  storedTextsMissingVectors(
    source: string,
    fingerprint: string,
  ): Promise<{ path: string; textHash: string; text: string; tokens: number }[]>;
  /** Stores (or, with force, replaces) vectors in one transaction. */
  putVectors(fingerprint: string, vectors: VectorRecord[]): Promise<void>;

  /**
   * Writes documents with their chunks and removes `removePaths`, all in one transaction: a
   * document is never visible half-written.
   */
  writeDocuments(source: string, docs: DocumentRecord[], removePaths?: string[]): Promise<void>;

  searchVectors(q: VectorQuery): Promise<ChunkHit[]>;

  /** BM25 keyword search; score = -bm25 (higher is better). */
  keywordSearch(q: KeywordQuery): Promise<StoredHit[]>;
  /** Chunks by reference that pass `filter`, in the order of `refs`. */
  getChunks(refs: number[], filter?: ChunkFilter): Promise<StoredHit[]>;
  /** References of a document's chunks (source + path) or of one chunk (its id/key). */
  findChunks(ref: { source?: string; path?: string; id?: string }): Promise<number[]>;
  /** Every chunk's vector for `fingerprint` (chunks without one are left out). */
  loadVectors(fingerprint: string): Promise<VectorSet>;
  /** Bumped by every commit that changes chunks or vectors. */
  generation(): Promise<number>;

  startRun(run: RunStart): Promise<number>;
  finishRun(id: number, result: RunFinish): Promise<void>;
  /** Marks runs left 'running' by a killed process as 'aborted'. */
  abortStaleRuns(): Promise<number>;

  /**
   * Atomically takes the index lock for `holder` unless someone holds it and `isStale` says the
   * holder is still alive. A stale holder is replaced (and returned as `replaced`).
   */
  tryLock(holder: LockHolder, isStale: (current: LockHolder) => boolean): Promise<LockAttempt>;
  /** Refreshes the holder's heartbeat; false when the lock is no longer ours. */
  heartbeatLock(token: string): Promise<boolean>;
  releaseLock(token: string): Promise<void>;

  status(opts?: { runs?: number }): Promise<StatusReport>;
  /** The last `limit` runs, newest first (cheap: health checks call it often). */
  recentRuns(limit: number): Promise<RunRecord[]>;
  /** Deletes vectors no chunk references (any fingerprint). */
  /** With `keepOnly`, also deletes every other fingerprint's vectors (an embedder switched away from). */
  gc(opts?: { keepOnly?: string }): Promise<{ vectors: number }>;
  exportChunks(source?: string): AsyncIterable<ExportRow>;
  close(): Promise<void>;
}

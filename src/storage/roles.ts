import type {
  ChunkFilter,
  DocumentRecord,
  EmbedderInfo,
  FieldValueShape,
  RunStatus,
  SourceRunStatus,
  StoredDocument,
  StoredHit,
  WorkCounts,
} from '../core/types.ts';

/**
 * What each caller of the index needs, one small interface per role: sync writes (IndexWriter),
 * search reads (IndexReader), and the run log keeps runs, the lock and the housekeeping (RunLog).
 * All async, so a second backend (Postgres + pgvector) implements them without touching a caller;
 * storage/open.ts is the only code that names a backend.
 */

export interface SourceInfo {
  name: string;
  /** A source kind's name (sources/registry.ts). */
  kind: string;
  url: string | null;
  branch: string | null;
}

export interface SourceState extends SourceInfo {
  commit: string | null;
  indexedAt: string | null;
  documents: number;
  chunks: number;
}

export interface VectorRecord {
  textHash: string;
  vector: Float32Array;
}

export interface KeywordQuery {
  /** Query terms (core/text/analyzer.ts queryTerms), ORed; ranked by BM25. */
  tokens: string[];
  k: number;
  filter?: ChunkFilter;
  /**
   * BM25 weight of the head column (title, headings, tags) against the body's 1. 0 ranks by the
   * body alone (which holds the head's words too), as before migration 008. Default 1.
   */
  headWeight?: number;
  /**
   * The caller will search again (a long-lived searcher): the store may keep per-term scores of
   * the current generation to answer later queries sharing terms faster. Same ranking either way.
   */
  reuse?: boolean;
  /**
   * The caller reads each hit's count of the query's tokens (RefScore.terms); without it a store
   * may leave the count out (a one-shot keyword search has no use for it).
   */
  countTerms?: boolean;
}

/** What search reads of a chunk to weigh and compare candidates (no metadata, no JSON). */
export interface ChunkText {
  ref: number;
  /** The chunk's document (an id of the store's, equal for the chunks of one document). */
  doc: number;
  title: string | null;
  heading: string;
  content: string;
}

/**
 * The k chunks nearest to a query vector by cosine similarity, the filter applied by the store
 * (a server index pushes it into its query).
 */
export interface NearestQuery {
  fingerprint: string;
  vector: Float32Array;
  k: number;
  filter?: ChunkFilter;
  /** Exact similarity over every vector instead of an approximate index (search.exact). */
  exact?: boolean;
  /** Candidates an HNSW search keeps (pgvector's ef_search); the store's default when absent. */
  efSearch?: number;
  /** Chunks left out (a document's own, when searching near it). */
  exclude?: ReadonlySet<number>;
}

/** A chunk reference and its score in one ranked list. */
export interface RefScore {
  ref: number;
  score: number;
  /**
   * Keyword hits: how many of the query's tokens the chunk holds, when the store counts them
   * (a passage can hold the query's words in order only if it holds all of them).
   */
  terms?: number;
}

export interface RunSourceRecord {
  source: string;
  status: SourceRunStatus;
  commitBefore: string | null;
  commitAfter: string | null;
  /** What the plan asked for. */
  planned: WorkCounts;
  /** What was committed (an aborted or failed source wrote part of its plan, or none). */
  written: WorkCounts;
  /** Files the run refused and why, the first RUN_SKIPPED_FILES_KEPT of them (written.documents.skipped counts all). */
  skippedFiles: { path: string; reason: string }[];
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
  /** Distinct texts embedded and stored in this run. */
  textsEmbedded: number;
  requests: number;
  tokens: number;
  /** Embedder calls retried during the run. */
  retries: number;
  error: string | null;
  sources: RunSourceRecord[];
  /** The process that ran it (Postgres records it). */
  worker?: { host: string; pid: number } | null;
}

export interface RunStart {
  trigger: string;
  fingerprint: string;
  forced: boolean;
}

export interface RunFinish {
  status: Exclude<RunStatus, 'running'>;
  textsEmbedded: number;
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
  /** Per-source leases (Postgres workers). */
  leases?: LeaseRow[];
}

export interface ExportRow {
  id: string;
  source: string;
  path: string;
  heading: string;
  content: string;
  metadata: Record<string, unknown>;
  textHash: string;
  /** With `exportChunks(…, { vectorsOf })`: the text's vector under that fingerprint, or null if it has none. */
  vector?: Float32Array | null;
}

/** A stored text a switched embedder has no vector for yet. */
export interface TextToRefill {
  path: string;
  textHash: string;
  text: string;
  tokens: number;
  /** The row's place in chunk order: the next page starts after it. */
  cursor: number;
}

/** A page of IndexWriter.storedTextsMissingVectors: at most `limit` rows after the one whose cursor is `after` (0: the first page). */
export interface RefillPage {
  after: number;
  limit: number;
}

export interface Closable {
  close(): Promise<void>;
}

/** Sync's view: the manifest, the vectors and the documents it writes. */
export interface IndexWriter {
  /** Creates or updates a source's row (kind, url, branch) and returns its state. */
  ensureSource(info: SourceInfo): Promise<SourceState>;
  /** Records the commit a source is indexed at, with its listing key (sync/listing.ts) when the run indexed it in full. */
  setSourceCommit(name: string, commit: string | null, indexedAt: string, listing?: string | null): Promise<void>;
  /** The source's commit with the listing key recorded with it (listing null: list the source); null for an unknown source. */
  sourceListing(name: string): Promise<{ commit: string | null; listing: string | null } | null>;
  /** Drops the listing key: called before a run writes the source's documents. */
  forgetSourceListing(name: string): Promise<void>;
  /** Deletes the source's row once its documents are removed; false when there is no such source. */
  forgetSource(name: string): Promise<boolean>;
  listDocuments(source: string): Promise<StoredDocument[]>;
  registerEmbedder(info: EmbedderInfo): Promise<void>;
  /** The subset of `textHashes` that has no vector for `fingerprint`. */
  missingVectors(fingerprint: string, textHashes: Iterable<string>): Promise<Set<string>>;
  /** Calls `sink` with the path and text hash of every stored chunk of `source` (one read; holds nothing). */
  scanStoredTexts(source: string, sink: (path: string, textHash: string) => void): Promise<void>;
  /**
   * Texts of `source`'s stored documents with no vector for `fingerprint` (after an embedder
   * switch), in chunk order; with `page`, one page of them, so a large source is read a page at a time.
   */
  storedTextsMissingVectors(source: string, fingerprint: string, page?: RefillPage): Promise<TextToRefill[]>;
  /** Stores (or replaces) vectors in one transaction. */
  putVectors(fingerprint: string, vectors: VectorRecord[]): Promise<void>;
  /**
   * Writes documents with their chunks and removes `removePaths`, all in one transaction: a
   * document is never visible half-written.
   */
  writeDocuments(source: string, docs: DocumentRecord[], removePaths?: string[]): Promise<void>;
  /**
   * Begins a write of many documents of `source` that readers see all at once, at its commit:
   * the documents come in batches, so the writer never holds them all. One at a time; nothing
   * else is written through this store until it commits or rolls back.
   */
  beginDocuments(source: string): Promise<DocumentWrite>;
  /**
   * Rewrites a derived copy of `fingerprint`'s vectors that one-shot searches read, when it no
   * longer matches the index (absent in a backend without one); true when it wrote. Called at the
   * end of a run, it also does the backend's keyword index upkeep (merging what has piled up).
   */
  refreshCodePack?(fingerprint: string): Promise<boolean>;
}

/** A stored document's new stamp. */
export interface DocumentStamp {
  path: string;
  stamp: string;
}

/** A write of many documents, fed in batches and visible only once committed (IndexWriter.beginDocuments). */
export interface DocumentWrite {
  /** Writes (or replaces, by path) these documents with their chunks. */
  write(docs: DocumentRecord[]): Promise<void>;
  /** Removes the documents at these paths. */
  remove(paths: string[]): Promise<void>;
  /** Sets the stamp of stored documents whose content is unchanged (a touched file): nothing else is rewritten. */
  restamp(stamps: DocumentStamp[]): Promise<void>;
  commit(): Promise<void>;
  /** Drops all the write did; also what a failed write or remove has already done. */
  rollback(): Promise<void>;
}

/**
 * Search's view: ranked references (nearest, keyword, the match sets concept scoring counts), chunk
 * rows and the few vectors hybrid search compares. How a store ranks (streaming rows into this
 * process, or a query in the server) stays behind it.
 */
export interface IndexReader {
  /**
   * Ranking in the store: the nearest chunks to a vector, score = cosine similarity, best first,
   * ties in reference order. What search's vector candidates come from: the store picks how it
   * ranks (a scan, an index in memory, one in the server).
   */
  nearest(q: NearestQuery): Promise<RefScore[]>;
  /** Ranking in the store: keyword hits by BM25 over the terms ORed (FTS5's constants), score = -bm25 (higher is better), ties in reference order. */
  keyword(q: KeywordQuery): Promise<RefScore[]>;
  /** Title, heading and text of chunks by reference (missing ones left out; any order). */
  chunkTexts(refs: readonly number[]): Promise<ChunkText[]>;
  /** The keyword terms stored for chunks (analyzer.ts indexTerms of the text), by reference (missing ones left out; any order). */
  chunkTerms(refs: readonly number[]): Promise<{ ref: number; terms: string }[]>;
  /** Chunks by reference that pass `filter`, in the order of `refs`. */
  getChunks(refs: readonly number[], filter?: ChunkFilter): Promise<StoredHit[]>;
  /** The references among `refs` whose chunks pass `filter`, in order. */
  filterRefs(refs: readonly number[], filter?: ChunkFilter): Promise<number[]>;
  /** Whether any chunk passes `filter` (a filter value nothing in the index has is a typo to report). */
  anyChunk(filter: ChunkFilter): Promise<boolean>;
  /**
   * The distinct values chunks hold in a metadata field (the first present of `fields`, as the
   * filters read it), sorted: what a filter value that matched nothing is compared with.
   */
  fieldValues(fields: string[], shape: FieldValueShape): Promise<string[]>;
  /** Every document's source and path (what a name that matched none is compared with). */
  documentPaths(): Promise<{ source: string; path: string }[]>;
  /** References of a document's chunks (source + path) or of one chunk (its id/key). */
  findChunks(ref: { source?: string; path?: string; id?: string }): Promise<number[]>;
  /** The stored float32 vectors of some chunks, by reference; missing ones left out. */
  vectorsOf(fingerprint: string, refs: readonly number[]): Promise<Map<number, Float32Array>>;
  /** Bumped by every commit that changes chunks or vectors. */
  generation(): Promise<number>;
  /** Corpus lexicon rows whose English gloss key is one of `keys` (absent in a backend without a lexicon). */
  lexiconLookup?(keys: string[]): Promise<LexiconRow[]>;
  /** Every headword of the corpus lexicon of at least `minLength` characters, with its document count. */
  lexiconHeadwords?(minLength: number): Promise<{ headword: string; df: number }[]>;
  /** How many chunks hold each keyword term (a token as the analyzer indexes it: a CJK character or pair), in order; 0 for none. */
  termCounts?(terms: readonly string[]): Promise<number[]>;
  /**
   * The chunks holding all of each token list's tokens (what concept scoring counts; absent:
   * expansion falls back to one ORed keyword list). A filter the store can apply cheaply narrows
   * them; others are left to the caller.
   */
  matchSets?(tokenLists: string[][], filter?: ChunkFilter): Promise<MatchSets>;
}

/** Chunks by term, as positions into `refs` (so a caller can score them in flat arrays). */
export interface MatchSets {
  /** Per token list, the positions of the chunks holding all its tokens, ascending. */
  sets: Int32Array[];
  /** Position → chunk reference (StoredHit.ref). */
  refs: Int32Array;
  /** Chunks searched (the filter's share of the index when it narrowed the sets). */
  total: number;
  /** Whether the sets hold only chunks passing the filter (else the caller filters). */
  filtered: boolean;
}

/** One gloss of the corpus lexicon: English key → a Chinese headword of the corpus. */
export interface LexiconRow {
  gloss: string;
  headword: string;
  /** Which sense of the dictionary entry (0 = the first). */
  sense: number;
  /** Documents containing the headword. */
  df: number;
}

/** The run history, read-only: what status pages and health checks show. */
export interface RunHistory {
  status(opts?: { runs?: number }): Promise<StatusReport>;
  /** The last `limit` runs, newest first (health checks call it often). */
  recentRuns(limit: number): Promise<RunRecord[]>;
}

/** Runs, the index lock and housekeeping (status, gc, export). */
export interface RunLog extends RunHistory {
  startRun(run: RunStart): Promise<number>;
  finishRun(id: number, result: RunFinish): Promise<void>;
  /** Marks runs left 'running' by a killed process as 'aborted'. */
  abortStaleRuns(): Promise<number>;
  /**
   * Atomically takes the index lock for `holder` unless someone holds it and `isStale` says the
   * holder is still alive. A stale holder is replaced (and returned as `replaced`).
   */
  tryLock(holder: LockHolder, isStale: (current: LockHolder) => boolean, opts?: { shared?: boolean }): Promise<LockAttempt>;
  /** Refreshes the holder's heartbeat; false when the lock is no longer ours. */
  heartbeatLock(token: string): Promise<boolean>;
  releaseLock(token: string): Promise<void>;
  /**
   * Deletes vectors no chunk references, except those stored at or after `spareSince` (ISO time);
   * with `keepOnly`, every other fingerprint's vectors too.
   */
  gc(opts?: { keepOnly?: string; spareSince?: string }): Promise<{ vectors: number }>;
  /** Every chunk in (source, path, ordinal) order; with `vectorsOf`, each with its vector under that fingerprint. */
  exportChunks(source?: string, opts?: { vectorsOf?: string }): AsyncIterable<ExportRow>;
}

/** A source as a copy of the index carries it: its row with the commit and listing key. */
export interface SourceDump extends SourceInfo {
  commit: string | null;
  indexedAt: string | null;
  listing: string | null;
}

/**
 * The whole index read back as the writer took it in (what `ragsync copy` moves between backends):
 * sources, documents with their chunks, keyword terms, line ranges and lexicon entries, embedders
 * and every stored vector, each in a fixed order.
 */
export interface IndexDump {
  dumpSources(): Promise<SourceDump[]>;
  /** A source's documents in path order (byte order), `batch` at a time. */
  dumpDocuments(source: string, batch: number): AsyncIterable<DocumentRecord[]>;
  dumpEmbedders(): Promise<EmbedderInfo[]>;
  /** Every vector stored for `fingerprint`, referenced or not, in text-hash order, `batch` at a time. */
  dumpVectors(fingerprint: string, batch: number): AsyncIterable<VectorRecord[]>;
}

/** What `openIndex` hands each role. */
export type SyncStore = IndexWriter & RunLog & IndexDump & Closable & Partial<SourceLeases>;

/** The process doing a run, wherever it runs. */
export interface WorkerIdentity {
  host: string;
  pid: number;
  /** When the process started (ISO): tells a restarted worker from the one before it. */
  started: string;
}

/** A source claimed by this worker: `generation` fences its writes. */
export interface SourceLease {
  source: string;
  generation: number;
  tick: string;
  /** The worker whose lapsed lease this claim took over, if any. */
  tookOver: { host: string; pid: number } | null;
}

/** A source's lease as `status` shows it. */
export interface LeaseRow {
  source: string;
  host: string | null;
  pid: number | null;
  workerStarted: string | null;
  tick: string | null;
  claimedAt: string | null;
  /** Seconds since the lease was claimed (the server's clock). */
  claimedSecondsAgo: number | null;
  /** Seconds since the holder last renewed (or since release). */
  renewedSecondsAgo: number | null;
  /** Held now (claimed and not released). */
  held: boolean;
}

/**
 * Per-source leases: several workers (processes, machines) share the sources of one index, each
 * source claimed by one worker at a time and once per schedule tick (Postgres only).
 */
export interface SourceLeases {
  /**
   * Claims one of `sources` that is free for `tick` and not indexed since `since` (ms, the run's
   * start), or whose holder stopped renewing; null when none is.
   */
  claimSource(sources: string[], tick: string, worker: WorkerIdentity, leaseSeconds: number, since: number): Promise<SourceLease | null>;
  /** Renews the lease; false when it was taken over. */
  renewLease(lease: SourceLease): Promise<boolean>;
  /** Records the source's part of run `runId` and releases the lease in one transaction; false when it was lost. */
  releaseLease(lease: SourceLease, runId: number, record: RunSourceRecord): Promise<boolean>;
  leases(): Promise<LeaseRow[]>;
}
export type SearchStore = IndexReader & RunHistory & Closable;
export type AdminStore = RunLog & IndexDump & Closable;

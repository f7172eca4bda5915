/**
 * The ground floor's plain types: what flows between sources, chunkers, embedders, storage and
 * search. No behaviour, no imports: every layer may use them.
 */

/** Chunk size settings (config `chunking`). */
export interface ChunkingSettings {
  /** Target chunk size in estimated tokens (a CJK character counts as one). */
  targetTokens: number;
  /** Fraction of the target carried over from the previous chunk. */
  overlap: number;
}

export interface ChunkInput {
  /** Path relative to the source root, '/' separated. */
  path: string;
  /** Decoded UTF-8 file content (after the content step: HTML arrives as Markdown). */
  text: string;
  /** What the text is ('text/markdown', 'text/plain', 'text/x-typescript' …), when known. */
  mediaType?: string;
}

/** A chunk before hashing: sync adds textHash and tokens. */
export interface Chunk {
  key: string;
  heading: string;
  content: string;
  /** Exact text to embed (context such as the heading path, then content). */
  text: string;
  metadata: Record<string, unknown>;
  /** Lines of the document the chunk's content spans, 1-based and inclusive (absent when unknown). */
  startLine?: number;
  endLine?: number;
}

export interface ChunkedDocument {
  title: string | null;
  metadata: Record<string, unknown>;
  chunks: Chunk[];
}

export interface Chunker {
  /** Name, version and settings: a document chunked under another fingerprint is re-chunked. */
  readonly fingerprint: string;
  /**
   * Asynchronous set-up before these paths are chunked (loading parsers): awaited once per batch of
   * files to read, so `chunk` itself stays synchronous and a run with nothing to read loads nothing.
   */
  prepare?(paths: readonly string[]): Promise<void>;
  chunk(input: ChunkInput): ChunkedDocument;
  /** The chunker reads every file as written (source code): the content step converts nothing for it. */
  readonly takesAsWritten?: boolean;
  /**
   * The files it is made for, by path (the code chunker: a language it parses). A run that lists
   * files but none of these says so: the source's include globs do not fit its chunker.
   */
  expects?(path: string): boolean;
}

export type ChunkerFactory = (settings: ChunkingSettings) => Chunker;

/** What the manifest knows of one indexed file. */
export interface StoredDocument {
  path: string;
  contentHash: string;
  stamp: string;
  size: number;
  /** Fingerprint of what turned the file into chunks and index terms (chunker + analyzer). */
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
  /** Keyword-index terms of `text`, space-separated (the source's analyzer made them). */
  terms: string;
  /** Keyword-index terms of the heading path and tags: the column that weighs more (migration 008). */
  headTerms: string;
  metadata: Record<string, unknown>;
  /** As Chunk: lines of the document, 1-based and inclusive (migration 019). */
  startLine?: number;
  endLine?: number;
}

export interface DocumentRecord extends StoredDocument {
  title: string | null;
  /** What the source's document is ('text/html' for a web page), before the content step (migration 022). */
  mediaType?: string;
  metadata: Record<string, unknown>;
  chunks: ChunkRecord[];
  /** Lexicon headwords the document contains, with their English gloss keys (sources using the lexicon only). */
  lexicon?: LexiconEntry[];
}

/** A Chinese headword of the corpus lexicon and its English gloss keys, by sense (0 = the entry's first). */
export interface LexiconEntry {
  readonly headword: string;
  readonly glosses: readonly (readonly [key: string, sense: number])[];
}

export interface EmbedderInfo {
  fingerprint: string;
  provider: string;
  model: string;
  dims: number;
}

/** One search hit; never carries a vector. */
export interface ChunkHit {
  id: string;
  source: string;
  path: string;
  title: string | null;
  heading: string;
  content: string;
  /** The document's metadata overlaid with the chunk's own. */
  metadata: Record<string, unknown>;
  score: number;
  /** Lines of the document the chunk spans, 1-based and inclusive, when its chunker knew them. */
  startLine?: number;
  endLine?: number;
}

/** A hit plus the chunk's row reference (for the vector index); still never a vector. */
export interface StoredHit extends ChunkHit {
  ref: number;
}

/**
 * A test on chunk metadata; each names the fields it reads, the first present one counts (chunk
 * metadata before document metadata). Profiles turn their filters into these.
 */
export type FieldCondition =
  /** The field equals the value. */
  | { op: 'eq'; fields: string[]; value: string }
  /** The field is an array holding every value (case-insensitive). */
  | { op: 'has-all'; fields: string[]; values: string[] }
  /** The field is a date or month ('YYYY-MM…' or 'YYYYMM') in this month ('YYYY-MM'). */
  | { op: 'month'; fields: string[]; value: string }
  /** The field is a date ('YYYY-MM-DD…') on or after / on or before the value. */
  | { op: 'since' | 'until'; fields: string[]; value: string };

/** How a metadata field's values are listed: as they are, the elements of an array, or the months of dates ('YYYY-MM'). */
export type FieldValueShape = 'value' | 'element' | 'month';

export interface ChunkFilter {
  sources?: string[];
  /** picomatch glob on the document path. */
  path?: string;
  /** Chunks a chunker marked `metadata.broken = true` are left out unless this is set. */
  includeBroken?: boolean;
  /** Every condition must hold. */
  where?: FieldCondition[];
}

export type RunStatus = 'running' | 'ok' | 'partial' | 'failed' | 'aborted';

export type SourceRunStatus = 'ok' | 'partial' | 'failed' | 'skipped';

/** Files by change kind. */
export interface DocumentCounts {
  added: number;
  changed: number;
  deleted: number;
  renamed: number;
  unchanged: number;
  /** Refused: binary, invalid UTF-8, over maxFileBytes. */
  skipped: number;
}

/**
 * The units of a run: documents (files), chunks (rows, one per passage) and texts (distinct chunk
 * texts, the unit of embedding — one text may back many chunks).
 */
export interface WorkCounts {
  documents: DocumentCounts;
  /** Chunks of the documents written. */
  chunks: number;
  /** Of those, chunks whose text already had a vector. */
  chunksReused: number;
  /** Distinct texts embedded (planned: to embed). */
  texts: number;
}

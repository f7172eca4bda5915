import type { ChunkingConfig } from '../config/schema.ts';

export interface ChunkInput {
  /** Path relative to the source root, '/' separated. */
  path: string;
  /** Decoded UTF-8 file content. */
  text: string;
}

/** A chunk before hashing: sync adds textHash and tokens. */
export interface Chunk {
  key: string;
  heading: string;
  content: string;
  /** Exact text to embed (context such as the heading path, then content). */
  text: string;
  metadata: Record<string, unknown>;
}

export interface ChunkedDocument {
  title: string | null;
  metadata: Record<string, unknown>;
  chunks: Chunk[];
}

export interface Chunker {
  /** Name, version and settings: a document chunked under another fingerprint is re-chunked. */
  readonly fingerprint: string;
  chunk(input: ChunkInput): ChunkedDocument;
}

export type ChunkerFactory = (settings: ChunkingConfig) => Chunker;

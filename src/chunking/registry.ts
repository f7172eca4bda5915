import { bookmarksChunker } from '../profiles/bookmarks/chunker.ts';
import { classicsChunker } from '../profiles/classics/chunker.ts';
import { markdownChunker } from './markdown.ts';
import type { Chunker, ChunkerFactory } from '../core/chunk.ts';
import type { ChunkingConfig } from '../config/schema.ts';
import { RagsyncError, EXIT } from '../core/errors.ts';

/** Chunkers by the name a source's `chunker` field uses. */
const CHUNKERS: Record<string, ChunkerFactory> = {
  markdown: markdownChunker,
  classics: classicsChunker,
  bookmarks: bookmarksChunker,
};

export function chunkerNames(): string[] {
  return Object.keys(CHUNKERS);
}

export function createChunker(name: string, settings: ChunkingConfig): Chunker {
  const factory = CHUNKERS[name];
  if (!factory) {
    throw new RagsyncError(`unknown chunker "${name}" (known: ${chunkerNames().join(', ')})`, EXIT.usage);
  }
  return factory(settings);
}

import type { Searcher } from '../../src/search/search.ts';
import type { VectorSource } from '../../src/storage/ranking/vector-index.ts';
import type { SqliteIndex } from '../../src/storage/sqlite/index.ts';

/** The vector source a SQLite searcher's store ranks with (an in-memory index, or a one-shot scan). */
export function vectorSourceOf<V extends VectorSource>(searcher: Searcher): V {
  return (searcher.store as unknown as SqliteIndex).reader.vectorSource(searcher.embedder.info.fingerprint) as V;
}

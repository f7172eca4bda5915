import type { StoredHit } from '../../src/core/types.ts';
import type { IndexReader, KeywordQuery } from '../../src/storage/roles.ts';

/** The reader's keyword ranking with each hit's chunk (score = the ranking's). */
export async function keywordHits(store: IndexReader, q: KeywordQuery): Promise<StoredHit[]> {
  const refs = await store.keyword(q);
  const score = new Map(refs.map((r) => [r.ref, r.score]));
  return (await store.getChunks(refs.map((r) => r.ref))).map((h) => ({ ...h, score: score.get(h.ref)! }));
}

import type { Database } from 'better-sqlite3';
import type { ChunkFilter } from '../../core/types.ts';

/**
 * What the common filters (sources, broken chunks) need to know of every chunk, held compactly in
 * memory per generation: a search then filters candidate ids without a join or a JSON parse per
 * row. Filters on metadata fields or paths still go to SQL (filter.ts).
 */
export interface ChunkFacts {
  generation: number;
  /** Chunk ids ascending; the arrays below are parallel to it. */
  ids: Int32Array;
  source: Uint16Array;
  broken: Uint8Array;
  /** sha256 of each chunk's text (its vector's key), 32 bytes a row: rescoring reads vectors without the chunk rows. */
  hashes: Uint8Array;
  /** Source names by index, and how many chunks each has. */
  names: string[];
  counts: number[];
}

const cache = new WeakMap<Database, ChunkFacts>();

/** The facts of the generation `generation`, rebuilt when it moved (one query, ids ascending). */
export function chunkFacts(db: Database, generation: number): ChunkFacts {
  const hit = cache.get(db);
  if (hit && hit.generation === generation) return hit;
  const n = db.prepare('SELECT count(*) FROM chunks').pluck().get() as number;
  const ids = new Int32Array(n);
  const source = new Uint16Array(n);
  const broken = new Uint8Array(n);
  const hashes = new Uint8Array(n * 32);
  const names: string[] = [];
  const counts: number[] = [];
  const index = new Map<number, number>();
  let i = 0;
  const rows = db
    .prepare(
      `SELECT c.id, d.source_id, s.name, c.text_hash,
              coalesce(json_extract(c.metadata, '$.broken'), json_extract(d.metadata, '$.broken'), 0) IN (1, 'true')
       FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id ORDER BY c.id`,
    )
    .raw()
    .iterate() as IterableIterator<[number, number, string, string, number]>;
  for (const [id, sourceId, name, textHash, isBroken] of rows) {
    if (i >= n) break; // the count and the rows come from one snapshot; this only guards the arrays
    let s = index.get(sourceId);
    if (s === undefined) {
      index.set(sourceId, (s = names.length));
      names.push(name);
      counts.push(0);
    }
    ids[i] = id;
    source[i] = s;
    broken[i] = isBroken ? 1 : 0;
    hashes.set(Buffer.from(textHash, 'hex').subarray(0, 32), i * 32);
    counts[s]!++;
    i++;
  }
  const facts = {
    generation,
    ids: ids.subarray(0, i),
    source: source.subarray(0, i),
    broken: broken.subarray(0, i),
    hashes: hashes.subarray(0, i * 32),
    names,
    counts,
  };
  cache.set(db, facts);
  return facts;
}

/** Whether a filter needs nothing beyond the facts (no metadata conditions, no path glob). */
export function factsCanFilter(f: ChunkFilter | undefined): boolean {
  return !f?.where?.length && f?.path === undefined;
}

/** The text hash (hex, the vectors' key) of a chunk id, or null. */
export function textHashOf(facts: ChunkFacts, id: number): string | null {
  const row = rowOf(facts, id);
  return row < 0 ? null : Buffer.from(facts.hashes.buffer, facts.hashes.byteOffset + row * 32, 32).toString('hex');
}

/** Row of a chunk id in the facts, or -1. */
/** The row of chunk `id` in the facts (ids ascending), -1 when absent. */
export function rowOf(facts: ChunkFacts, id: number): number {
  const ids = facts.ids;
  // Ids are dense until deletions leave gaps: the row the first id implies is right most of the time.
  const guess = id - ids[0]!;
  if (guess >= 0 && guess < ids.length && ids[guess] === id) return guess;
  let lo = 0;
  let hi = ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = ids[mid]!;
    if (v === id) return mid;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** A test of chunk ids for a filter the facts can answer; also the share of chunks it may pass. */
export function factsFilter(facts: ChunkFacts, f: ChunkFilter | undefined): { pass: (id: number) => boolean; share: number } {
  let allowed: Uint8Array | null = null;
  let share = 1;
  if (f?.sources?.length) {
    allowed = new Uint8Array(facts.names.length);
    let count = 0;
    for (const name of f.sources) {
      const s = facts.names.indexOf(name);
      if (s >= 0 && !allowed[s]) (allowed[s] = 1), (count += facts.counts[s]!);
    }
    share = facts.ids.length ? count / facts.ids.length : 0;
  }
  const includeBroken = !!f?.includeBroken;
  return {
    share,
    pass: (id) => {
      const row = rowOf(facts, id);
      if (row < 0) return false;
      if (allowed && !allowed[facts.source[row]!]) return false;
      return includeBroken || !facts.broken[row];
    },
  };
}

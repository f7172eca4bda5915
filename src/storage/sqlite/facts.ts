import type { Database } from 'better-sqlite3';
import type { ChunkFilter } from '../../core/types.ts';
import { indexOfSorted } from '../../core/sorted-ids.ts';
import { readGeneration, type SqliteConnection } from './statements.ts';

/**
 * What a reader asks of chunks beside their texts: their source and broken flag (the common
 * filters), their text hash (their vector's key). Two strategies behind it, chosen by how long the
 * process lives: a long-lived reader holds every chunk's facts per generation (CachedFacts), a
 * one-shot process looks up only the ids its search ranks (LookupFacts) — building the facts of
 * every chunk costs a one-shot keyword search more than the search itself.
 */
export interface Facts {
  /** A test of chunk ids for a filter the facts can answer (see factsCanFilter); `share` is 0 when nothing can pass. */
  filter(f: ChunkFilter | undefined): { pass: (id: number) => boolean; share: number };
  /** The text hashes (hex) of chunk ids; ids not in the index are left out. */
  textHashes(ids: readonly number[]): Map<number, string>;
}

/**
 * The facts of chunks, read from the covering index `chunks_facts` (migration 012) alone: the
 * broken flag's expression is the index's, so neither reads a chunk's texts.
 */
export const FACTS_OF_ALL_SQL = `SELECT c.id, d.source_id, s.name, c.text_hash,
              coalesce(json_extract(c.metadata, '$.broken'), json_extract(d.metadata, '$.broken'), 0) IN (1, 'true')
       FROM chunks c INDEXED BY chunks_facts JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id
       ORDER BY c.id`;
export const FACTS_OF_ID_SQL = `SELECT s.name, coalesce(json_extract(c.metadata, '$.broken'), json_extract(d.metadata, '$.broken'), 0) IN (1, 'true')
   FROM chunks c INDEXED BY chunks_facts JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id
   WHERE c.id = ?`;

/** Every chunk's facts in memory, rebuilt when the generation moves (long-lived readers). */
export class CachedFacts implements Facts {
  private held: ChunkFacts | null = null;

  constructor(private readonly c: SqliteConnection) {}

  /** The facts of the current generation (one query, ids ascending, when it moved). */
  current(): ChunkFacts {
    const generation = readGeneration(this.c);
    if (this.held?.generation !== generation) this.held = readChunkFacts(this.c.db, generation);
    return this.held;
  }

  filter(f: ChunkFilter | undefined) {
    return factsFilter(this.current(), f);
  }

  textHashes(ids: readonly number[]): Map<number, string> {
    const facts = this.current();
    const out = new Map<number, string>();
    for (const id of ids) {
      const h = textHashOf(facts, id);
      if (h) out.set(id, h);
    }
    return out;
  }
}

/**
 * Facts read per chunk id when a search first asks for it, remembered for the generation (one-shot
 * processes): a search tests a few hundred ids at most, never every chunk.
 */
export class LookupFacts implements Facts {
  private seen = new Map<number, { source: string; broken: boolean } | null>();
  private at = -1;
  private broken: Int32Array | null = null;

  constructor(private readonly c: SqliteConnection) {}

  private fresh(): void {
    const gen = readGeneration(this.c);
    if (gen !== this.at) (this.seen = new Map()), (this.broken = null), (this.at = gen);
  }

  private factsOf(id: number): { source: string; broken: boolean } | null {
    let f = this.seen.get(id);
    if (f === undefined) {
      const row = this.c.prepared(FACTS_OF_ID_SQL).raw().get(id) as [string, number] | undefined;
      f = row ? { source: row[0], broken: !!row[1] } : null;
      this.seen.set(id, f);
    }
    return f;
  }

  /** The broken chunks' ids ascending, read once for the generation. */
  brokenIds(): Int32Array {
    this.fresh();
    return (this.broken ??= brokenChunkIds(this.c));
  }

  filter(f: ChunkFilter | undefined) {
    this.fresh();
    const sources = f?.sources?.length ? new Set(f.sources) : null;
    // Nothing can pass when no named source has a document (one indexed probe per name).
    const anyDocument = this.c.prepared(
      'SELECT 1 FROM sources s JOIN documents d ON d.source_id = s.id WHERE s.name IN (SELECT value FROM json_each(?)) LIMIT 1',
    );
    const share = sources && !anyDocument.get(JSON.stringify([...sources])) ? 0 : 1;
    const includeBroken = !!f?.includeBroken;
    if (!sources && !includeBroken) {
      // Every source, broken chunks out (a plain search): the few broken ids decide, and a chunk
      // need only exist. Its keyword row's size record says so (written and deleted with the chunk,
      // as match-sets.ts relies on): a few bytes a row, so the ids a search tests share pages,
      // where the chunk rows or the facts' index with its document and source cost a page each.
      const broken = this.brokenIds();
      const exists = this.c.prepared('SELECT 1 FROM chunks_fts_docsize WHERE id = ?').pluck();
      return { share, pass: (id: number) => indexOfSorted(broken, id) < 0 && exists.get(id) !== undefined };
    }
    return {
      share,
      pass: (id: number) => {
        const facts = this.factsOf(id);
        if (!facts) return false;
        if (sources && !sources.has(facts.source)) return false;
        return includeBroken || !facts.broken;
      },
    };
  }

  textHashes(ids: readonly number[]): Map<number, string> {
    const rows = this.c
      .prepared('SELECT c.id, c.text_hash FROM json_each(?) j CROSS JOIN chunks c INDEXED BY chunks_facts ON c.id = j.value')
      .raw()
      .all(JSON.stringify(ids)) as [number, string][];
    return new Map(rows);
  }
}

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

/** The facts of every chunk, read at `generation` (one query, ids ascending). */
function readChunkFacts(db: Database, generation: number): ChunkFacts {
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
    .prepare(FACTS_OF_ALL_SQL)
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
  return {
    generation,
    ids: ids.subarray(0, i),
    source: source.subarray(0, i),
    broken: broken.subarray(0, i),
    hashes: hashes.subarray(0, i * 32),
    names,
    counts,
  };
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

/** The row of chunk `id` in the facts (ids ascending), -1 when absent. */
export function rowOf(facts: ChunkFacts, id: number): number {
  return indexOfSorted(facts.ids, id);
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

/**
 * The chunks the facts count as broken (their own flag true, or none and their document's true),
 * ascending, from the partial indexes of migration 018: the marked rows alone are read.
 */
function brokenChunkIds(c: SqliteConnection): Int32Array {
  const own = c.prepared(`SELECT id FROM chunks INDEXED BY chunks_broken WHERE json_extract(metadata, '$.broken') IN (1, 'true')`).pluck().all() as number[];
  // CROSS JOIN keeps the broken documents the outer loop: left to itself the planner scanned every chunk.
  const ofDocuments = c
    .prepared(
      `SELECT c.id FROM documents d INDEXED BY documents_broken CROSS JOIN chunks c ON c.document_id = d.id
       WHERE json_extract(d.metadata, '$.broken') IN (1, 'true') AND json_extract(c.metadata, '$.broken') IS NULL`,
    )
    .pluck()
    .all() as number[];
  return Int32Array.from(new Set([...own, ...ofDocuments])).sort();
}

import type { ChunkFilter } from '../../core/types.ts';
import type { MatchSets } from '../roles.ts';
import { factsCanFilter } from './facts.ts';
import type { SqliteConnection } from './statements.ts';

/** FTS5 query holding all of a token list (each token a quoted string). */
export const allTokens = (tokens: readonly string[]) => tokens.map((t) => `"${t.replaceAll('"', '""')}"`).join(' AND ');

const isBroken = (v: unknown) => v === 1 || v === 'true';

/**
 * matchSets for a process that searches once: the same sets and count as the cached facts give
 * (reader.ts), read for the matching chunks alone instead of building the facts of every chunk
 * first. Over every source the FTS rows are filtered by the broken chunks; scoped to sources, a
 * matching chunk's row comes from the narrow chunks_facts index (its id, document and own broken
 * flag) and each document's source and flag are read once. Positions are the chunk ids less the
 * smallest matched (byOffset), or index their ascending union: either way they ascend with the
 * ids as the facts' positions do, so scores and ties come out the same.
 */
export function matchSetsOnce(
  c: SqliteConnection,
  tokenLists: string[][],
  filter: ChunkFilter | undefined,
  brokenIds: () => Int32Array,
): MatchSets {
  const narrow = factsCanFilter(filter);
  const sources = narrow && filter?.sources?.length ? new Set(filter.sources) : null;
  const skipBroken = narrow && !filter?.includeBroken;
  const rows = c.prepared(`SELECT c.id, c.document_id, json_extract(c.metadata, '$.broken')
     FROM chunks_fts f CROSS JOIN chunks c INDEXED BY chunks_facts ON c.id = f.rowid WHERE chunks_fts MATCH ? ORDER BY c.id`,
  ).raw();
  const docStmt = c.prepared(`SELECT d.id, s.name, json_extract(d.metadata, '$.broken') FROM json_each(?) j
     CROSS JOIN documents d ON d.id = j.value JOIN sources s ON s.id = d.source_id`,
  ).raw();
  const docs = new Map<number, { source: string; broken: boolean }>();
  // Every source (a plain search): FTS rows are chunks (written and deleted with them), so the
  // FTS match and the broken chunks, few and indexed (migration 018), are all it takes.
  const broken = sources ? null : skipBroken ? brokenIds() : new Int32Array(0);
  // One JSON array per list: a common word's tens of thousands of ids cost a row step each otherwise.
  const ftsRows = c.prepared('SELECT json_group_array(rowid) FROM (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rowid)').pluck();
  // Each list ascending (ORDER BY), as its own typed array.
  const ids = tokenLists.map((tokens): Int32Array => {
    if (!tokens.length) return new Int32Array(0);
    if (broken) return withoutSorted(JSON.parse(ftsRows.get(allTokens(tokens)) as string) as number[], broken);
    const found = rows.all(allTokens(tokens)) as [number, number, unknown][];
    // A chunk's own flag decides when it has one (the facts' coalesce); else its document's.
    const needed = [...new Set(found.map((r) => r[1]))].filter((d) => !docs.has(d));
    if (needed.length) {
      for (const [id, source, broken] of docStmt.all(JSON.stringify(needed)) as [number, string, unknown][]) docs.set(id, { source, broken: isBroken(broken) });
    }
    return Int32Array.from(
      found
        .filter(([, doc, own]) => {
          if (!sources!.has(docs.get(doc)?.source ?? '')) return false;
          return !skipBroken || !(own === null ? docs.get(doc)?.broken : isBroken(own));
        })
        .map((r) => r[0]),
    );
  });
  // Chunks searched: those of the named sources (broken ones count, as in the facts' share).
  const total = sources
    ? (c.prepared(`SELECT count(*) FROM chunks WHERE document_id IN
           (SELECT d.id FROM documents d JOIN sources s ON s.id = d.source_id WHERE s.name IN (SELECT value FROM json_each(?)))`,
      )
        .pluck()
        .get(JSON.stringify([...sources])) as number)
    : (c.prepared('SELECT count(*) FROM chunks').pluck().get() as number);
  const { refs, sets } = byOffset(ids, total) ?? positionsOf(ids);
  return { sets, refs, total, filtered: narrow };
}

/**
 * Each ascending id list as positions `id - first`, in place, where `first` is the smallest id
 * listed, with `refs` mapping them back: no union to sort and merge (a common word's list holds
 * tens of thousands of ids), and positions still ascend with the ids, so scores and ties come out
 * as positionsOf's. Null (the lists untouched) when the ids spread over more than a few times the
 * chunks searched (ids left sparse by deletions): the flat arrays a caller scores in would be mostly empty.
 */
function byOffset(lists: Int32Array[], chunks: number): { refs: Int32Array; sets: Int32Array[] } | null {
  let first = Infinity;
  let last = -Infinity;
  for (const list of lists) {
    if (!list.length) continue;
    first = Math.min(first, list[0]!);
    last = Math.max(last, list[list.length - 1]!);
  }
  const size = last >= first ? last - first + 1 : 0;
  if (size > 2 * chunks + 1024) return null;
  const refs = new Int32Array(size);
  for (let p = 0; p < size; p++) refs[p] = first + p;
  for (const list of lists) for (let i = 0, size = list.length; i < size; i++) list[i]! -= first;
  return { refs, sets: lists };
}

/** `list` less the ids of `drop` (both ascending), order kept, as a typed array. */
function withoutSorted(list: readonly number[], drop: Int32Array): Int32Array {
  const size = list.length;
  const drops = drop.length;
  const out = new Int32Array(size);
  let n = 0;
  let d = 0;
  for (let i = 0; i < size; i++) {
    const id = list[i]!;
    while (d < drops && drop[d]! < id) d++;
    if (d < drops && drop[d] === id) continue;
    out[n++] = id;
  }
  return n === size ? out : out.slice(0, n);
}

/**
 * The ascending union of id lists, and each list as positions in it (ascending): typed arrays and
 * merges, as a one-shot search's common words list tens of thousands of ids.
 */
export function positionsOf(lists: readonly ArrayLike<number>[]): { refs: Int32Array; sets: Int32Array[] } {
  let size = 0;
  for (const list of lists) size += list.length;
  const all = new Int32Array(size);
  let at = 0;
  for (const list of lists) for (let i = 0; i < list.length; i++) all[at++] = list[i]!;
  all.sort();
  let unique = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[unique++] = all[i]!;
  const refs = all.slice(0, unique);
  const sets = lists.map((given) => {
    let list: ArrayLike<number> = given;
    for (let i = 1; i < given.length; i++) if (given[i - 1]! >= given[i]!) (list = Int32Array.from(given).sort()), (i = given.length);
    const out = new Int32Array(list.length);
    for (let i = 0, p = 0; i < list.length; i++) {
      while (refs[p]! < list[i]!) p++;
      out[i] = p;
    }
    return out;
  });
  return { refs, sets };
}

import type { ChunkRecord, DocumentRecord } from '../core/types.ts';
import { lineRange } from './line-range.ts';

/**
 * What both backends' IndexDump share: reading in pages keyed by a string (paths, text hashes) and
 * putting a page of documents back together from their rows, their chunks' rows and their glosses.
 */

/** Each page `read` gives after the last row's key (starting from ''), until a page is empty. */
export async function* pagesAfter<T>(read: (after: string) => T[] | Promise<T[]>, keyOf: (row: T) => string): AsyncGenerator<T[]> {
  for (let after = ''; ; ) {
    const rows = await read(after);
    if (!rows.length) return;
    yield rows;
    after = keyOf(rows.at(-1)!);
  }
}

/** A document's row: its record without chunks and lexicon, its headwords when it has a lexicon row. */
export type DocumentRow = Omit<DocumentRecord, 'chunks' | 'lexicon'> & { id: number; headwords: string[] | null };
/** A chunk's row, by its document's id; line ranges as stored (null when unknown). */
export type ChunkRow = Omit<ChunkRecord, 'startLine' | 'endLine'> & { documentId: number; startLine: number | null; endLine: number | null };
export interface GlossRow {
  headword: string;
  gloss: string;
  sense: number;
}

/** The headwords of a page of documents, once each (whose glosses to read). */
export const headwordsOf = (docs: readonly DocumentRow[]): string[] => [...new Set(docs.flatMap((d) => d.headwords ?? []))];

/**
 * A page of documents as the writer took them in: each with its chunks (`chunks` in document,
 * ordinal order) and, when it has a lexicon row, its headwords with their glosses (`glosses` in
 * sense, gloss order per headword).
 */
export function dumpedDocuments(docs: readonly DocumentRow[], chunks: readonly ChunkRow[], glosses: readonly GlossRow[]): DocumentRecord[] {
  const chunksOf = new Map<number, ChunkRecord[]>();
  for (const { documentId, startLine, endLine, ...c } of chunks) append(chunksOf, documentId, { ...c, ...lineRange(startLine, endLine) });
  const glossesOf = new Map<string, [string, number][]>();
  for (const g of glosses) append(glossesOf, g.headword, [g.gloss, g.sense]);
  return docs.map(({ id, headwords, ...d }) => ({
    ...d,
    chunks: chunksOf.get(id) ?? [],
    ...(headwords === null ? {} : { lexicon: headwords.map((headword) => ({ headword, glosses: glossesOf.get(headword) ?? [] })) }),
  }));
}

function append<K, V>(m: Map<K, V[]>, key: K, value: V): void {
  const list = m.get(key);
  if (list) list.push(value);
  else m.set(key, [value]);
}

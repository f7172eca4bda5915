/**
 * Keyword terms as Postgres tsvectors, built from the analyzer's tokens (core/text/analyzer.ts)
 * rather than parsed by a text search configuration: the server needs no CJK parser, and both
 * backends match the same tokens. BM25 reads each term's counts from the postings.
 */

/** tsvector keeps at most 256 positions of a lexeme, each ≤ 16383. */
const MAX_POSITIONS = 256;
const MAX_POSITION = 16383;
/** Lexemes longer than this (bytes) are refused by the server; such a token is never searched for. */
const MAX_LEXEME_BYTES = 2046;

/** A chunk's keyword terms as the writer stores them. */
export interface ChunkKeywords {
  /** The head's terms as a tsvector literal ('' for none). */
  head: string;
  /** Terms in head and in body, repeats included. */
  headLen: number;
  bodyLen: number;
  /**
   * Each term of head and body with its count in each (exact, unlike a tsvector's 256 positions);
   * terms the server refuses as lexemes are left out, as from the tsvector.
   */
  postings: Map<string, { head: number; body: number }>;
}

/** The stored forms of a chunk's space-separated head and body terms, each string split once. */
export function chunkKeywords(headTerms: string, bodyTerms: string): ChunkKeywords {
  const postings = new Map<string, { head: number; body: number }>();
  const positions = new Map<string, number[]>();
  const lengths = { head: 0, body: 0 };
  for (const [terms, column] of [[headTerms, 'head'], [bodyTerms, 'body']] as const) {
    let n = 0;
    for (const t of terms.split(' ')) {
      if (!t) continue;
      n++;
      if (Buffer.byteLength(t) > MAX_LEXEME_BYTES) continue;
      let tf = postings.get(t);
      if (!tf) postings.set(t, (tf = { head: 0, body: 0 }));
      tf[column]++;
      if (column === 'body') continue;
      let p = positions.get(t);
      if (!p) positions.set(t, (p = []));
      if (p.length < MAX_POSITIONS) p.push(Math.min(n, MAX_POSITION));
    }
    lengths[column] = n;
  }
  const parts: string[] = [];
  for (const [t, p] of positions) parts.push(`${quoteLexeme(t)}:${p.join(',')}`);
  return { head: parts.join(' '), headLen: lengths.head, bodyLen: lengths.body, postings };
}

/** 'lexeme' with quotes and backslashes escaped, as tsvector and tsquery input want it. */
export function quoteLexeme(t: string): string {
  return `'${t.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

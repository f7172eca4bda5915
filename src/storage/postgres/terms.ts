/**
 * Keyword terms as Postgres tsvectors, built from the analyzer's tokens (core/text/analyzer.ts)
 * rather than parsed by a text search configuration: the server needs no CJK parser, and both
 * backends match the same tokens. Positions carry each term's frequency for BM25.
 */

/** tsvector keeps at most 256 positions of a lexeme, each ≤ 16383. */
const MAX_POSITIONS = 256;
const MAX_POSITION = 16383;
/** Lexemes longer than this (bytes) are refused by the server; such a token is never searched for. */
const MAX_LEXEME_BYTES = 2046;

/** A tsvector literal of space-separated terms ('' for none), and the number of terms. */
export function tsvectorOf(terms: string): { vector: string; length: number } {
  const positions = new Map<string, number[]>();
  let n = 0;
  for (const t of terms.split(' ')) {
    if (!t) continue;
    n++;
    if (Buffer.byteLength(t) > MAX_LEXEME_BYTES) continue;
    let p = positions.get(t);
    if (!p) positions.set(t, (p = []));
    if (p.length < MAX_POSITIONS) p.push(Math.min(n, MAX_POSITION));
  }
  const parts: string[] = [];
  for (const [t, p] of positions) parts.push(`${quoteLexeme(t)}:${p.join(',')}`);
  return { vector: parts.join(' '), length: n };
}

/** 'lexeme' with quotes and backslashes escaped, as tsvector and tsquery input want it. */
export function quoteLexeme(t: string): string {
  return `'${t.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/**
 * A chunk's keyword postings: each term of head and body with its count in each (exact, unlike a
 * tsvector's 256 positions); terms the server refuses as lexemes are left out, as tsvectorOf does.
 */
export function postingsOf(head: string, body: string): Map<string, { head: number; body: number }> {
  const out = new Map<string, { head: number; body: number }>();
  for (const [terms, column] of [[head, 'head'], [body, 'body']] as const) {
    for (const t of terms.split(' ')) {
      if (!t || Buffer.byteLength(t) > MAX_LEXEME_BYTES) continue;
      let tf = out.get(t);
      if (!tf) out.set(t, (tf = { head: 0, body: 0 }));
      tf[column]++;
    }
  }
  return out;
}

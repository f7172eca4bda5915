import type { Database, Statement } from 'better-sqlite3';
import { matchExpression } from '../../core/text/analyzer.ts';
import type { RefScore } from '../roles.ts';
import type { ChunkFacts } from './facts.ts';
import { indexOfSorted } from '../../core/sorted-ids.ts';
import { topPositions } from '../../core/top-positions.ts';

/**
 * BM25 over ORed terms from per-term scores kept for the current generation.
 *
 * FTS5's bm25 adds, phrase by phrase in query order, IDF × saturated frequency; the IDF is the
 * phrase's own and the row length and average length are the table's, so a row's score for
 * "a OR b OR c" is its score for "a" alone plus its score for "b" alone plus "c", added in that
 * order from zero — the same floating-point operations, hence the same bits (checked against the
 * ORed query in tests/unit/term-scores.test.ts). A long-lived searcher keeps each term's
 * (row, score) list and merges the lists of a query instead of having FTS5 score every matching row
 * of every term again: the terms of queries recur (CJK bigrams, common words, the expansions of a
 * thesaurus). Bounded by bytes, least recently used first out; dropped when the generation moves.
 */

/** Bytes of term lists kept per connection (12 bytes a row a term). */
export const TERM_CACHE_BYTES = 8 << 20;

interface TermList {
  /** Rows in the facts (ascending chunk ids), and the term's score there. */
  rows: Int32Array;
  scores: Float64Array;
}

interface Cache {
  generation: number;
  headWeight: number;
  terms: Map<string, TermList>;
  bytes: number;
  /** Per facts row: the running sum of the query being merged (zeroed after each query). */
  acc: Float64Array;
  /** Per facts row: how many of the query's terms it holds (zeroed with acc). */
  count: Uint16Array;
  single: Statement;
}

function termList(c: Cache, facts: ChunkFacts, term: string): TermList {
  const hit = c.terms.get(term);
  if (hit) {
    c.terms.delete(term); // most recently used last
    c.terms.set(term, hit);
    return hit;
  }
  const found = c.single.all(c.headWeight, matchExpression([term])) as [number, number][];
  const rows = new Int32Array(found.length);
  const scores = new Float64Array(found.length);
  let n = 0;
  for (const [id, score] of found) {
    // A keyword row without a chunk in the facts passes no filter: left out, as the filter would.
    const row = indexOfSorted(facts.ids, id);
    if (row < 0) continue;
    rows[n] = row;
    scores[n++] = score;
  }
  const list = { rows: rows.subarray(0, n), scores: scores.subarray(0, n) };
  c.terms.set(term, list);
  c.bytes += n * 12 + 64;
  for (const [t, l] of c.terms) {
    if (c.bytes <= TERM_CACHE_BYTES || t === term) break;
    c.terms.delete(t);
    c.bytes -= l.rows.length * 12 + 64;
  }
  return list;
}

/** The term lists of one connection (a long-lived reader's), for the generation and head weight last asked. */
export class TermScores {
  private cache: Cache | null = null;

  constructor(private readonly db: Database) {}

  private cacheOf(facts: ChunkFacts, headWeight: number): Cache {
    const c = this.cache;
    if (!c || c.generation !== facts.generation || c.headWeight !== headWeight || c.acc.length !== facts.ids.length) {
      this.cache = {
        generation: facts.generation,
        headWeight,
        terms: new Map(),
        bytes: 0,
        acc: new Float64Array(facts.ids.length),
        count: new Uint16Array(facts.ids.length),
        single: c?.single ?? this.db.prepare('SELECT rowid, -bm25(chunks_fts, ?, 1) FROM chunks_fts WHERE chunks_fts MATCH ?').raw(),
      };
    }
    return this.cache!;
  }

  /**
   * The best k rows passing `pass` for the terms ORed, as `ORDER BY -bm25(chunks_fts, head, 1) DESC,
   * rowid` would rank them. `pass` tests chunk ids.
   */
  merged(facts: ChunkFacts, tokens: readonly string[], headWeight: number, k: number, pass: (id: number) => boolean): RefScore[] {
    const c = this.cacheOf(facts, headWeight);
    const { acc, count } = c;
    const touched: number[] = [];
    try {
      for (const term of tokens) {
        const { rows, scores } = termList(c, facts, term);
        for (let i = 0; i < rows.length; i++) {
          const r = rows[i]!;
          // Scores are > 0 (FTS5 floors IDF at 1e-6), so 0 means "not yet seen".
          if (acc[r] === 0) touched.push(r);
          acc[r]! += scores[i]!;
          count[r]!++;
        }
      }
      // Top k by score, then row (= chunk id) ascending, among rows that pass.
      return topPositions(acc, touched, k, (r) => pass(facts.ids[r]!)).map((r) => ({ ref: facts.ids[r]!, score: acc[r]!, terms: count[r]! }));
    } finally {
      for (const r of touched) (acc[r] = 0), (count[r] = 0);
    }
  }
}

/**
 * What a long-lived searcher keeps between queries (query analyses, chunk rows, exact vector
 * scores, shingles) never outlives the index it was read from: a sync that rewrites a document is
 * seen by the next search, and each list stays within its bound.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import { LruCache } from '../../src/core/lru.ts';
import { openSearcher, runIndex } from '../../src/engine/library.ts';
import { QueryAnalyses } from '../../src/search/query-analyses.ts';
import type { Searcher } from '../../src/search/search.ts';
import { cachedRows, ChunkRows } from '../../src/storage/sqlite/chunk-rows.ts';

let dir: string;
let cfg: Config;
const doc = (body: string) => `# Retries\n\n${body}\n`;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ragsync-search-caches-'));
  mkdirSync(join(dir, 'docs'));
  // One document: rewritten, its chunks are deleted and inserted again under the same ids.
  writeFileSync(join(dir, 'docs', 'retries.md'), doc('Exponential backoff with jitter spreads the retries of many clients.'));
  cfg = parseConfig({
    db: join(dir, 'index.db'),
    embedder: { provider: 'hash', dims: 128 },
    sources: [{ name: 'notes', kind: 'dir', path: join(dir, 'docs') }],
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const contents = async (s: Searcher, q: string) => (await s.search(q)).map((r) => r.content);

describe('a long-lived searcher across a sync', () => {
  it('answers a repeated query alike, and from the rewritten document after a sync changes it', async () => {
    expect((await runIndex(cfg)).status).toBe('ok');
    const s = openSearcher(cfg);
    try {
      const first = await s.searchDetailed('backoff jitter');
      expect(first.results.map((r) => r.content)).toEqual(['Exponential backoff with jitter spreads the retries of many clients.']);
      // Again: the analysis, rows and exact scores now come from what the first search kept.
      expect(await s.searchDetailed('backoff jitter')).toEqual(first);
      const [ref] = await s.store.findChunks({ source: 'notes', path: 'retries.md' });
      const terms = (await s.store.chunkTerms([ref!]))[0]!.terms;

      writeFileSync(join(dir, 'docs', 'retries.md'), doc('Backoff with full jitter: sleep a random time up to the doubled cap.'));
      expect((await runIndex(cfg)).status).toBe('ok');
      // The same chunk id now holds other text: nothing kept from before may answer for it.
      expect(await s.store.findChunks({ source: 'notes', path: 'retries.md' })).toEqual([ref]);
      expect(await contents(s, 'backoff jitter')).toEqual(['Backoff with full jitter: sleep a random time up to the doubled cap.']);
      expect((await s.store.chunkTexts([ref!]))[0]!.content).toContain('doubled cap');
      expect((await s.store.getChunks([ref!]))[0]!.content).toContain('doubled cap');
      expect((await s.store.chunkTerms([ref!]))[0]!.terms).not.toEqual(terms);
      // The literal stage reads the stored terms: the new wording is found as written, the old is not.
      expect(await contents(s, 'sleep a random time')).toEqual(['Backoff with full jitter: sleep a random time up to the doubled cap.']);
      expect((await s.searchDetailed('spreads clients', { mode: 'keyword' })).results).toEqual([]);
      // A fresh searcher over the synced index answers exactly as the long-lived one does.
      const fresh = openSearcher(cfg);
      try {
        for (const q of ['backoff jitter', 'sleep a random time', 'doubled cap']) expect(await s.searchDetailed(q)).toEqual(await fresh.searchDetailed(q));
      } finally {
        await fresh.close();
      }
    } finally {
      await s.close();
    }
  });
});

describe('the caches are bounded', () => {
  it('chunk rows: more refs than the capacity are all returned, and at most the capacity kept', () => {
    const rows = new ChunkRows({ texts: 3, terms: 3, hits: 3 }).at(1);
    const read: number[][] = [];
    const got = cachedRows(rows.terms, [5, 1, 4, 2, 3, 5], (missing) => (read.push(missing), missing.map((ref) => ({ ref, terms: `t${ref}` }))));
    expect(got.map((r) => r.ref)).toEqual([5, 1, 4, 2, 3, 5]);
    expect(read).toEqual([[5, 1, 4, 2, 3]]);
    expect(rows.terms.size).toBe(3);
    // The most recent are kept: asking for them reads nothing.
    cachedRows(rows.terms, [4, 2, 3], (missing) => (read.push(missing), []));
    expect(read).toHaveLength(1);
    // Ids the index lacks are left out (and not kept).
    expect(cachedRows(rows.terms, [9], () => [])).toEqual([]);
    // Another generation: nothing kept.
    expect(rows.at(2).terms.size).toBe(0);
  });

  it('query analyses: bounded, emptied when the generation moves, a failed one not kept', async () => {
    const a = new QueryAnalyses<string>(2);
    let made = 0;
    const make = (v: string) => () => (made++, Promise.resolve(v));
    expect(await a.of('q1', 7, make('a1'))).toBe('a1');
    expect(await a.of('q1', 7, make('other'))).toBe('a1');
    await a.of('q2', 7, make('a2'));
    await a.of('q3', 7, make('a3'));
    expect(a.size).toBe(2);
    expect(made).toBe(3);
    expect(await a.of('q3', 8, make('a3 at 8'))).toBe('a3 at 8');
    expect(a.size).toBe(1);
    await expect(a.of('bad', 8, () => Promise.reject(new Error('lexicon gone')))).rejects.toThrow('lexicon gone');
    await new Promise((r) => setImmediate(r));
    expect(await a.of('bad', 8, make('ok now'))).toBe('ok now');
  });

  it('the LRU drops the least recently used first', () => {
    const c = new LruCache<string, number>(2);
    c.set(1, 'a');
    c.set(2, 'b');
    c.get(1);
    c.set(3, 'c');
    expect([c.get(1), c.get(2), c.get(3), c.size]).toEqual(['a', undefined, 'c', 2]);
  });
});

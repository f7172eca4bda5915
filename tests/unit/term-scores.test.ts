import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { queryTerms, defaultAnalyzer } from '../../src/core/text/analyzer.ts';
import { HashEmbedder } from '../../src/embedding/hash.ts';
import { MIGRATIONS_DIR, migrate } from '../../src/storage/sqlite/migrate.ts';
import { SqliteIndex } from '../../src/storage/sqlite/index.ts';
import { encodeVector } from '../../src/storage/sqlite/blob.ts';
import type { KeywordQuery } from '../../src/storage/roles.ts';
import { writeFixture, type FixtureDoc } from '../helpers/search-fixture.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ragsync-terms-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Documents drawn from a small alphabet, so terms match many rows, rows share lengths and scores
 * tie: the merged per-term scores must still give FTS5's own ranking, bit for bit.
 */
function corpus(n: number, seed: number): FixtureDoc[] {
  const chars = '甲乙丙丁戊己庚辛壬癸子丑寅卯';
  const words = ['alpha', 'beta', 'gamma', 'delta', 'retry', 'queue'];
  let s = seed;
  const rnd = (m: number) => ((s = (s * 1103515245 + 12345) % 2 ** 31), Math.floor((s / 2 ** 31) * m));
  return Array.from({ length: n }, (_, i) => {
    const len = 4 + rnd(6);
    const body = Array.from({ length: len }, () => chars[rnd(chars.length)]).join('') + ' ' + words[rnd(words.length)];
    return { path: `d${i}.md`, chunks: [[rnd(3) ? '' : chars[rnd(chars.length)]! + chars[rnd(chars.length)]!, body]] };
  });
}

const QUERIES = ['甲乙丙', '丙丁 retry', '子丑寅卯 alpha beta', '庚辛壬癸甲', 'queue', '乙 gamma delta', '丑丑丑寅'];

/** Whether chunk `ref` holds keyword term `t` (FTS5 asked directly). */
const held = (store: SqliteIndex, ref: number, t: string) =>
  (store.db.prepare('SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?').pluck().all(`"${t}"`) as number[]).includes(ref);

describe('keyword ranking from per-term scores kept between queries', () => {
  it('gives the ORed FTS5 query its exact ranking and scores: filters, k, head weights, terms repeated across queries', async () => {
    const store = new SqliteIndex(join(dir, 'i.db'));
    await writeFixture(store, 'one', corpus(300, 7));
    await writeFixture(store, 'two', corpus(200, 11));
    for (const headWeight of [2, 1, 0]) {
      for (const q of QUERIES) {
        const tokens = queryTerms(defaultAnalyzer, q);
        for (const [k, filter] of [
          [10, undefined],
          [50, { sources: ['one'] }],
          [500, { sources: ['two'] }],
          [3, { sources: ['one', 'two'] }],
        ] as [number, KeywordQuery['filter']][]) {
          const plain = await store.keyword({ tokens, k, filter, headWeight, countTerms: true });
          expect(plain.length, `${q} ${JSON.stringify(filter)}`).toBeGreaterThan(0);
          const reused = await store.keyword({ tokens, k, filter, headWeight, reuse: true });
          // The same hits, scores and term counts (a one-shot search counts them from the hits' rows).
          expect(reused).toEqual(plain);
          // Not asked for, the counts are left out; the hits and scores are the same.
          const uncounted = await store.keyword({ tokens, k, filter, headWeight });
          expect(uncounted.every((h) => h.terms === undefined)).toBe(true);
          expect(uncounted).toEqual(plain.map(({ ref, score }) => ({ ref, score })));
          // Each hit says how many of the query's terms it holds.
          for (const h of reused.slice(0, 5)) expect(h.terms, `${q} ${h.ref}`).toBe(tokens.filter((t) => held(store, h.ref, t)).length);
        }
      }
    }
    await store.close();
  });

  it('follows writes: a new generation is never answered from the old one', async () => {
    const store = new SqliteIndex(join(dir, 'i.db'));
    await writeFixture(store, 'one', corpus(100, 3));
    const tokens = queryTerms(defaultAnalyzer, '甲乙 alpha');
    const q = { tokens, k: 20, reuse: true, countTerms: true };
    expect(await store.keyword(q)).toEqual(await store.keyword({ ...q, reuse: false }));
    await writeFixture(store, 'one', [{ path: 'new.md', chunks: [['甲乙', '甲乙甲乙 alpha alpha']] }]);
    const after = await store.keyword(q);
    expect(after).toEqual(await store.keyword({ ...q, reuse: false }));
    const [id] = store.db.prepare("SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.path = 'new.md'").pluck().all();
    expect(after[0]!.ref).toBe(id);
    await store.close();
  });
});

describe('migration 009: vectors keyed by a narrow index', () => {
  it('keeps every vector of an index made before it, and a lookup by key reads the key index', async () => {
    // An index at migration 008, written through the old WITHOUT ROWID table.
    const old = join(dir, 'migrations-008');
    mkdirSync(old);
    for (const f of readdirSync(MIGRATIONS_DIR)) if (Number(f.slice(0, 3)) <= 8) copyFileSync(join(MIGRATIONS_DIR, f), join(old, f));
    const file = join(dir, 'old.db');
    const raw = new BetterSqlite3(file);
    raw.pragma('foreign_keys = ON');
    migrate(raw, old);
    const emb = new HashEmbedder(64);
    raw.prepare('INSERT INTO embedders (fingerprint, provider, model, dims, created_at) VALUES (?, ?, ?, ?, ?)').run(emb.info.fingerprint, 'hash', 'x', 64, 't');
    const vecs = await emb.embed(['一', '二', 'three']);
    const put = raw.prepare('INSERT INTO vectors (fingerprint, text_hash, dims, embedding, created_at) VALUES (?, ?, 64, ?, ?)');
    vecs.forEach((v, i) => put.run(emb.info.fingerprint, `h${i}`, encodeVector(v), `t${i}`));
    const rows = () => raw.prepare('SELECT fingerprint, text_hash, dims, hex(embedding) AS e, created_at FROM vectors ORDER BY text_hash').all();
    const before = rows();
    expect(raw.prepare("SELECT sql FROM sqlite_master WHERE name = 'vectors'").pluck().get()).toMatch(/WITHOUT ROWID/);
    migrate(raw);
    expect(rows()).toEqual(before);
    expect(raw.prepare("SELECT sql FROM sqlite_master WHERE name = 'vectors'").pluck().get()).not.toMatch(/WITHOUT ROWID/);
    expect(raw.prepare('SELECT stored FROM v_coverage').pluck().get()).toBe(3);
    const plan = raw
      .prepare("EXPLAIN QUERY PLAN SELECT embedding FROM vectors WHERE fingerprint = ? AND text_hash = 'h1'")
      .all(emb.info.fingerprint) as { detail: string }[];
    expect(plan.map((p) => p.detail).join(' ')).toMatch(/USING INDEX vectors_key/);
    // The key stays unique: a second vector for a text replaces the first.
    raw.prepare("INSERT OR REPLACE INTO vectors (fingerprint, text_hash, dims, embedding, created_at) VALUES (?, 'h1', 64, ?, 'later')").run(emb.info.fingerprint, encodeVector(vecs[0]!));
    expect(raw.prepare('SELECT count(*) FROM vectors').pluck().get()).toBe(3);
    raw.close();
  });
});

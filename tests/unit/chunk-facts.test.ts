import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { CachedFacts, FACTS_OF_ALL_SQL, FACTS_OF_ID_SQL, LookupFacts } from '../../src/storage/sqlite/facts.ts';
import { SqliteIndex } from '../../src/storage/sqlite/index.ts';
import { SqliteConnection } from '../../src/storage/sqlite/statements.ts';
import { makeFixture, writeFixture, type Fixture } from '../helpers/search-fixture.ts';

let fx: Fixture;
beforeEach(async () => {
  fx = await makeFixture();
});
afterEach(() => fx.cleanup());

describe('chunk facts', () => {
  it('are read from the covering index alone (no chunk texts)', () => {
    const db = new BetterSqlite3(fx.db, { readonly: true });
    const plan = (sql: string, ...args: unknown[]) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail).join(' | ');
    expect(plan(FACTS_OF_ALL_SQL)).toContain('SCAN c USING COVERING INDEX chunks_facts');
    expect(plan(FACTS_OF_ID_SQL, 1)).toContain('SEARCH c USING COVERING INDEX chunks_facts (id=?)');
    db.close();
  });

  it('flag broken chunks and documents the same from the index as from the rows, in both strategies', async () => {
    const brokenRows = () => {
      const db = new BetterSqlite3(fx.db, { readonly: true });
      const rows = db.prepare(FACTS_OF_ALL_SQL.replace('INDEXED BY chunks_facts', 'NOT INDEXED')).raw().all() as [number, number, string, string, number][];
      db.close();
      return rows.filter((r) => r[4]).length;
    };
    const before = brokenRows();
    const store = new SqliteIndex(fx.db);
    await writeFixture(store, 'classics', [
      { path: 'torn.md', chunks: [['a', '魁罡日主', { broken: true }], ['b', '日刃格局', { broken: 'true' }], ['c', '金神入火']] },
      { path: 'bad.md', metadata: { broken: true }, chunks: [['d', '六秀日生'], ['e', '天元坐禄', { broken: false }]] },
    ]);
    await store.close();
    const c = new SqliteConnection(fx.db, 'read');
    const fromRows = c.db
      .prepare(FACTS_OF_ALL_SQL.replace('INDEXED BY chunks_facts', 'NOT INDEXED'))
      .raw()
      .all() as [number, number, string, string, number][];
    const cached = new CachedFacts(c).filter({ sources: ['classics'] });
    const lookup = new LookupFacts(c).filter({ sources: ['classics'] });
    const passing = fromRows.filter(([, , name, , broken]) => name === 'classics' && !broken).map(([id]) => id);
    expect(fromRows.filter(([, , , , broken]) => broken).length).toBe(before + 3);
    for (const [id] of fromRows) {
      expect(cached.pass(id)).toBe(passing.includes(id));
      expect(lookup.pass(id)).toBe(passing.includes(id));
    }
    // Every source (a plain search): the lookup strategy tests the broken ids alone, to the same answers.
    const every = [new CachedFacts(c).filter(undefined), new LookupFacts(c).filter(undefined)];
    const unbroken = fromRows.filter(([, , , , broken]) => !broken).map(([id]) => id);
    expect(unbroken.length).toBe(fromRows.length - before - 3);
    for (const [id] of fromRows) for (const f of every) expect(f.pass(id)).toBe(unbroken.includes(id));
    c.close();
  });
});

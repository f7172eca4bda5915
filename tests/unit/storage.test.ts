import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import BetterSqlite3 from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { SqliteIndex } from '../../src/storage/sqlite/index.ts';
import { decodeVector, encodeVector } from '../../src/storage/sqlite/blob.ts';
import { listMigrations } from '../../src/storage/sqlite/migrate.ts';
import { tempDir } from '../helpers/tmp.ts';

describe('storage', () => {
  it('stores float32 little-endian BLOBs that sqlite-vec and plain SQL can read', async () => {
    const t = tempDir();
    const file = join(t.dir, 'x.db');
    const store = new SqliteIndex(file);
    await store.registerEmbedder({ fingerprint: 'fp', provider: 'p', model: 'm', dims: 3 });
    await store.putVectors('fp', [{ textHash: 'h1', vector: new Float32Array([1, -2.5, 0.25]) }]);
    await store.close();

    const db = new BetterSqlite3(file, { readonly: true });
    sqliteVec.load(db);
    const row = db.prepare("SELECT dims, length(embedding) AS bytes, hex(embedding) AS hex, vec_to_json(embedding) AS json FROM vectors").get() as Record<string, unknown>;
    expect(row).toEqual({ dims: 3, bytes: 12, hex: '0000803F000020C00000803E', json: '[1.000000,-2.500000,0.250000]' });
    const blob = db.prepare('SELECT embedding FROM vectors').pluck().get() as Buffer;
    expect([...decodeVector(blob)]).toEqual([1, -2.5, 0.25]);
    db.close();
    t.cleanup();
  });

  it('refuses a BLOB whose length does not match dims', async () => {
    const t = tempDir();
    const store = new SqliteIndex(join(t.dir, 'x.db'));
    await store.registerEmbedder({ fingerprint: 'fp', provider: 'p', model: 'm', dims: 3 });
    expect(() =>
      store.db.prepare("INSERT INTO vectors VALUES ('fp', 'h', 4, ?, 'now')").run(encodeVector(new Float32Array(3))),
    ).toThrow(/CHECK constraint/);
    await store.close();
    t.cleanup();
  });

  it('applies numbered migrations once, recorded in schema_migrations, with WAL and foreign keys on', async () => {
    const t = tempDir();
    const file = join(t.dir, 'x.db');
    await new SqliteIndex(file).close();
    const store = new SqliteIndex(file);
    const versions = store.db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all();
    expect(versions).toEqual(listMigrations().map((m) => m.version));
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('foreign_keys', { simple: true })).toBe(1);
    await store.close();
    t.cleanup();
  });

  it('the views read without BLOBs in the sqlite3 shell sense: plain SQL, no extension needed', async () => {
    const t = tempDir();
    const file = join(t.dir, 'x.db');
    const store = new SqliteIndex(file);
    await store.ensureSource({ name: 's', kind: 'dir', url: null, branch: null });
    await store.writeDocuments('s', [
      {
        path: 'a.md', contentHash: 'c', stamp: 's', size: 1, chunker: 'k', title: 'A', metadata: {},
        chunks: [{ ordinal: 0, key: 'a#0', heading: 'A', content: 'x', text: 'A\n\nx', textHash: 'h', tokens: 1, terms: 'a x', headTerms: 'a', metadata: {} }],
      },
    ]);
    await store.close();
    const db = new BetterSqlite3(file, { readonly: true });
    expect(db.prepare('SELECT source, path, title, chunks FROM v_documents').all()).toEqual([{ source: 's', path: 'a.md', title: 'A', chunks: 1 }]);
    expect(db.prepare('SELECT source, path, key, preview FROM v_chunks').all()).toEqual([{ source: 's', path: 'a.md', key: 'a#0', preview: 'x' }]);
    db.close();
    t.cleanup();
  });
});

import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { SqliteIndex } from '../../src/storage/sqlite/index.ts';
import { tempDir } from '../helpers/tmp.ts';

const pathOf = (err: unknown) => (err as { path?: unknown } | null)?.path;

describe('the SQLite index: role objects behind one connection', () => {
  it('reaches each role through the index; errors through it, an async iterator\'s and a document write\'s included, name the file', async () => {
    const t = tempDir();
    try {
      const file = join(t.dir, 'index.db');
      const store = new SqliteIndex(file);
      await store.ensureSource({ name: 'n', kind: 'dir', url: null, branch: null });
      // The index's methods are the role objects' own, on their shared connection.
      expect(await store.dumpSources()).toEqual(await store.dump.dumpSources());
      expect((await store.status()).sources.map((s) => s.name)).toEqual(['n']);
      expect(await store.generation()).toBe(await store.reader.generation());

      const write = await store.beginDocuments('n');
      store.connection.db.close();
      const viaWrite = await write.remove(['a.md']).catch((e: unknown) => e);
      const viaAsync = await store.status().catch((e: unknown) => e);
      const viaIterator = await (async () => {
        for await (const row of store.exportChunks()) void row;
      })().catch((e: unknown) => e);
      for (const err of [viaWrite, viaAsync, viaIterator]) {
        expect(err).toBeInstanceOf(Error);
        expect(pathOf(err)).toBe(file);
      }
    } finally {
      t.cleanup();
    }
  });
});

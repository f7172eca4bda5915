// `source remove` on the Postgres backend: the same function as on SQLite, through the storage
// roles, takes the source's rows out and the vectors only it used (tests/helpers/pg-setup.ts).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { builtinProfiles, loadConfig } from '../../src/builtin.ts';
import { removeSource } from '../../src/sync/manage-sources.ts';
import { indexes } from '../../src/engine/engine.ts';

import { freshSchema, needPostgres, pgQuery } from '../helpers/postgres.ts';
import { tempDir } from '../helpers/tmp.ts';
import { runIndex } from '../../src/engine/library.ts';

const pg = needPostgres();

describe.skipIf(!pg.ok)(pg.title('source remove on postgres'), () => {
  const t = tempDir('ragsync-source-pg-');
  const s = pg.ok ? freshSchema('src') : null;
  afterAll(async () => {
    await s?.drop();
    t.cleanup();
  });

  it('deletes the documents, chunks, source row and unshared vectors; keeps a shared text and the other source', async () => {
    const shared = '# Shared\n\nA paragraph both folders hold, word for word.\n';
    for (const [dir, own] of [['a', '# Alpha\n\nOnly in a.\n'], ['b', '# Beta\n\nOnly in b.\n']] as const) {
      mkdirSync(join(t.dir, dir));
      writeFileSync(join(t.dir, dir, `${dir}.md`), own);
      writeFileSync(join(t.dir, dir, 'shared.md'), shared);
    }
    const file = join(t.dir, 'ragsync.jsonc');
    const text = `{
  "db": ${JSON.stringify(s!.url)},
  "embedder": { "provider": "hash", "dims": 64 },
  "sources": [
    { "name": "a", "kind": "dir", "path": "./a" }, // keep
    { "name": "b", "kind": "dir", "path": "./b" } // goes
  ]
}
`;
    writeFileSync(file, text);
    expect((await runIndex(loadConfig(file))).status).toBe('ok');
    const hashes = async (name: string) =>
      (await pgQuery<{ h: string }>(`SELECT c.text_hash AS h FROM "${s!.schema}".chunks c JOIN "${s!.schema}".documents d ON d.id = c.document_id JOIN "${s!.schema}".sources x ON x.id = d.source_id WHERE x.name = $1`, [name])).map((r) => r.h);
    const vectors = async () => new Set((await pgQuery<{ h: string }>(`SELECT text_hash AS h FROM "${s!.schema}".vectors`)).map((r) => r.h));
    const a = await hashes('a');
    const b = await hashes('b');
    const onlyB = b.filter((h) => !a.includes(h));
    expect(onlyB.length).toBeGreaterThan(0);
    expect(b.some((h) => a.includes(h))).toBe(true);

    const r = await removeSource(builtinProfiles, file, 'b', { indexes });
    expect(r).toMatchObject({ name: 'b', documents: 2, chunks: b.length, vectors: onlyB.length, configEdited: true });
    expect(await hashes('b')).toEqual([]);
    expect(await pgQuery(`SELECT 1 FROM "${s!.schema}".sources WHERE name = 'b'`)).toEqual([]);
    const left = await vectors();
    for (const h of onlyB) expect(left.has(h)).toBe(false);
    for (const h of a) expect(left.has(h)).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(text.replace('    { "name": "a", "kind": "dir", "path": "./a" }, // keep\n    { "name": "b", "kind": "dir", "path": "./b" } // goes\n', '    { "name": "a", "kind": "dir", "path": "./a" } // keep\n'));
  });
});

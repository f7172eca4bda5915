// A kind of source the engine has never heard of, defined here and nowhere in src/: one registry
// entry (its rules, `source add` inference, snapshot, listing) beside the built-in ones, handed to
// the loader as the profiles are. The config, `source add`, a run, the sources table and a search
// take it with nothing else changed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinProfiles } from '../../src/builtin.ts';
import { parseConfig } from '../../src/config/load.ts';
import { sourceEntry } from '../../src/config/source-entry.ts';
import { createSourceKindRegistry } from '../../src/config/source-kinds.ts';
import { builtinSourceKinds, type SourceKind } from '../../src/sources/registry.ts';
import { openSearcher, runIndex } from '../../src/engine/library.ts';
import BetterSqlite3 from 'better-sqlite3';
import { tempDir } from '../helpers/tmp.ts';

/** One JSON Lines file of notes ({"id", "text"} a line), each line a Markdown document. */
const jsonl: SourceKind = {
  name: 'jsonl',
  description: 'a JSON Lines file of notes, one document a line',
  root: 'path',
  fileGlobs: false,
  check: (s) => (typeof s.path === 'string' && s.path.endsWith('.jsonl') ? [] : [{ field: 'path', message: 'a .jsonl file, required for a jsonl source' }]),
  claims: (w) => w.folder !== null && w.location.endsWith('.jsonl'),
  entry: (w) => ({ path: w.folder }),
  nameFor: (location) => location.replace(/^.*\//, '').replace(/\.jsonl$/, ''),
  snapshot: async (s) => {
    const notes = readFileSync(s.root, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: string; text: string });
    const bytes = new Map(notes.map((n) => [`${n.id}.md`, Buffer.from(n.text)]));
    return {
      commit: null,
      files: [...bytes].map(([path, b]) => ({ path, size: b.length, stamp: `${b.length}:${b.toString('base64').slice(0, 16)}` })),
      read: async function* (paths) {
        for (const path of paths) yield { path, bytes: bytes.get(path)! };
      },
    };
  },
  describe: (s) => s.root,
  record: (s) => ({ url: s.root, branch: null }),
  listingKey: false,
};
const kinds = createSourceKindRegistry([...builtinSourceKinds.kinds, jsonl]);

let t: ReturnType<typeof tempDir>;
let file: string;
beforeAll(() => {
  t = tempDir();
  file = join(t.dir, 'notes.jsonl');
  writeFileSync(file, [{ id: 'tea', text: '# Tea\n\nGreen tea is steeped at eighty degrees.\n' }, { id: 'bread', text: '# Bread\n\nSourdough rises overnight.\n' }].map((n) => JSON.stringify(n)).join('\n'));
});
afterAll(() => t.cleanup());

describe('a fourth source kind, one registry entry', () => {
  it('the config takes it by name and applies its rules; the built-in registry does not know it', () => {
    expect(() => parseConfig(builtinProfiles, kinds, { sources: [{ name: 'n', kind: 'jsonl', path: 'notes.txt' }] })).toThrow(
      'config: sources[0].path: a .jsonl file, required for a jsonl source',
    );
    expect(() => parseConfig(builtinProfiles, builtinSourceKinds, { sources: [{ name: 'n', kind: 'jsonl', path: file }] })).toThrow(
      'config: sources[0].kind: Invalid option: expected one of "git"|"dir"|"web" (got "jsonl")',
    );
    // Another kind's own field on it is refused, as on any kind.
    expect(() => parseConfig(builtinProfiles, kinds, { sources: [{ name: 'n', kind: 'jsonl', path: file, maxPages: 3 }] })).toThrow(
      'sources[0].maxPages: only for a web source (this one is jsonl)',
    );
  });

  it('source add infers it from the location', () => {
    const entry = sourceEntry(kinds, { location: 'notes.jsonl' }, { cwd: t.dir, configDir: t.dir, taken: new Set() });
    expect(entry).toEqual({ name: 'notes', kind: 'jsonl', path: file });
  });

  it('a run indexes it, the sources table records it, a search finds it', async () => {
    const config = parseConfig(builtinProfiles, kinds, { db: join(t.dir, 'i.db'), sources: [{ name: 'notes', kind: 'jsonl', path: file }] });
    const r = await runIndex(config);
    expect(r.status, r.sources[0]?.error ?? '').toBe('ok');
    const db = new BetterSqlite3(join(t.dir, 'i.db'), { readonly: true });
    expect(db.prepare('SELECT name, kind, url FROM sources').all()).toEqual([{ name: 'notes', kind: 'jsonl', url: file }]);
    db.close();
    const searcher = openSearcher(config);
    try {
      expect((await searcher.search('sourdough', { mode: 'keyword' })).map((h) => h.path)).toEqual(['bread.md']);
    } finally {
      await searcher.close();
    }
  });
});

import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, parseConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import { RagsyncError } from '../../src/core/errors.ts';
import { tempDir, REPO_ROOT } from '../helpers/tmp.ts';

const err = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(RagsyncError);
    return (e as RagsyncError).message;
  }
  throw new Error('expected an error');
};

describe('config', () => {
  it('resolves relative paths against the config file and fills defaults', () => {
    const t = tempDir();
    const file = join(t.dir, 'c.json');
    writeFileSync(file, JSON.stringify({ db: 'data/x.db', sources: [{ name: 's', url: '../up.git' }, { name: 'd', kind: 'dir', path: 'docs' }] }));
    const c = loadConfig(file);
    expect(c.db).toBe(join(t.dir, 'data/x.db'));
    expect(c.checkouts).toBe(join(t.dir, 'data/checkouts'));
    expect(c.embedder).toEqual({ provider: 'hash', dims: 1024, batchSize: 256 });
    expect(c.sources[0]).toMatchObject({ kind: 'git', branch: 'main', url: join(t.dir, '../up.git'), root: expect.stringMatching(new RegExp(`^${join(t.dir, 'data/checkouts')}/s-[0-9a-f]{10}$`)), chunker: 'markdown', include: ['**/*.md'], maxFileBytes: 2_000_000 });
    expect(c.sources[0]!.chunking).toEqual({ targetTokens: 500, overlap: 0.15 });
    expect(c.sources[1]!.root).toBe(join(t.dir, 'docs'));
    t.cleanup();
  });

  it('takes a postgres:// or postgresql:// db as a server URL, not a path', () => {
    const t = tempDir();
    const file = join(t.dir, 'c.json');
    for (const db of ['postgres://u:pw@db.example:5432/idx?schema=notes', 'postgresql://db.example/idx']) {
      writeFileSync(file, JSON.stringify({ db, sources: [{ name: 's', url: '../up.git' }] }));
      const c = loadConfig(file);
      expect(c.db).toBe(db);
      expect(c.checkouts).toBe(join(t.dir, 'checkouts'));
      expect(c.sources[0]!.root).toMatch(new RegExp(`^${join(t.dir, 'checkouts')}/s-[0-9a-f]{10}$`));
    }
    t.cleanup();
  });

  it('keeps remote URLs as they are', () => {
    const c = parseConfig({ sources: [{ name: 's', url: 'https://github.com/s-theo/xx.theojs.cn.git' }] });
    expect(c.sources[0]!.url).toBe('https://github.com/s-theo/xx.theojs.cn.git');
  });

  it('names the field and the value in errors', () => {
    expect(err(() => parseConfig({ sources: [] }, 'c.json'))).toMatch(/^c\.json: sources: /);
    expect(err(() => parseConfig({ sources: [{ name: 's', kind: 'git' }] }))).toBe('config: sources[0].url: required for a git source');
    expect(err(() => parseConfig({ sources: [{ name: 'a b', url: 'x' }] }))).toMatch(/sources\[0\]\.name: .*"a b"/);
    expect(err(() => parseConfig({ sources: [{ name: 's', url: 'x', maxFileBytes: -1 }] }))).toMatch(/sources\[0\]\.maxFileBytes: .*-1/);
    expect(err(() => parseConfig({ sources: [{ name: 's', url: 'x' }, { name: 's', url: 'y' }] }))).toMatch(/sources\[1\]\.name: duplicate source name "s"/);
    expect(err(() => parseConfig({ sources: [{ name: 's', url: 'x' }], colour: 'red' }))).toMatch(/colour/);
    expect(err(() => loadConfig('/nonexistent/ragsync.json'))).toBe('config file not found: /nonexistent/ragsync.json');
  });

  it('takes hnsw build settings for a Postgres index and names a bad one in one line', () => {
    const base = { db: 'postgres://db.example/idx', sources: [{ name: 's', url: 'x' }] };
    expect(parseConfig(base).hnsw).toBeUndefined();
    expect(parseConfig({ ...base, hnsw: { m: 24, efConstruction: 128, buildMemoryMb: 1024 } }).hnsw).toEqual({ m: 24, efConstruction: 128, buildMemoryMb: 1024 });
    expect(err(() => parseConfig({ ...base, hnsw: { m: 1 } }, 'c.json'))).toMatch(/^c\.json: hnsw\.m: .*2.*$/);
    expect(err(() => parseConfig({ ...base, hnsw: { m: 32, efConstruction: 40 } }, 'c.json'))).toBe('c.json: hnsw.efConstruction: efConstruction (40) must be at least 2 × m (32)');
    expect(err(() => parseConfig({ ...base, hnsw: { m: 80 } }, 'c.json'))).toMatch(/^c\.json: hnsw\.m: efConstruction \(\d+\) must be at least 2 × m \(80\)$/);
    expect(err(() => parseConfig({ ...base, hnsw: { buildMemoryMb: 8 } }, 'c.json'))).toMatch(/^c\.json: hnsw\.buildMemoryMb: .*64/);
    expect(err(() => parseConfig({ ...base, hnsw: { efconstruction: 100 } }, 'c.json'))).toMatch(/^c\.json: hnsw: .*efConstruction/);
  });

  it('the shipped configs are valid', () => {
    for (const f of ['config/ragsync.json', 'config/example.json']) expect(() => loadConfig(join(REPO_ROOT, f))).not.toThrow();
  });
});

describe('config: sizes, suggestions, syntax', () => {
  const src = [{ name: 's', kind: 'dir', path: '/tmp' }];

  it('takes "dims" for every provider and "dimensions" as another name for it', () => {
    const openai = parseConfig({ sources: src, embedder: { provider: 'openai', dims: 1024 } });
    expect(openai.embedder).toMatchObject({ provider: 'openai', dimensions: 1024 });
    const hash = parseConfig({ sources: src, embedder: { provider: 'hash', dimensions: 512 } });
    expect(hash.embedder).toEqual({ provider: 'hash', dims: 512, batchSize: 256 });
    expect(err(() => parseConfig({ sources: src, embedder: { provider: 'hash', dims: 512, dimensions: 512 } }))).toBe(
      'config: embedder.dimensions: give "dims" or "dimensions" (another name for it), not both (got 512)',
    );
    expect(err(() => parseConfig({ sources: src, embedder: { provider: 'zhipu', dims: 300 } }))).toBe(
      'config: embedder.dims: embedding-3 produces 256/512/1024/2048 dimensions (got 300)',
    );
  });

  it('suggests the nearest key or value', () => {
    expect(err(() => parseConfig({ sourcse: src }))).toBe('config: (root): Unrecognized key: "sourcse" (did you mean "sources"?)');
    expect(err(() => parseConfig({ sources: [{ ...src[0], chunkr: 'x' }] }))).toBe('config: sources[0]: Unrecognized key: "chunkr" (did you mean "chunker"?)');
    expect(err(() => parseConfig({ sources: [{ ...src[0], kind: 'dri' }] }))).toMatch(/sources\[0\]\.kind: .*\(got "dri"\) \(did you mean "dir"\?\)$/);
    expect(err(() => parseConfig({ sources: [{ ...src[0], chunker: 'bookmark' }] }))).toMatch(/\(did you mean "bookmarks"\?\)$/);
    expect(err(() => parseConfig({ sources: src, embedder: { provider: 'opnai' } }))).toMatch(/\(got "opnai"\) \(did you mean "openai"\?\)$/);
    // Nothing close: no guess.
    expect(err(() => parseConfig({ sources: [{ ...src[0], zzzzzz: 1 }] }))).toBe('config: sources[0]: Unrecognized key: "zzzzzz"');
  });

  it('reads comments and trailing commas, and names the line and column of a syntax error', () => {
    const t = tempDir();
    const file = join(t.dir, 'c.json');
    writeFileSync(file, `{\n  // the index\n  "db": "x.db", /* beside this file */\n  "sources": [{ "name": "s", "kind": "dir", "path": "docs", },],\n}\n`);
    expect(loadConfig(file).db).toBe(join(t.dir, 'x.db'));
    writeFileSync(file, `{\n  "db": "x.db"\n  "sources": []\n}\n`);
    expect(err(() => loadConfig(file))).toBe(`${file}:3:3: not valid JSON: expected "," or "}" after a property value, found "\\""`);
    t.cleanup();
  });
});

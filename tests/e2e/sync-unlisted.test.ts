// A git source fetched at the commit its last complete run indexed, under the same settings, is not
// listed again (migration 013's listing key). These tests hold the shortcut to the full path's
// results, and to the full path itself whenever anything the listing or the plan reads moved.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { pino } from 'pino';
import { Upstream } from '../helpers/upstream.ts';
import { tempDir } from '../helpers/tmp.ts';
import { gitConfig, index, snapshotDb } from '../helpers/index-fixture.ts';
import { parseConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import type { ConfigInput } from '../../src/config/schema.ts';
import type { IndexOptions } from '../../src/sync/run.ts';
import { SqliteIndex } from '../../src/storage/sqlite/index.ts';

const NOT_LISTED = 'unchanged since its last complete run: not listed';
const para = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${topic}第${i + 1}句，论其旺衰喜忌，以月令为纲。`).join('');

let t: ReturnType<typeof tempDir>;
let up: Upstream;
let base: Partial<ConfigInput['sources'][number]>;

beforeEach(() => {
  t = tempDir();
  up = new Upstream(join(t.dir, 'up'));
  base = { chunking: { targetTokens: 80, overlap: 0.15 } };
  up.write('a.md', `# 甲篇\n\n## 论木\n\n${para('甲木', 4)}\n\n## 论火\n\n${para('丙火', 3)}\n`)
    .write('b.md', `# Bee\n\nBees make honey. They live in hives.\n\n${para('丁火', 5)}\n`)
    .write('sub/c.md', `# 丙篇\n\n${para('戊土', 6)}\n`);
  up.commit('initial');
});
afterEach(() => t.cleanup());

const configWith = (extra: Partial<ConfigInput['sources'][number]> = {}, top: Partial<ConfigInput> = {}): Config =>
  gitConfig(t.dir, up.bare, { ...base, ...extra }, top);

/** An index run with its debug log: whether the source was listed is only said there. */
async function run(config: Config, opts: IndexOptions = {}) {
  const lines: { msg: string; source?: string }[] = [];
  const log = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  const r = await index(config, { ...opts, log });
  return { ...r, unlisted: lines.some((l) => l.msg === NOT_LISTED && l.source === 'docs') };
}

const listingOf = (config: Config) => {
  const db = new BetterSqlite3(config.db, { readonly: true });
  try {
    return db.prepare("SELECT listing FROM sources WHERE name = 'docs'").pluck().get() as string | null;
  } finally {
    db.close();
  }
};

describe('an unchanged git source is not listed', () => {
  it('takes the shortcut with the full path results, and lists again once upstream moves', async () => {
    const config = configWith();
    const first = await run(config);
    expect(first.unlisted).toBe(false);
    // The key as JSON, readable with sqlite3: the commit and the settings, the URL without credentials.
    const key = JSON.parse(listingOf(config)!) as unknown[];
    expect(key[1]).toBe(first.sources[0]!.commit);
    expect(key[6]).toEqual(config.sources[0]!.include);
    const full = await run(config, { dryRun: true }); // dry runs always list: the full path's plan
    expect(full.unlisted).toBe(false);

    const noop = await run(config);
    expect(noop.unlisted).toBe(true);
    expect(noop.status).toBe('ok');
    expect(noop.sent).toEqual([]);
    const s = noop.sources[0]!;
    expect(s.planned).toEqual(full.sources[0]!.planned);
    expect(s.planned.documents).toEqual({ added: 0, changed: 0, deleted: 0, renamed: 0, unchanged: 3, skipped: 0 });
    expect(s.written).toEqual(s.planned);
    expect(s.commit).toBe(up.git('rev-parse', 'HEAD'));
    expect(s.commitBefore).toBe(s.commit);

    up.write('b.md', '# Bee\n\nBees make honey.\n').commit('edit');
    const moved = await run(config);
    expect(moved.unlisted).toBe(false);
    expect(moved.sources[0]!.planned.documents).toMatchObject({ changed: 1, unchanged: 2 });
    expect((await run(config)).unlisted).toBe(true);
  });

  const changes: [string, Partial<ConfigInput['sources'][number]>, (r: Awaited<ReturnType<typeof run>>) => void][] = [
    ['include', { include: ['sub/**/*.md'] }, (r) => expect(r.sources[0]!.planned.documents).toMatchObject({ deleted: 2, unchanged: 1 })],
    ['exclude', { exclude: ['b.md'] }, (r) => expect(r.sources[0]!.planned.documents).toMatchObject({ deleted: 1, unchanged: 2 })],
    // A stored file over a lowered limit stays as it is (unchanged stamp): the full path says so.
    ['maxFileBytes', { maxFileBytes: 100 }, (r) => expect(r.sources[0]!.planned.documents).toMatchObject({ unchanged: 3, skipped: 0 })],
    ['chunking', { chunking: { targetTokens: 50, overlap: 0.15 } }, (r) => expect(r.sources[0]!.planned.documents).toMatchObject({ changed: 3 })],
    ['chunker', { chunker: 'classics' }, (r) => expect(r.sources[0]!.planned.documents).toMatchObject({ changed: 3 })],
  ];
  for (const [what, extra, check] of changes) {
    it(`lists again when ${what} changed, and then not`, async () => {
      await run(configWith());
      expect((await run(configWith())).unlisted).toBe(true);
      const changed = configWith(extra, { maxDeleteShare: 1 });
      const r = await run(changed);
      expect(r.unlisted).toBe(false);
      expect(r.status).toBe('ok');
      check(r);
      const after = await run(changed);
      expect(after.unlisted).toBe(true);
      expect(after.sources[0]!.planned.documents.unchanged).toBe(snapshotDocs(changed).length);
    });
  }

  it('lists again under another embedder, and fills in its vectors', async () => {
    await run(configWith());
    const other = configWith({}, { embedder: { provider: 'hash', dims: 64 } });
    const r = await run(other);
    expect(r.unlisted).toBe(false);
    expect(r.textsEmbedded).toBeGreaterThan(0);
    expect(r.sources[0]!.planned.documents).toMatchObject({ unchanged: 3 });
    expect((await run(other)).unlisted).toBe(true);
  });

  it('--force, --max-docs and --dry-run always list', async () => {
    const config = configWith();
    await run(config);
    const forced = await run(config, { force: true });
    expect(forced.unlisted).toBe(false);
    expect(forced.sources[0]!.planned.documents.changed).toBe(3);
    expect(forced.textsEmbedded).toBeGreaterThan(0);
    expect((await run(config, { maxDocs: 10 })).unlisted).toBe(false);
    expect((await run(config, { dryRun: true })).unlisted).toBe(false);
    expect((await run(config)).unlisted).toBe(true);
  });

  it('a vector gone since the last run: the source is listed and its texts embedded again', async () => {
    const config = configWith();
    await run(config);
    const db = new BetterSqlite3(config.db);
    db.prepare('DELETE FROM vectors WHERE rowid = (SELECT min(rowid) FROM vectors)').run();
    db.close();
    const r = await run(config);
    expect(r.unlisted).toBe(false);
    expect(r.textsEmbedded).toBe(1);
    const s = snapshotDb(config.db);
    for (const h of s.distinct) expect(s.vectorHashes.has(h)).toBe(true);
    expect((await run(config)).unlisted).toBe(true);
  });

  it('a source left partial (a file over maxFileBytes) stays partial and is listed every run', async () => {
    up.write('big.md', `# Big\n\n${para('庚金', 40)}\n`).commit('big');
    const config = configWith({ maxFileBytes: 2000 });
    for (let i = 0; i < 3; i++) {
      const r = await run(config);
      expect(r.unlisted).toBe(false);
      expect(r.status).toBe('partial');
      expect(r.sources[0]!.status).toBe('partial');
      expect(r.sources[0]!.skippedFiles.map((f) => f.path)).toEqual(['big.md']);
      expect(listingOf(config)).toBeNull();
    }
  });

  it('a run that wrote documents and did not record its commit leaves no key: the next run lists', async () => {
    const config = configWith();
    await run(config);
    // The documents are written, then recording the commit fails (as a kill between the two would).
    class LostCommit extends SqliteIndex {
      override async setSourceCommit(): Promise<void> {
        throw new Error('killed before the commit was recorded');
      }
    }
    const narrowed = configWith({ exclude: ['b.md'] });
    const store = new LostCommit(config.db);
    try {
      const r = await index(narrowed, { store });
      expect(r.sources[0]!.status).toBe('failed');
    } finally {
      await store.close();
    }
    expect(listingOf(config)).toBeNull();
    // Back to the first settings at the same commit: b.md was deleted by the failed run and must come back.
    const back = await run(config);
    expect(back.unlisted).toBe(false);
    expect(back.sources[0]!.planned.documents).toMatchObject({ added: 1, unchanged: 2 });
    expect(snapshotDocs(config)).toEqual(['a.md', 'b.md', 'sub/c.md']);
    expect((await run(config)).unlisted).toBe(true);
  });

  it('a dir source is always listed', async () => {
    const config = parseConfig({ db: join(t.dir, 'dir.db'), sources: [{ name: 'docs', kind: 'dir', path: up.work, include: ['**/*.md'] }] });
    await run(config);
    expect((await run(config)).unlisted).toBe(false);
    expect(listingOf(config)).toBeNull();
  });
});

function snapshotDocs(config: Config): string[] {
  return [...new Set(snapshotDb(config.db).chunks.map((c) => c.path))].sort();
}

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync, existsSync, rmSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { Upstream } from '../helpers/upstream.ts';
import { tempDir } from '../helpers/tmp.ts';
import { gitConfig, index, snapshotDb } from '../helpers/index-fixture.ts';
import { sha256 } from '../../src/core/hash.ts';
import { SqliteIndex } from '../../src/storage/sqlite/index.ts';

import type { Config } from '../../src/config/load.ts';
import { search } from '../../src/engine/library.ts';

const para = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${topic}第${i + 1}句，论其旺衰喜忌，以月令为纲。`).join('');

let t: ReturnType<typeof tempDir>;
let up: Upstream;
let config: Config;

beforeEach(() => {
  t = tempDir();
  up = new Upstream(join(t.dir, 'up'));
  config = gitConfig(t.dir, up.bare, { chunking: { targetTokens: 80, overlap: 0.15 } });
  up.write('a.md', `# 甲篇\n\n## 论木\n\n${para('甲木', 4)}\n\n${para('乙木', 4)}\n\n## 论火\n\n${para('丙火', 3)}\n`)
    .write('b.md', `# Bee\n\nBees make honey. They live in hives.\n\n${para('丁火', 5)}\n`)
    .write('sub/c.md', `# 丙篇\n\n${para('戊土', 6)}\n\n${para('己土', 2)}\n`)
    .write('notes.txt', 'not markdown, not included');
  up.commit('initial');
});
afterEach(() => t.cleanup());

/** Runs an index and checks the texts sent to the embedder are exactly the new distinct chunk texts. */
async function indexExpectingExactEmbeds(opts = {}) {
  const before = existsSync(config.db) ? snapshotDb(config.db) : null;
  const r = await index(config, opts);
  const after = snapshotDb(config.db);
  const fresh = [...after.distinct].filter((h) => !before?.vectorHashes.has(h));
  expect(r.textsEmbedded).toBe(fresh.length);
  expect(r.sent.map((s) => sha256(s)).sort()).toEqual(fresh.sort());
  // Every chunk of the index has a vector.
  for (const h of after.distinct) expect(after.vectorHashes.has(h)).toBe(true);
  return { r, before, after };
}

describe('git source sync', () => {
  it('indexes a fresh upstream, then a no-op re-run embeds nothing', async () => {
    const { r, after } = await indexExpectingExactEmbeds();
    expect(r.status).toBe('ok');
    const s = r.sources[0]!;
    expect(s.planned.documents).toMatchObject({ added: 3, changed: 0, deleted: 0, renamed: 0, unchanged: 0 });
    expect(s.commit).toBe(up.git('rev-parse', 'HEAD'));
    expect(new Set(after.chunks.map((c) => c.path))).toEqual(new Set(['a.md', 'b.md', 'sub/c.md']));
    expect(r.textsEmbedded).toBeGreaterThan(5);

    const again = await index(config);
    expect(again.textsEmbedded).toBe(0);
    expect(again.sent).toHaveLength(0);
    expect(again.sources[0]!.planned.documents).toMatchObject({ added: 0, changed: 0, unchanged: 3 });
  });

  it('editing one paragraph embeds only the chunks whose text changed', async () => {
    await index(config);
    const total = snapshotDb(config.db).chunks.filter((c) => c.path === 'a.md').length;
    up.write('a.md', `# 甲篇\n\n## 论木\n\n${para('甲木', 4)}\n\n${para('乙木', 4)}\n\n## 论火\n\n${para('丙火', 3)}又及壬水。\n`).commit('edit');
    const { r } = await indexExpectingExactEmbeds();
    expect(r.sources[0]!.planned.documents).toMatchObject({ changed: 1, unchanged: 2 });
    expect(r.textsEmbedded).toBeGreaterThan(0);
    expect(r.textsEmbedded).toBeLessThan(total);
  });

  it('a deleted file loses its document and chunks; its vectors stay until gc', async () => {
    await index(config);
    up.remove('b.md').commit('delete');
    const { r, before, after } = await indexExpectingExactEmbeds();
    expect(r.textsEmbedded).toBe(0);
    expect(r.sources[0]!.planned.documents).toMatchObject({ deleted: 1, unchanged: 2 });
    expect(after.chunks.some((c) => c.path === 'b.md')).toBe(false);
    expect(after.vectors.length).toBe(before!.vectors.length);

    const store = new SqliteIndex(config.db);
    const removed = await store.gc();
    await store.close();
    const orphaned = [...before!.distinct].filter((h) => !after.distinct.has(h)).length;
    expect(removed.vectors).toBe(orphaned);
    expect(snapshotDb(config.db).vectors.length).toBe(after.distinct.size);
  });

  it('a renamed file costs no embedding', async () => {
    await index(config);
    up.move('sub/c.md', 'moved/c-renamed.md').commit('rename');
    const { r, after } = await indexExpectingExactEmbeds();
    expect(r.textsEmbedded).toBe(0);
    expect(r.sources[0]!.planned.documents).toMatchObject({ renamed: 1, added: 0, deleted: 0, unchanged: 2 });
    expect(after.chunks.some((c) => c.path === 'moved/c-renamed.md')).toBe(true);
    expect(after.chunks.some((c) => c.path === 'sub/c.md')).toBe(false);
  });

  it('moving a paragraph to another file embeds exactly the new distinct texts', async () => {
    await index(config);
    up.write('a.md', `# 甲篇\n\n## 论木\n\n${para('甲木', 4)}\n\n## 论火\n\n${para('丙火', 3)}\n`)
      .write('b.md', `# Bee\n\nBees make honey. They live in hives.\n\n${para('丁火', 5)}\n\n${para('乙木', 4)}\n`)
      .commit('move paragraph');
    const { r } = await indexExpectingExactEmbeds();
    expect(r.sources[0]!.planned.documents).toMatchObject({ changed: 2, unchanged: 1 });
  });

  it('follows a force-pushed upstream', async () => {
    await index(config);
    up.git('reset', '--hard', 'HEAD');
    up.write('b.md', '# Bee\n\nRewritten history.\n');
    up.git('add', '-A');
    up.git('commit', '--quiet', '--amend', '-m', 'rewritten');
    up.git('push', '--quiet', '--force', 'origin', 'HEAD:main');
    const { r } = await indexExpectingExactEmbeds();
    expect(r.status).toBe('ok');
    expect(r.sources[0]!.commit).toBe(up.git('rev-parse', 'HEAD'));
    expect(r.sources[0]!.planned.documents).toMatchObject({ changed: 1 });
    const hits = await search(config, 'Rewritten history', { k: 1 });
    expect(hits[0]!.path).toBe('b.md');
  });

  it("refuses to reset its own checkout when a commit was made in it, and follows a remote-tracking branch moved by hand", async () => {
    await index(config);
    const root = config.sources[0]!.root;
    const inCheckout = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' }).trim();
    // Someone fetched into the checkout between runs: the run's own fetch then finds the branch
    // up to date, yet HEAD is behind it and must move.
    up.write('e.md', '# E\n\n新的一篇。\n').commit('add e');
    inCheckout('fetch', '-q', up.bare, '+refs/heads/main:refs/remotes/origin/main');
    const moved = await index(config);
    expect(moved.sources[0]!.commit).toBe(up.git('rev-parse', 'HEAD'));
    expect(moved.sources[0]!.planned.documents).toMatchObject({ added: 1, unchanged: 3 });
    expect(inCheckout('rev-parse', 'HEAD')).toBe(up.git('rev-parse', 'HEAD'));

    // HEAD off the remote-tracking branch: the local commit is found and nothing is reset.
    inCheckout('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'my local work');
    const head = inCheckout('rev-parse', 'HEAD');
    up.write('f.md', '# F\n\n又一篇。\n').commit('add f');
    const refused = await index(config);
    expect(refused.sources[0]!.error).toMatch(/1 local commit not on the upstream \([0-9a-f]+ my local work\)/);
    expect(inCheckout('rev-parse', 'HEAD')).toBe(head);
  });

  it.each([
    ['a deleted checkout', (root: string) => rmSync(root, { recursive: true, force: true })],
    ['a checkout without .git', (root: string) => rmSync(join(root, '.git'), { recursive: true, force: true })],
    ['a checkout with no objects', (root: string) => rmSync(join(root, '.git', 'objects'), { recursive: true, force: true })],
  ])('recovers from %s by cloning again, embedding nothing', async (_what, damage) => {
    await index(config);
    up.write('e.md', '# E\n\n新的一篇。\n').commit('add e');
    damage(config.sources[0]!.root);
    const { r } = await indexExpectingExactEmbeds();
    expect(r.status).toBe('ok');
    expect(r.sources[0]!.planned.documents).toMatchObject({ added: 1, unchanged: 3 });
    expect(readdirSync(config.sources[0]!.root)).toContain('e.md');
  });

  it('--force re-embeds every distinct text, replacing the stored vectors', async () => {
    await index(config);
    const before = snapshotDb(config.db);
    const r = await index(config, { force: true });
    expect(r.textsEmbedded).toBe(before.distinct.size);
    expect(r.sources[0]!.planned.documents.changed).toBe(3);
    expect(snapshotDb(config.db)).toEqual(before);
  });

  it('--dry-run leaves the database byte-identical and predicts the real run', async () => {
    await index(config);
    up.write('d.md', `# 新篇\n\n${para('庚金', 5)}\n`).remove('b.md').commit('more');
    const bytes = readFileSync(config.db);
    const dry = await index(config, { dryRun: true });
    expect(dry.dryRun).toBe(true);
    expect(dry.sent).toHaveLength(0);
    expect(readFileSync(config.db).equals(bytes)).toBe(true);
    expect(existsSync(config.db + '-wal')).toBe(false);

    const real = await index(config);
    expect(real.textsEmbedded).toBe(dry.sources[0]!.planned.texts);
    expect(real.sources[0]!.planned.documents).toEqual(dry.sources[0]!.planned.documents);
    expect(real.sources[0]!.planned).toEqual(dry.sources[0]!.planned);
  });

  it('--dry-run on a machine with no index creates no database', async () => {
    const dry = await index(config, { dryRun: true });
    expect(dry.sources[0]!.planned.documents.added).toBe(3);
    expect(dry.sources[0]!.planned.texts).toBeGreaterThan(0);
    expect(existsSync(config.db)).toBe(false);
  });

  it('--max-docs writes a prefix, reports partial, and the next run finishes the rest', async () => {
    const first = await index(config, { maxDocs: 1 });
    expect(first.status).toBe('partial');
    expect(first.sources[0]!.deferred).toBe(2);
    expect(new Set(snapshotDb(config.db).chunks.map((c) => c.path)).size).toBe(1);
    const second = await indexExpectingExactEmbeds();
    expect(second.r.status).toBe('ok');
    expect(second.r.sources[0]!.planned.documents).toMatchObject({ added: 2, unchanged: 1 });
  });
});

// Upstream and disk faults: each gives a clear error, a recorded run, and an index that keeps serving.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, readFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import { Searcher } from '../../src/search/search.ts';
import { SqliteIndex } from '../../src/storage/sqlite/index.ts';

import { CLASSICS, classicsUpstream, dbState, git, setBranch, writeConfig, type DbState, hasClassics, classicsCorpus } from './daemon-helpers.ts';
import { openSearcher, runIndex } from '../../src/engine/library.ts';

let tmp: string;
let url: string;
let file: string;
let db: string;
let checkout: string;
const QUERY = '甲木 日主';

/** The state a fresh index of the upstream's current main reaches. */
async function referenceState(name: string): Promise<DbState> {
  const dir = join(tmp, name);
  mkdirSync(dir);
  const r = writeConfig(dir, { url });
  expect((await runIndex(loadConfig(r.file))).status).toBe('ok');
  return dbState(r.db);
}

async function searchCount(cfg: Config): Promise<number> {
  const s = openSearcher(cfg);
  try {
    return (await s.search(QUERY, { k: 5 })).length;
  } finally {
    await s.close();
  }
}

beforeAll(async () => {
  if (!hasClassics) return;
  tmp = mkdtempSync(join(tmpdir(), 'ragsync-faults-'));
  // The temp folder is itself a git repository: a checkout that lost its .git must not be
  // mistaken for that enclosing repository.
  git(tmp, 'init', '-q');
  url = classicsUpstream(tmp, CLASSICS.initial);
  ({ file, db } = writeConfig(tmp, { url }));
  checkout = loadConfig(file).sources[0]!.root;
  expect((await runIndex(loadConfig(file))).status).toBe('ok');
});

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe.skipIf(!hasClassics)(classicsCorpus.title('checkout faults: re-clone'), () => {
  it('a deleted checkout is cloned again, nothing re-embedded', async () => {
    rmSync(checkout, { recursive: true, force: true });
    const r = await runIndex(loadConfig(file));
    expect(r.status).toBe('ok');
    expect(r.textsEmbedded).toBe(0);
    expect(existsSync(join(checkout, '.git'))).toBe(true);
  });

  it('a checkout without its .git (inside another repository) is cloned again', async () => {
    rmSync(join(checkout, '.git'), { recursive: true, force: true });
    const r = await runIndex(loadConfig(file));
    expect(r.status, r.sources[0]!.error ?? '').toBe('ok');
    expect(r.textsEmbedded).toBe(0);
    expect(existsSync(join(checkout, '.git'))).toBe(true);
    expect(git(tmp, 'remote')).toBe(''); // the enclosing repository was not touched
  });

  it('a corrupted checkout (garbage HEAD) is cloned again', async () => {
    writeFileSync(join(checkout, '.git', 'HEAD'), 'garbage\n');
    const r = await runIndex(loadConfig(file));
    expect(r.status, r.sources[0]!.error ?? '').toBe('ok');
    expect(readFileSync(join(checkout, '.git', 'HEAD'), 'utf8')).toMatch(/^ref: /);
  });
});

describe.skipIf(!hasClassics)(classicsCorpus.title('upstream faults'), () => {
  it('an unreachable remote: clear error without credentials, run recorded failed, search still works', async () => {
    const cfg = loadConfig(file);
    const bad: Config = { ...cfg, sources: cfg.sources.map((s) => ({ ...s, url: 'https://user:s3cret@127.0.0.1:1/nope.git' })) };
    const r = await runIndex(bad);
    expect(r.status).toBe('failed');
    const error = r.sources[0]!.error!;
    expect(error).toMatch(/^source "classics" \(https:\/\/\*\*\*@127\.0\.0\.1:1\/nope\.git\): fetch failed: /);
    expect(error).not.toContain('s3cret');
    const store = new SqliteIndex(db);
    const { runs, sources } = await store.status({ runs: 1 });
    await store.close();
    expect(runs[0]).toMatchObject({ status: 'failed', trigger: 'manual' });
    expect(runs[0]!.error).toBe(error);
    expect(JSON.stringify(sources)).not.toContain('s3cret');
    expect(await searchCount(cfg), 'search after a failed run').toBe(5);
    expect((await runIndex(cfg)).status).toBe('ok'); // the remote is back
  });

  it('a force-pushed upstream (history rewritten) converges to the new branch', async () => {
    setBranch(url, CLASSICS.tip);
    expect((await runIndex(loadConfig(file))).status).toBe('ok');
    // Rewrite: main now points at a new commit on top of the initial one, dropping the rest.
    const work = join(tmp, 'rewrite');
    git(tmp, 'clone', '-q', url, work);
    git(work, 'reset', '-q', '--hard', CLASSICS.initial);
    const target = git(work, '-c', 'core.quotePath=false', 'ls-files', 'content/命/千里命稿*').split('\n')[0]!;
    appendFileSync(join(work, target), '\n\n## 新增\n\n甲木参天，脱胎要火。force-pushed paragraph.\n');
    git(work, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qam', 'rewrite');
    git(work, 'push', '-q', '--force', 'origin', 'HEAD:main');
    const rewritten = git(work, 'rev-parse', 'HEAD');

    // The rewrite drops most of the indexed content: the deletion guard asks for a confirmation first.
    const refused = await runIndex(loadConfig(file));
    expect(refused.sources[0]!.error).toMatch(/would drop [\d,]+ of [\d,]+ passages/);
    const r = await runIndex(loadConfig(file), { allowDelete: true });
    expect(r.status, r.sources[0]!.error ?? '').toBe('ok');
    expect(r.sources[0]!.commit).toBe(rewritten);
    const ref = await referenceState('ref-rewritten');
    const now = dbState(db);
    expect(now.chunks).toEqual(ref.chunks);
    expect(now.referencedVectors).toEqual(ref.referencedVectors);
  });
});

describe.skipIf(!hasClassics)(classicsCorpus.title('disk full'), () => {
  it('a write that fails with SQLITE_FULL: clear error, run recorded failed, index intact and serving', async () => {
    setBranch(url, CLASSICS.tip);
    const before = dbState(db);
    const store = new SqliteIndex(db);
    store.db.exec('VACUUM'); // no free pages left for the run to reuse
    const pages = store.db.pragma('page_count', { simple: true }) as number;
    // The file may grow by a few pages only: the run starts, then its first writes hit the limit.
    store.db.pragma(`max_page_count = ${pages + 3}`);
    const r = await runIndex(loadConfig(file), { store });
    await store.close();
    expect(r.status).toBe('failed');
    expect(r.sources[0]!.error).toMatch(/^disk full: cannot write the index .*index\.db \(database or disk is full\)/);

    const after = dbState(db);
    expect(after.integrity).toBe('ok');
    expect(after.chunks).toEqual(before.chunks); // nothing half-written
    expect(after.lock).toBeNull();
    expect(after.runs.at(-1)).toMatchObject({ status: 'failed' });
    expect(await searchCount(loadConfig(file))).toBe(5);

    // Space again: the next run converges.
    const next = await runIndex(loadConfig(file));
    expect(next.status).toBe('ok');
    const ref = await referenceState('ref-tip');
    expect(dbState(db).chunks).toEqual(ref.chunks);
  });
});

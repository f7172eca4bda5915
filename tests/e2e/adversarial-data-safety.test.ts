// What ragsync refuses to do with the user's data, one group per class of mistake it must not make.
// Real folders, real git repositories in temp dirs, real SQLite files, the CLI as a child process
// where the exit code and the message are the point, and a loopback provider for remote calls.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import BetterSqlite3 from 'better-sqlite3';
import type { AddressInfo } from 'node:net';
import { basename, join } from 'node:path';
import { parseConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import type { ConfigInput } from '../../src/config/schema.ts';
import { DashScopeReranker } from '../../src/search/rerank.ts';

import { unfinishedSince } from '../../src/sync/gc.ts';
import { judgeDeletions } from '../../src/sync/delete-guard.ts';
import type { RunRecord } from '../../src/storage/roles.ts';
import { sha256 } from '../../src/core/hash.ts';
import { describeIoError } from '../../src/core/io-errors.ts';
import { openIndex } from '../../src/storage/open.ts';
import { listMigrations } from '../../src/storage/sqlite/migrate.ts';
import { withPathOnErrors } from '../../src/storage/sqlite/annotate.ts';
import { isStopped, spawnCli, waitFor } from './daemon-helpers.ts';
import { FakeProvider } from '../helpers/fake-provider.ts';
import { fakeEmbedder } from '../helpers/remote.ts';
import { runCli } from '../helpers/cli.ts';
import { index, snapshotDb } from '../helpers/index-fixture.ts';
import { tempDir } from '../helpers/tmp.ts';
import { Upstream } from '../helpers/upstream.ts';
import { runIndex } from '../../src/engine/library.ts';

let t: ReturnType<typeof tempDir>;
beforeEach(() => {
  t = tempDir('ragsync-safety-');
});
afterEach(() => t.cleanup());

const doc = (i: number) => `# Note ${i}\n\nNote number ${i} talks about topic ${i} and nothing else.\n`;

/** A folder of n Markdown files. */
function folder(name: string, n: number): string {
  const dir = join(t.dir, name);
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < n; i++) writeFileSync(join(dir, `n${i}.md`), doc(i));
  return dir;
}

function writeConfigFile(cfg: Record<string, unknown>, name = 'ragsync.json'): string {
  const file = join(t.dir, name);
  writeFileSync(file, JSON.stringify({ embedder: { provider: 'hash', dims: 64 }, ...cfg }));
  return file;
}

const dirConfig = (dir: string, extra: Record<string, unknown> = {}, top: Partial<ConfigInput> = {}): Config =>
  parseConfig({
    db: join(t.dir, 'index.db'),
    embedder: { provider: 'hash', dims: 64 },
    sources: [{ name: 'notes', kind: 'dir', path: dir, ...extra }],
    ...top,
  });

const paths = (db: string) => [...new Set(snapshotDb(db).chunks.map((c) => `${c.source}:${c.path}`))].sort();

describe('1. a source that suddenly yields nothing does not empty the index', () => {
  it('an empty folder (an unmounted disk) fails its source, keeps its documents, exits non-zero; --allow-empty confirms', async () => {
    const dir = folder('notes', 4);
    const file = writeConfigFile({ db: 'index.db', sources: [{ name: 'notes', kind: 'dir', path: 'notes' }] });
    const db = join(t.dir, 'index.db');
    expect((await runCli(['index', '-c', file])).code).toBe(0);
    const before = paths(db);
    expect(before).toHaveLength(4);
    for (const f of readdirSync(dir)) rmSync(join(dir, f));

    const dry = await runCli(['index', '-c', file, '--dry-run']);
    expect(dry.code).not.toBe(0);
    expect(dry.stdout).toMatch(/lists no files now but 4 documents are indexed/);

    const r = await runCli(['index', '-c', file, '--json']);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.status).toBe('failed');
    expect(out.sources[0]).toMatchObject({ status: 'failed', written: { documents: { deleted: 0 } } });
    expect(out.sources[0].error).toContain(dir);
    expect(out.sources[0].error).toContain('--allow-empty');
    expect(r.stderr).not.toContain('run ok');
    expect(paths(db)).toEqual(before);

    const ok = await runCli(['index', '-c', file, '--allow-empty', '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).sources[0].written.documents.deleted).toBe(4);
    expect(paths(db)).toEqual([]);
  });

  it('include patterns that match nothing any more count as empty; per-source allowEmpty confirms', async () => {
    const dir = folder('notes', 3);
    expect((await index(dirConfig(dir))).status).toBe('ok');
    const r = await index(dirConfig(dir, { include: ['**/*.markdown'] }));
    expect(r.status).toBe('failed');
    expect(r.sources[0]!.error).toMatch(/lists no files now/);
    expect(paths(join(t.dir, 'index.db'))).toHaveLength(3);
    const ok = await index(dirConfig(dir, { include: ['**/*.markdown'], allowEmpty: true }));
    expect(ok.status).toBe('ok');
    expect(paths(join(t.dir, 'index.db'))).toEqual([]);
  });

  it('deleting more than maxDeleteShare of a source is refused with counts; --allow-delete, --force or a higher share let it through', async () => {
    const dir = folder('notes', 10);
    const db = join(t.dir, 'index.db');
    expect((await index(dirConfig(dir))).status).toBe('ok');
    for (let i = 0; i < 6; i++) rmSync(join(dir, `n${i}.md`));
    writeFileSync(join(dir, 'new.md'), doc(99));

    const dry = await index(dirConfig(dir), { dryRun: true });
    expect(dry.sources[0]!.status).toBe('failed');
    expect(dry.sources[0]!.error).toMatch(/would drop 6 of 10 passages \(60 %\) from 6 removed or rewritten documents, over maxDeleteShare 50 %/);

    const r = await index(dirConfig(dir));
    expect(r.status).toBe('failed');
    expect(r.sources[0]!.error).toContain('--allow-delete');
    expect(paths(db)).toHaveLength(10); // nothing applied: not even the new file

    // The share is configurable per source and globally.
    expect((await index(dirConfig(dir, { maxDeleteShare: 0.7 }), { dryRun: true })).sources[0]!.status).toBe('ok');
    expect((await index(dirConfig(dir, {}, { maxDeleteShare: 0.6 }), { dryRun: true })).sources[0]!.status).toBe('ok');
    expect((await index(dirConfig(dir), { dryRun: true, force: true })).sources[0]!.status).toBe('ok');

    const ok = await index(dirConfig(dir), { allowDelete: true });
    expect(ok.status).toBe('ok');
    expect(paths(db)).toHaveLength(5);
  });

  it('renames left for later by --max-docs are not deletions: the old paths stay indexed until renamed', async () => {
    const dir = folder('notes', 6);
    const db = join(t.dir, 'index.db');
    expect((await index(dirConfig(dir))).status).toBe('ok');
    mkdirSync(join(dir, 'moved'));
    for (let i = 0; i < 6; i++) renameSync(join(dir, `n${i}.md`), join(dir, 'moved', `n${i}.md`));
    const first = await index(dirConfig(dir), { maxDocs: 2 });
    expect(first.status).toBe('partial');
    expect(first.sources[0]!.written.documents).toMatchObject({ renamed: 2, deleted: 0 });
    expect(paths(db)).toHaveLength(6);
    const rest = await index(dirConfig(dir));
    expect(rest.status).toBe('ok');
    expect(rest.textsEmbedded).toBe(0);
    expect(paths(db)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `notes:moved/n${i}.md`));
  });

  it('a folder source whose path is now a file, or gone, fails with its path and keeps its documents', async () => {
    const dir = folder('notes', 2);
    expect((await index(dirConfig(dir))).status).toBe('ok');
    rmSync(dir, { recursive: true });
    const gone = await index(dirConfig(dir));
    expect(gone.sources[0]!.error).toBe(`folder not found: ${dir}`);
    writeFileSync(dir, 'a file now');
    const file = await index(dirConfig(dir));
    expect(file.sources[0]!.error).toBe(`${dir} is not a folder`);
    expect(paths(join(t.dir, 'index.db'))).toHaveLength(2);
  });

  it('the decision itself (pure): boundaries, confirmations, and what each one lifts', () => {
    const base = {
      where: 'source "s"', stored: 10, listed: 10, held: 100, dropping: 0, losing: 0, removing: 0,
      maxDeleteShare: 0.5, allowEmpty: false, allowMassDelete: false, configPath: 'sources[0]',
    };
    const ok = (c: Partial<typeof base>) => judgeDeletions({ ...base, ...c }).allowed;
    expect(ok({ dropping: 50, losing: 5, removing: 5, listed: 5 })).toBe(true); // exactly the share
    expect(ok({ dropping: 51, losing: 6, removing: 6, listed: 4 })).toBe(false);
    expect(ok({ dropping: 51, losing: 6, removing: 2, listed: 8 })).toBe(false); // beside files that go, rewritten passages count
    expect(ok({ dropping: 90, losing: 9, removing: 0 })).toBe(true); // edits alone are not deletions
    expect(ok({ dropping: 0, listed: 1 })).toBe(true); // 9 files merged into one: nothing lost
    expect(ok({ dropping: 51, losing: 6, removing: 6, listed: 4, allowMassDelete: true })).toBe(true);
    expect(ok({ dropping: 51, losing: 6, removing: 6, listed: 4, allowEmpty: true })).toBe(true);
    expect(ok({ stored: 2, held: 3, dropping: 3, losing: 2, removing: 1, listed: 1 })).toBe(true); // one file gone, the other rewritten
    expect(ok({ stored: 3, held: 3, dropping: 1, losing: 1, removing: 1, listed: 2, maxDeleteShare: 0 })).toBe(false); // 0: none at all
    expect(ok({ stored: 1, held: 2, dropping: 2, losing: 1, removing: 1, listed: 0 })).toBe(false); // emptied, even of one document
    expect(ok({ stored: 4, held: 8, dropping: 8, losing: 4, removing: 4, listed: 0, allowMassDelete: true })).toBe(false); // --force does not empty
    expect(ok({ stored: 4, held: 8, dropping: 8, losing: 4, removing: 4, listed: 0, allowEmpty: true })).toBe(true);
    expect(ok({ stored: 0, held: 0, listed: 0 })).toBe(true); // nothing indexed, nothing to lose
    const refused = judgeDeletions({ ...base, stored: 300, held: 3400, dropping: 3120, losing: 280, removing: 270, listed: 30 });
    expect(refused).toEqual({ allowed: false, reason: expect.stringContaining('would drop 3,120 of 3,400 passages (91.8 %) from 280 removed or rewritten documents') });
  });

  it('one refused source does not stop the others: the run is partial (exit 3)', async () => {
    const a = folder('a', 3);
    const b = folder('b', 2);
    const file = writeConfigFile({
      db: 'index.db',
      sources: [
        { name: 'a', kind: 'dir', path: 'a' },
        { name: 'b', kind: 'dir', path: 'b' },
      ],
    });
    expect((await runCli(['index', '-c', file])).code).toBe(0);
    for (const f of readdirSync(a)) rmSync(join(a, f));
    writeFileSync(join(b, 'more.md'), doc(7));
    const r = await runCli(['index', '-c', file, '--json']);
    expect(r.code).toBe(3);
    const out = JSON.parse(r.stdout);
    expect(out.sources.map((s: { status: string }) => s.status)).toEqual(['failed', 'ok']);
    expect(paths(join(t.dir, 'index.db'))).toHaveLength(6);
  });

  it('a git upstream whose tree is emptied or mostly removed is refused; renaming every file is not a deletion', async () => {
    const up = new Upstream(join(t.dir, 'up'));
    for (let i = 0; i < 6; i++) up.write(`docs/n${i}.md`, doc(i));
    up.commit('init');
    const cfg = parseConfig({ db: join(t.dir, 'index.db'), embedder: { provider: 'hash', dims: 64 }, sources: [{ name: 'g', url: up.bare }] });
    expect((await index(cfg)).status).toBe('ok');

    for (let i = 0; i < 6; i++) up.move(`docs/n${i}.md`, `moved/m${i}.md`);
    up.commit('rename everything');
    const renamed = await index(cfg);
    expect(renamed.status).toBe('ok');
    expect(renamed.sources[0]!.written.documents).toMatchObject({ renamed: 6, deleted: 0 });

    for (let i = 0; i < 4; i++) up.remove(`moved/m${i}.md`);
    up.commit('remove most');
    const most = await index(cfg);
    expect(most.status).toBe('failed');
    expect(most.sources[0]!.error).toMatch(/would drop 4 of 6 passages/);

    up.remove('moved/m4.md').remove('moved/m5.md').write('README.txt', 'not markdown');
    const tip = up.commit('remove all');
    const all = await index(cfg);
    expect(all.status).toBe('failed');
    expect(all.sources[0]!.commit).toBe(tip);
    expect(all.sources[0]!.error).toMatch(/lists no files now but 6 documents/);
    expect(paths(cfg.db)).toHaveLength(6);
    // The commit the index is at did not move: the next run sees the same plan.
    expect((await index(cfg)).sources[0]!.commitBefore).toBe(renamed.sources[0]!.commit);
  });
});

describe('2. ragsync never deletes or resets what it did not create', () => {
  let up: Upstream;
  const gitIn = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  beforeEach(() => {
    up = new Upstream(join(t.dir, 'up'));
    for (let i = 0; i < 3; i++) up.write(`n${i}.md`, doc(i));
    up.commit('init');
  });
  const cfgAt = (path?: string, url = up.bare) =>
    parseConfig({ db: join(t.dir, 'index.db'), embedder: { provider: 'hash', dims: 64 }, sources: [{ name: 'g', url, ...(path ? { path } : {}) }] });
  /** Every file under a folder with its bytes (.git excluded): proof nothing was touched. */
  const tree = (dir: string): Record<string, string> => {
    const out: Record<string, string> = {};
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        if (e.name === '.git') continue;
        const p = join(d, e.name);
        if (e.isDirectory()) walk(p);
        else out[p.slice(dir.length)] = readFileSync(p, 'utf8');
      }
    };
    walk(dir);
    return out;
  };
  const userClone = (dir: string, url = up.bare) => {
    execFileSync('git', ['clone', '-q', url, dir]);
    gitIn(dir, 'config', 'user.email', 'me@example.com');
    gitIn(dir, 'config', 'user.name', 'me');
    return dir;
  };

  it('a non-empty folder that is not a git checkout is refused with one line naming it; nothing in it changes', async () => {
    const mine = join(t.dir, 'my-notes');
    mkdirSync(join(mine, 'sub'), { recursive: true });
    writeFileSync(join(mine, 'diary.md'), '# private\n');
    writeFileSync(join(mine, 'sub', 'x.txt'), 'keep me');
    const file = writeConfigFile({ db: 'index.db', sources: [{ name: 'g', url: up.bare, path: 'my-notes' }] });
    const before = tree(mine);
    const r = await runCli(['index', '-c', file, '--json']);
    expect(r.code).toBe(1);
    const err = JSON.parse(r.stdout).sources[0].error as string;
    expect(err).toContain(mine);
    expect(err).toMatch(/is not empty and is not a git checkout: refusing to replace it/);
    expect(err.split('\n')).toHaveLength(1);
    expect(tree(mine)).toEqual(before);
  });

  it('a folder inside someone else\'s repository, a file, and a broken repository of the user are refused, untouched', async () => {
    const repo = userClone(join(t.dir, 'work'));
    mkdirSync(join(repo, 'docs'));
    writeFileSync(join(repo, 'docs', 'a.md'), '# mine\n');
    const r1 = await index(cfgAt(join(repo, 'docs')));
    expect(r1.sources[0]!.error).toMatch(/is not empty and is not a git checkout/);
    expect(gitIn(repo, 'status', '--porcelain')).toBe('?? docs/');

    writeFileSync(join(t.dir, 'plain-file'), 'x');
    expect((await index(cfgAt(join(t.dir, 'plain-file')))).sources[0]!.error).toMatch(/exists and is not a folder/);

    const brokenRepo = userClone(join(t.dir, 'broken'));
    writeFileSync(join(brokenRepo, 'draft.md'), 'unsaved');
    rmSync(join(brokenRepo, '.git', 'objects'), { recursive: true });
    const before = tree(brokenRepo);
    const r3 = await index(cfgAt(brokenRepo));
    expect(r3.status).toBe('failed');
    expect(r3.sources[0]!.error).toMatch(/ragsync did not create/);
    expect(tree(brokenRepo)).toEqual(before);
  });

  it("a user's clone with uncommitted edits or local commits is refused, listing what would be lost (abbreviated)", async () => {
    const repo = userClone(join(t.dir, 'wc'));
    for (let i = 0; i < 3; i++) writeFileSync(join(repo, `n${i}.md`), `# edited ${i}\n`);
    for (let i = 0; i < 5; i++) writeFileSync(join(repo, `new${i}.md`), `# draft ${i}\n`);
    const before = tree(repo);
    up.write('n9.md', doc(9)).commit('upstream moves on');
    const r = await index(cfgAt(repo));
    expect(r.status).toBe('failed');
    const err = r.sources[0]!.error!;
    expect(err).toContain(`refusing to reset ${repo}: 8 uncommitted files (`);
    expect(err).toMatch(/, and 3 more\)/);
    expect(tree(repo)).toEqual(before);

    gitIn(repo, 'add', '-A');
    gitIn(repo, 'commit', '-q', '-m', 'my local work');
    const head = gitIn(repo, 'rev-parse', 'HEAD');
    const r2 = await index(cfgAt(repo));
    expect(r2.sources[0]!.error).toMatch(/1 local commit not on the upstream \([0-9a-f]+ my local work\)/);
    expect(gitIn(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(paths(join(t.dir, 'index.db'))).toEqual([]);
  });

  it('a clean clone of the same URL (as older versions made them) is adopted, and still protected afterwards', async () => {
    // What ragsync cloned before checkouts were marked.
    const legacy = join(t.dir, 'data', 'checkouts', 'g');
    mkdirSync(join(t.dir, 'data', 'checkouts'), { recursive: true });
    execFileSync('git', ['clone', '-q', '--branch', 'main', '--single-branch', '--no-tags', up.bare, legacy]);
    const cfg = parseConfig({
      db: join(t.dir, 'data', 'index.db'),
      embedder: { provider: 'hash', dims: 64 },
      sources: [{ name: 'g', url: up.bare }],
    });
    const root = cfg.sources[0]!.root;
    expect(cfg.sources[0]!.checkout?.formerRoot).toBe(legacy);
    const r = await index(cfg);
    expect(r.status, r.sources[0]!.error ?? '').toBe('ok');
    // Moved into the index's own checkout folder, then marked.
    expect(existsSync(legacy)).toBe(false);
    expect(readFileSync(join(root, '.git', 'ragsync-managed'), 'utf8').trim()).toBe(up.bare);
    expect(gitIn(root, 'status', '--porcelain')).toBe(''); // the marker is not an untracked file

    writeFileSync(join(root, 'n1.md'), '# my edit inside the checkout\n');
    up.write('n5.md', doc(5)).commit('more');
    const r2 = await index(cfg);
    expect(r2.sources[0]!.error).toMatch(/1 uncommitted file \(n1\.md\) would be lost/);
    expect(readFileSync(join(root, 'n1.md'), 'utf8')).toContain('my edit');
  });

  it('a clone of another URL or on another branch is refused; an existing empty folder is cloned into', async () => {
    const other = new Upstream(join(t.dir, 'other'));
    other.write('x.md', '# other\n').commit('x');
    const repo = userClone(join(t.dir, 'elsewhere'), other.bare);
    const r = await index(cfgAt(repo));
    expect(r.sources[0]!.error).toMatch(new RegExp(`is a git checkout of ${other.bare}, not of ${up.bare}`));
    expect(readdirSync(repo).sort()).toEqual(['.git', 'x.md']);

    const onBranch = userClone(join(t.dir, 'feature-wc'));
    gitIn(onBranch, 'checkout', '-q', '-b', 'feature');
    const fr = await index(cfgAt(onBranch));
    expect(fr.sources[0]!.error).toMatch(/on branch feature, not on main: refusing to reset it/);
    expect(gitIn(onBranch, 'symbolic-ref', '--short', 'HEAD')).toBe('feature');

    const empty = join(t.dir, 'empty');
    mkdirSync(empty);
    const ok = await index(cfgAt(empty));
    expect(ok.status).toBe('ok');
    expect(readdirSync(empty)).toEqual(expect.arrayContaining(['.git', 'n0.md', 'n1.md', 'n2.md']));
  });

  it("ragsync's own checkout: broken is cloned again, edited by hand is refused, a force-push is not mistaken for local work", async () => {
    const cfg = cfgAt();
    expect((await index(cfg)).status).toBe('ok');
    const root = cfg.sources[0]!.root;
    rmSync(join(root, '.git'), { recursive: true });
    expect((await index(cfg)).status).toBe('ok');
    expect(existsSync(join(root, '.git', 'ragsync-managed'))).toBe(true);

    up.git('reset', '--hard', 'HEAD~0');
    up.write('n0.md', '# rewritten\n');
    up.git('add', '-A');
    up.git('commit', '--quiet', '--amend', '-m', 'rewritten history');
    up.git('push', '--quiet', '--force', 'origin', 'HEAD:main');
    const forced = await index(cfg);
    expect(forced.status, forced.sources[0]!.error ?? '').toBe('ok');

    writeFileSync(join(root, 'n2.md'), '# hand edit\n');
    up.write('n7.md', doc(7)).commit('later');
    const r = await index(cfg);
    expect(r.sources[0]!.error).toMatch(/1 uncommitted file \(n2\.md\)/);
    expect(readFileSync(join(root, 'n2.md'), 'utf8')).toBe('# hand edit\n');
  });

  it('a run killed mid-clone leaves no half-made checkout at the path: the next run clones again', async () => {
    const file = writeConfigFile({ db: 'index.db', sources: [{ name: 'g', url: up.bare }] });
    const killed = await spawnCli(['index', '-c', file], { RAGSYNC_FAILPOINT: 'after-clone:1' }).done;
    expect(killed.signal).toBe('SIGKILL');
    const checkouts = join(t.dir, 'checkouts');
    expect(readdirSync(checkouts)).toEqual([expect.stringMatching(/^\.g-[0-9a-f]{10}\.ragsync-clone-\d+$/)]);
    const cfg = parseConfig({ db: join(t.dir, 'index.db'), embedder: { provider: 'hash', dims: 64 }, sources: [{ name: 'g', url: up.bare }] }, file);
    const r = await index(cfg);
    expect(r.status, r.sources[0]!.error ?? '').toBe('ok');
    expect(readdirSync(checkouts)).toEqual([basename(cfg.sources[0]!.root)]);
  });

  it('two git sources may not share one checkout folder', () => {
    expect(() =>
      parseConfig({ sources: [{ name: 'a', url: up.bare, path: '/tmp/x' }, { name: 'b', url: '/elsewhere.git', path: '/tmp/x' }] }),
    ).toThrow(/sources\[1\]\.path: same checkout folder as sources\[0\]/);
  });
});

describe('3. every remote call has a whole-request deadline', () => {
  let fake: FakeProvider;
  beforeEach(async () => {
    fake = await FakeProvider.start({ dims: 16 });
  });
  afterEach(async () => {
    await fake.close();
  });

  it('a provider trickling one byte at a time is cut at deadlineMs, counted as a retryable timeout, named in the error', async () => {
    // Never idle for the 2 s idle timeout, never finished: only the deadline can end it.
    fake.queue({ kind: 'trickle', intervalMs: 20 });
    const { embedder } = fakeEmbedder(fake, { deadlineMs: 300, maxRetries: 2 });
    const started = Date.now();
    const vectors = await embedder.embed(['alpha', 'beta']);
    expect(vectors).toHaveLength(2);
    expect(embedder.stats.retries).toBe(1);
    expect(Date.now() - started).toBeLessThan(6000);

    fake.fallback = { kind: 'trickle', intervalMs: 20 };
    const { embedder: e2 } = fakeEmbedder(fake, { deadlineMs: 200, maxRetries: 1 });
    await expect(e2.embed(['gamma'])).rejects.toThrow(/timed out: no complete response within 200 ms \(embedder\.deadlineMs\) \(gave up after 2 attempts\)/);
    await embedder.close();
    await e2.close();
  });

  it('an index run against a trickling provider ends, fails cleanly and releases the lock', async () => {
    const dir = folder('notes', 3);
    fake.fallback = { kind: 'trickle', intervalMs: 20 };
    const cfg = dirConfig(dir, {}, {
      embedder: { provider: 'openai-compatible', baseUrl: fake.baseUrl, model: 'm', dimensions: 16, deadlineMs: 150, maxRetries: 1, timeoutMs: 5000 },
    });
    const started = Date.now();
    const r = await runIndex(cfg);
    expect(Date.now() - started).toBeLessThan(10000);
    expect(r.status).toBe('failed');
    expect(r.sources[0]!.error).toContain('no complete response within 150 ms');
    fake.fallback = { kind: 'ok' };
    const again = await runIndex(cfg); // not "index is locked"
    expect(again.status).toBe('ok');
  });

  it('the reranker is cut at its timeout while bytes keep trickling, and says so', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 20);
      res.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rerank`;
      const reranker = new DashScopeReranker({ apiKey: 'k', url, timeoutMs: 250 });
      const started = Date.now();
      await expect(reranker.rerank('q', ['a', 'b'])).rejects.toThrow(`rerank dashscope gte-rerank-v2 at ${url}: timed out: no complete response within 250 ms (rerank.deadlineMs)`);
      expect(Date.now() - started).toBeLessThan(6000);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('7. vectors are validated before storage', () => {
  it('a zero vector is a provider fault: retried, and never stored', async () => {
    const fake = await FakeProvider.start({ dims: 16 });
    try {
      fake.queue({ kind: 'zero' });
      const { embedder } = fakeEmbedder(fake, { maxRetries: 2 });
      const v = await embedder.embed(['alpha', 'beta']);
      expect(embedder.stats.retries).toBe(1);
      for (const x of v) expect(x.some((c) => c !== 0)).toBe(true);
      await embedder.close();

      fake.fallback = { kind: 'zero' };
      const dir = folder('notes', 2);
      const cfg = dirConfig(dir, {}, { embedder: { provider: 'openai-compatible', baseUrl: fake.baseUrl, model: 'm', dimensions: 16, maxRetries: 1 } });
      const r = await runIndex(cfg);
      expect(r.status).toBe('failed');
      expect(r.sources[0]!.error).toMatch(/zero vector \(norm 0\) for input \d+; batch rejected/);
      expect(snapshotDb(cfg.db).vectors).toEqual([]);
    } finally {
      await fake.close();
    }
  });
});

describe('4. gc and index cannot race', () => {
  const vectorCount = (db: string) => snapshotDb(db).vectors.length;
  /** A dir source of n notes, embedded two texts per batch so a run passes many failpoints. */
  function setup(n: number) {
    const dir = folder('notes', n);
    const file = writeConfigFile({ db: 'index.db', embedder: { provider: 'hash', dims: 64, batchSize: 2 }, sources: [{ name: 'notes', kind: 'dir', path: 'notes' }] });
    const cfg = dirConfig(dir, {}, { embedder: { provider: 'hash', dims: 64, batchSize: 2 } });
    return { dir, file, cfg, db: join(t.dir, 'index.db') };
  }

  it('gc during a run (paused after storing vectors) exits 75 naming the holder and deletes nothing', async () => {
    const { file, db, dir } = setup(2);
    expect((await runCli(['index', '-c', file])).code).toBe(0);
    for (let i = 10; i < 20; i++) writeFileSync(join(dir, `m${i}.md`), doc(i));
    const run = spawnCli(['index', '-c', file, '--json'], { RAGSYNC_FAILPOINT: 'after-vectors:2:stop' });
    try {
      await waitFor(() => isStopped(run.pid!) || run.exitCode !== null, 'the run to pause after its second batch');
      expect(run.exitCode).toBeNull();
      const stored = vectorCount(db);
      const gc = await runCli(['gc', '-c', file]);
      expect(gc.code).toBe(75);
      expect(gc.stderr.trim()).toMatch(new RegExp(`^ragsync: index is locked by another run \\(pid ${run.pid} `));
      expect(vectorCount(db)).toBe(stored);
    } finally {
      run.kill('SIGCONT');
    }
    const done = await run.done;
    expect(done.code, done.stderr).toBe(0);
  });

  it('gc after a run was killed spares what it stored: the next run embeds nothing already stored', async () => {
    const { dir, file, cfg, db } = setup(6);
    expect((await index(cfg)).status).toBe('ok');
    rmSync(join(dir, 'n0.md')); // its text becomes garbage (old)
    expect((await index(cfg)).status).toBe('ok');
    const orphans = vectorCount(db) - snapshotDb(db).distinct.size;
    expect(orphans).toBeGreaterThan(0);

    for (let i = 10; i < 20; i++) writeFileSync(join(dir, `m${i}.md`), doc(i));
    const killed = await spawnCli(['index', '-c', file], { RAGSYNC_FAILPOINT: 'after-vectors:3' }).done;
    expect(killed.signal).toBe('SIGKILL');
    const afterKill = snapshotDb(db);
    // Its three batches of vectors (two texts each) committed; the documents they belong to switch
    // only once every vector is stored, so none did: unreferenced, like garbage.
    const storedByKilledRun = afterKill.vectors.length - (afterKill.distinct.size + orphans);
    expect(storedByKilledRun).toBe(6);

    const gc = await runCli(['gc', '-c', file, '--json']);
    expect(gc.code, gc.stderr).toBe(0);
    expect(JSON.parse(gc.stdout)).toEqual({ vectors: orphans });

    const next = await index(cfg);
    expect(next.status).toBe('ok');
    const final = snapshotDb(db);
    const kept = new Set(afterKill.vectors.map((v) => v.hash));
    expect(next.sent.map((s) => sha256(s)).filter((h) => kept.has(h))).toEqual([]);
    expect(next.textsEmbedded).toBe(final.distinct.size - (afterKill.vectors.length - orphans));
  });

  it('which runs gc spares: the running ones, and failed or aborted ones after the last completed run', () => {
    const run = (id: number, status: string, startedAt: string) => ({ id, status, startedAt }) as unknown as RunRecord;
    expect(unfinishedSince([run(3, 'ok', 'c'), run(2, 'failed', 'b'), run(1, 'running', 'a')])).toBe('a');
    expect(unfinishedSince([run(3, 'aborted', 'c'), run(2, 'failed', 'b'), run(1, 'partial', 'a')])).toBe('b');
    expect(unfinishedSince([run(2, 'ok', 'b'), run(1, 'failed', 'a')])).toBeNull();
    expect(unfinishedSince([])).toBeNull();
  });
});

describe("6. the database is ragsync's, or it is refused", () => {
  /** Another program's SQLite file (rollback journal, as most are). */
  function foreignDb(file: string, appId = 0): Buffer {
    const c = new BetterSqlite3(file);
    c.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES (\'mine\'), (\'also mine\');');
    if (appId) c.pragma(`application_id = ${appId}`);
    c.close();
    return readFileSync(file);
  }
  const listing = () => readdirSync(t.dir).sort();

  it('read commands refuse another program\'s database and change nothing, not even a -wal file', async () => {
    const db = join(t.dir, 'other.db');
    const bytes = foreignDb(db);
    const file = writeConfigFile({ db: 'other.db', sources: [{ name: 'notes', kind: 'dir', path: 'notes' }] });
    const files = listing();
    const runs = await Promise.all(
      [['status'], ['search', 'x'], ['export'], ['related', 'a.md'], ['serve', '--port', '0'], ['mcp']].map((args) => runCli([...args, '-c', file])),
    );
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.trim()).toMatch(new RegExp(`^ragsync: not a ragsync index: ${db}`));
    }
    expect(readFileSync(db).equals(bytes)).toBe(true);
    expect(listing()).toEqual(files);
  });

  it('index and gc refuse it too, before writing anything; so does a file with another application id', async () => {
    const db = join(t.dir, 'other.db');
    const bytes = foreignDb(db);
    folder('notes', 2);
    const file = writeConfigFile({ db: 'other.db', sources: [{ name: 'notes', kind: 'dir', path: 'notes' }] });
    for (const args of [['index'], ['index', '--dry-run'], ['gc']]) {
      const r = await runCli([...args, '-c', file]);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(`not a ragsync index: ${db}`);
    }
    expect(readFileSync(db).equals(bytes)).toBe(true);

    const tagged = join(t.dir, 'tagged.db');
    const c = new BetterSqlite3(tagged);
    c.pragma('application_id = 42');
    c.close();
    const taggedBytes = readFileSync(tagged);
    expect(() => runIndexSyncConfig(tagged)).toThrow(`not a ragsync index: ${tagged}`);
    expect(readFileSync(tagged).equals(taggedBytes)).toBe(true);
  });

  it('a WAL-mode database of another program is refused from its bytes: no -wal or -shm appears beside it', () => {
    const db = join(t.dir, 'app.db');
    const c = new BetterSqlite3(db);
    c.pragma('journal_mode = WAL');
    c.exec("CREATE TABLE settings (k TEXT, v TEXT); INSERT INTO settings VALUES ('theme', 'dark');");
    c.close();
    const bytes = readFileSync(db);
    const files = listing();
    expect(files).toEqual(['app.db']);
    for (const open of [
      () => openIndex({ db }, 'search'),
      () => openIndex({ db }, 'admin', { readOnly: true }),
      () => openIndex({ db }, 'admin'),
      () => openIndex({ db }, 'sync'),
      () => openIndex({ db }, 'sync', { dryRun: true }),
    ]) {
      expect(open).toThrow(`not a ragsync index: ${db}`);
    }
    expect(listing()).toEqual(files);
    expect(readFileSync(db).equals(bytes)).toBe(true);
  });

  /** Opens `db` as the writer would (what index and gc do first). */
  function runIndexSyncConfig(db: string) {
    return openIndex({ db }, 'sync');
  }

  it('an index from a newer ragsync is refused by writers and readers, naming both versions; nothing is written', async () => {
    const dir = folder('notes', 2);
    const cfg = dirConfig(dir);
    expect((await index(cfg)).status).toBe('ok');
    const known = Math.max(...listMigrations().map((m) => m.version));
    const future = known + 1;
    const c = new BetterSqlite3(cfg.db);
    c.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'future', 'later')").run(future);
    c.close();
    const state = () => {
      const r = new BetterSqlite3(cfg.db, { readonly: true });
      try {
        return r.prepare("SELECT (SELECT count(*) FROM runs) || '/' || (SELECT count(*) FROM documents) || '/' || (SELECT count(*) FROM index_lock)").pluck().get();
      } finally {
        r.close();
      }
    };
    const before = state();
    writeFileSync(join(dir, 'n9.md'), doc(9));
    const message = `index ${cfg.db} has schema version ${future}; this ragsync knows up to ${known}: upgrade ragsync`;
    await expect(runIndex(cfg)).rejects.toThrow(message);
    expect(() => openIndex(cfg, 'admin', { readOnly: true })).toThrow(message);
    expect(() => openIndex(cfg, 'search')).toThrow(message);
    expect(() => openIndex(cfg, 'sync', { dryRun: true })).toThrow(message);
    expect(state()).toBe(before);
  });

  it('readers never migrate an older index: they say to run index, which upgrades it and marks the file as ragsync\'s', async () => {
    const dir = folder('notes', 2);
    const cfg = dirConfig(dir);
    expect((await index(cfg)).status).toBe('ok');
    const appId = (file: string) => {
      const r = new BetterSqlite3(file, { readonly: true });
      try {
        return r.pragma('application_id', { simple: true });
      } finally {
        r.close();
      }
    };
    expect(appId(cfg.db)).toBe(0x52475359);
    // As an index made before migration 006 was.
    const c = new BetterSqlite3(cfg.db);
    c.exec('DELETE FROM schema_migrations WHERE version = 6; PRAGMA application_id = 0;');
    c.close();
    const file = writeConfigFile({ db: cfg.db, sources: [{ name: 'notes', kind: 'dir', path: dir }] });
    const st = await runCli(['status', '-c', file]);
    expect(st.code).toBe(2);
    // Later migrations (007 …) may be applied already: then it is "version N without migration 6".
    expect(st.stderr).toMatch(/has schema version (5|\d+ without migration 6); this ragsync needs \d+: run "ragsync index" once to upgrade it/);
    expect(appId(cfg.db)).toBe(0);
    expect((await index(cfg)).status).toBe('ok');
    expect(appId(cfg.db)).toBe(0x52475359);
    expect((await runCli(['status', '-c', file])).code).toBe(0);
  });

  it('a zero-byte file is a new index for `index`, and "no index" for readers', async () => {
    const dir = folder('notes', 2);
    const cfg = dirConfig(dir);
    writeFileSync(cfg.db, '');
    expect(() => openIndex(cfg, 'search')).toThrow(/no index at .*: run "ragsync index" first/);
    expect(readFileSync(cfg.db)).toHaveLength(0);
    expect((await index(cfg)).status).toBe('ok');
  });
});

describe('8. errors a user can fix name the file or port and the reason, with the documented exit code', () => {
  const canChattr = (() => {
    const probe = join(tmpdir(), `ragsync-chattr-${process.pid}`);
    try {
      writeFileSync(probe, '');
      execFileSync('chattr', ['+i', probe], { stdio: 'ignore' });
      execFileSync('chattr', ['-i', probe], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    } finally {
      rmSync(probe, { force: true });
    }
  })();

  let n = 0;
  const cfgFor = (db: string) => writeConfigFile({ db, sources: [{ name: 'notes', kind: 'dir', path: 'notes' }] }, `c${n++}.json`);
  const expectWords = (r: { code: number | null; stderr: string }, code: number, words: string | RegExp) => {
    expect(r.code, r.stderr).toBe(code);
    expect(r.stderr).not.toContain('internal error');
    const last = r.stderr.trim().split('\n').at(-1)!;
    if (typeof words === 'string') expect(last).toContain(words);
    else expect(last).toMatch(words);
  };

  it('a database path that is a directory, a file that is not SQLite, a corrupt index', async () => {
    const dir = folder('notes', 3);
    const dirDb = join(t.dir, 'db-dir');
    mkdirSync(dirDb);
    const textDb = join(t.dir, 'notes.txt');
    writeFileSync(textDb, 'just some text, '.repeat(300));
    const text = readFileSync(textDb);
    // A real index whose pages past the first are overwritten: the schema reads, the tables do not.
    const corrupt = dirConfig(dir);
    expect((await index(corrupt)).status).toBe('ok');
    const fd = openSync(corrupt.db, 'r+');
    writeSync(fd, Buffer.alloc(4096 * 8, 0xab), 0, 4096 * 8, 4096);
    closeSync(fd);
    const [a, b, c, d, e, f] = await Promise.all([
      runCli(['index', '-c', cfgFor('db-dir')]),
      runCli(['status', '-c', cfgFor('db-dir')]),
      runCli(['index', '-c', cfgFor('notes.txt')]),
      runCli(['search', 'x', '-c', cfgFor('notes.txt')]),
      runCli(['status', '-c', cfgFor(corrupt.db)]),
      runCli(['export', '-c', cfgFor(corrupt.db)]),
    ]);
    expectWords(a!, 2, `database path ${dirDb} is a directory, not a file`);
    expectWords(b!, 2, `database path ${dirDb} is a directory, not a file`);
    expectWords(c!, 2, `database file ${textDb} is not a SQLite database`);
    expectWords(d!, 2, `database file ${textDb} is not a SQLite database`);
    expect(readFileSync(textDb).equals(text)).toBe(true);
    expectWords(e!, 2, `database file ${corrupt.db} is corrupt (database disk image is malformed)`);
    expectWords(f!, 2, `database file ${corrupt.db} is corrupt`);
  });

  it.skipIf(!canChattr)('a read-only database file, and a folder where it cannot be created (chattr: root ignores modes)', async () => {
    const dir = folder('notes', 2);
    const cfg = dirConfig(dir);
    expect((await index(cfg)).status).toBe('ok');
    writeFileSync(join(dir, 'new.md'), doc(5));
    const locked = join(t.dir, 'locked');
    mkdirSync(locked);
    execFileSync('chattr', ['+i', cfg.db]);
    execFileSync('chattr', ['+i', locked]);
    try {
      const [ro, denied] = await Promise.all([
        runCli(['index', '-c', cfgFor(cfg.db)]),
        runCli(['index', '-c', cfgFor(join(locked, 'sub', 'index.db'))]),
      ]);
      expectWords(ro, 2, `database file ${cfg.db} is read-only`);
      expectWords(denied, 2, `permission denied: cannot create folder ${join(locked, 'sub')}`);
    } finally {
      execFileSync('chattr', ['-i', cfg.db]);
      execFileSync('chattr', ['-i', locked]);
    }
    expect(paths(cfg.db)).toHaveLength(2);
  });

  it('the words come from the real error codes (the lowest level, testable without privileges)', async () => {
    const file = join(t.dir, 'ro.db');
    new BetterSqlite3(file).exec('CREATE TABLE x (y)');
    const ro = new BetterSqlite3(file, { readonly: true });
    let err: unknown;
    try {
      ro.exec('INSERT INTO x VALUES (1)');
    } catch (e) {
      err = e;
    }
    ro.close();
    expect((err as { code: string }).code).toBe('SQLITE_READONLY');
    expect(describeIoError(err, file)).toMatch(new RegExp(`^database file ${file} is read-only`));
    let fsErr: unknown;
    try {
      readFileSync(join(t.dir, 'missing', 'x'));
    } catch (e) {
      fsErr = e;
    }
    expect(describeIoError(fsErr)).toBe(`not found: ${join(t.dir, 'missing', 'x')}`);
    expect(describeIoError(Object.assign(new Error('x'), { code: 'EACCES', path: '/srv/x.db' }))).toBe('permission denied: /srv/x.db');
    expect(describeIoError(new Error('no code'))).toBeNull();

    // Errors from any backend method (async, or an async iterator such as export's) name the file.
    const sqliteLike = () => Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' });
    const self = { file: '/srv/index.db' };
    const viaAsync = withPathOnErrors(async () => {
      throw sqliteLike();
    }, () => self.file);
    const viaIterator = withPathOnErrors(async function* () {
      yield 1;
      throw sqliteLike();
    }, () => self.file);
    const a = await viaAsync.call(self).catch((e: unknown) => e);
    expect(describeIoError(a)).toMatch(/^database file \/srv\/index\.db is corrupt/);
    const b = await (async () => {
      for await (const _ of viaIterator.call(self) as AsyncIterable<unknown>) void _;
    })().catch((e: unknown) => e);
    expect((b as { code: string }).code).toBe('SQLITE_CORRUPT');
    expect(describeIoError(b)).toMatch(/^database file \/srv\/index\.db is corrupt/);

    // A database whose folder cannot be made because a file is in the way.
    const blocker = join(t.dir, 'blocker');
    writeFileSync(blocker, 'x');
    expect(() => openIndex({ db: join(blocker, 'index.db') }, 'sync')).toThrow(`${blocker} exists and is not a folder`);
  });

  it('a port already in use: serve and daemon --serve say which address, exit 2', async () => {
    const dir = folder('notes', 1);
    const cfg = dirConfig(dir);
    expect((await index(cfg)).status).toBe('ok');
    const busy = createNetServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as AddressInfo).port;
    try {
      const file = cfgFor(cfg.db);
      const [serve, daemon] = await Promise.all([
        runCli(['serve', '-c', file, '--port', String(port)]),
        runCli(['daemon', '-c', file, '--serve', '--port', String(port), '--schedule', '0 0 1 1 *'], { RAGSYNC_LOG_FORMAT: 'json' }),
      ]);
      expectWords(serve, 2, `address 127.0.0.1:${port} is already in use`);
      expectWords(daemon, 2, `address 127.0.0.1:${port} is already in use`);
    } finally {
      busy.close();
    }
  });
});

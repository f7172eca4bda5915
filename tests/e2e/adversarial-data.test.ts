// Hostile environments against what ragsync holds: sources that vanish or shrink, folders and
// databases that are not ragsync's, hostile files and URLs, trickling providers, a gc beside a run,
// requests beyond the engine's limits. Each case asserts the outcome and that nothing indexed is lost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { chmodSync, statSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { loadConfig } from '../../src/builtin.ts';
import { EXIT, RagsyncError } from '../../src/core/errors.ts';
import { openIndex } from '../../src/storage/open.ts';
import { runIndex } from '../../src/sync/run.ts';
import { Searcher } from '../../src/search/search.ts';
import { DashScopeReranker } from '../../src/search/rerank.ts';
import { parseSearchRequest } from '../../src/search/request.ts';
import { createHttpServer, listen } from '../../src/server/http.ts';
import { MARKER } from '../../src/sources/checkout.ts';
import { APPLICATION_ID } from '../../src/storage/sqlite/identity.ts';
import { Upstream } from '../helpers/upstream.ts';
import { tempDir } from '../helpers/tmp.ts';
import { makeFixture } from '../helpers/search-fixture.ts';
import { cliAs, errorLine, held, peer, sha, trickle, tree, writeCfg } from '../helpers/adversarial.ts';
import { isStopped, spawnCli, waitFor } from './daemon-helpers.ts';

const t = tempDir('ragsync-adv-');
afterAll(() => t.cleanup());
let n = 0;
/** A fresh folder inside the group's temp folder. */
const fresh = (name: string) => {
  const d = join(t.dir, `${name}-${++n}`);
  mkdirSync(d, { recursive: true });
  return d;
};
const para = (topic: string, i: number) => `# ${topic} ${i}\n\n${topic}第${i}篇，论其旺衰喜忌，以月令为纲。Paragraph ${i} about ${topic}.\n`;
/** A folder of `count` Markdown files. */
function notes(dir: string, count: number, topic = '甲木'): string {
  mkdirSync(dir, { recursive: true });
  for (let i = 1; i <= count; i++) writeFileSync(join(dir, `n${String(i).padStart(2, '0')}.md`), para(topic, i));
  return dir;
}
const json = (r: { stdout: string }) => JSON.parse(r.stdout);
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
/** Runs as an unprivileged user when the tests run as root (root ignores file modes). */
const UNPRIVILEGED = process.getuid?.() === 0 ? 65534 : undefined;

describe('a source that suddenly yields nothing or much less keeps its documents', () => {
  it('an emptied folder (an unmounted disk): the source fails, exits 1, keeps everything; --dry-run says so; --allow-empty confirms', async () => {
    const dir = fresh('empty');
    const src = notes(join(dir, 'notes'), 6);
    const { file, db } = writeCfg(dir, [{ name: 'notes', kind: 'dir', path: src }]);
    expect((await runIndex(loadConfig(file))).status).toBe('ok');
    const before = held(db);
    expect(before.documents).toHaveLength(6);
    for (const f of readdirSync(src)) rmSync(join(src, f));

    const [dry, real] = await Promise.all([cliAs(['index', '-c', file, '--dry-run', '--json']), cliAs(['index', '-c', file, '--json'])]);
    for (const r of [dry, real]) {
      expect(r.code, r.stderr).toBe(EXIT.failed);
      const s = json(r).sources[0];
      expect(s.status).toBe('failed');
      expect(s.error).toMatch(/^source "notes" lists no files, but 6 documents are indexed: refusing to delete them all .*--allow-empty/);
      expect(s.written.documents.deleted).toBe(0);
    }
    expect(held(db)).toEqual(before);
    const history = openIndex(loadConfig(file), 'admin');
    const { runs } = await history.status({ runs: 1 });
    await history.close();
    expect(runs[0]).toMatchObject({ status: 'failed' });
    expect(runs[0]!.error).toMatch(/lists no files/);

    expect((await runIndex(loadConfig(file), { allowEmpty: true })).status).toBe('ok');
    expect(held(db).documents).toEqual([]);
  });

  it('a per-source allowEmpty lets an empty folder through; a folder that is a file or missing fails by name', async () => {
    const dir = fresh('allow');
    const src = notes(join(dir, 'notes'), 2);
    const { file, db } = writeCfg(dir, [{ name: 'notes', kind: 'dir', path: src, allowEmpty: true }]);
    await runIndex(loadConfig(file));
    for (const f of readdirSync(src)) rmSync(join(src, f));
    expect((await runIndex(loadConfig(file))).status).toBe('ok');
    expect(held(db).documents).toEqual([]);

    writeFileSync(join(dir, 'a-file'), 'x');
    const cfg = loadConfig(writeCfg(dir, [{ name: 'f', kind: 'dir', path: join(dir, 'a-file') }, { name: 'm', kind: 'dir', path: join(dir, 'missing') }]).file);
    const r = await runIndex(cfg);
    expect(r.sources.map((s) => s.error)).toEqual([`not a folder: ${join(dir, 'a-file')}`, `folder not found: ${join(dir, 'missing')}`]);
  });

  it('deleting more than maxDeleteShare (default half) of a source stops it, says how many; the flag, --force or the setting lets it through', async () => {
    const dir = fresh('share');
    const src = notes(join(dir, 'notes'), 10);
    const { file, db } = writeCfg(dir, [{ name: 'notes', kind: 'dir', path: src }]);
    await runIndex(loadConfig(file));
    for (const i of [1, 2, 3, 4, 5, 6]) rmSync(join(src, `n0${i}.md`));
    const r = await runIndex(loadConfig(file));
    expect(r.status).toBe('failed');
    expect(r.sources[0]!.error).toMatch(
      /^source "notes" would delete 6 of its 10 indexed documents \(60 %\), over maxDeleteShare 0\.5 \(50 %\): refusing, the source keeps its documents/,
    );
    expect(held(db).documents).toHaveLength(10);
    // The dry run predicts the same refusal.
    expect((await runIndex(loadConfig(file), { dryRun: true })).sources[0]!.error).toBe(r.sources[0]!.error);

    const cli = await cliAs(['index', '-c', file, '--max-delete-share', '0.6', '--json']);
    expect(cli.code, cli.stderr).toBe(EXIT.ok);
    expect(held(db).documents).toHaveLength(4);

    // 2 of 4 is exactly the share: allowed. Then --force, and a source setting, each let more through.
    for (const i of [7, 8]) rmSync(join(src, `n0${i}.md`));
    expect((await runIndex(loadConfig(file))).status).toBe('ok');
    notes(src, 10, '乙木');
    await runIndex(loadConfig(file));
    for (const i of [1, 2, 3, 4, 5, 6, 7]) rmSync(join(src, `n0${i}.md`));
    expect((await runIndex(loadConfig(file), { force: true })).status).toBe('ok');
    const bad = await cliAs(['index', '-c', file, '--max-delete-share', '2']);
    expect(bad.code).toBe(EXIT.usage);
    expect(errorLine(bad) || bad.stderr).toMatch(/--max-delete-share must be a number from 0 to 1 \(got "2"\)/);
  });

  it('git: a commit that empties the branch, or include globs that match nothing, are refused; renames left by --max-docs are not deletions', async () => {
    const dir = fresh('git-empty');
    const up = new Upstream(join(dir, 'up'));
    for (let i = 1; i <= 6; i++) up.write(`d${i}.md`, para('丙火', i));
    up.commit('six');
    const { file, db } = writeCfg(dir, [{ name: 'docs', url: up.bare }]);
    await runIndex(loadConfig(file));
    for (let i = 1; i <= 6; i++) up.move(`d${i}.md`, `moved/d${i}.md`);
    up.commit('rename all');
    const renamed = await runIndex(loadConfig(file), { maxDocs: 2 });
    expect(renamed.status, renamed.sources[0]!.error ?? '').toBe('partial');
    expect(held(db).documents).toHaveLength(6); // 2 renamed, 4 still at their old paths
    expect((await runIndex(loadConfig(file))).status).toBe('ok');

    const before = held(db);
    for (let i = 1; i <= 6; i++) up.remove(`moved/d${i}.md`);
    up.write('README.txt', 'nothing here').commit('empty the docs');
    const r = await runIndex(loadConfig(file));
    expect(r.sources[0]!.error).toMatch(/^source "docs" lists no files, but 6 documents are indexed/);
    expect(held(db)).toEqual(before);
    // The commit was not recorded: the source still says what it indexed last.
    expect(r.sources[0]!.commitBefore).not.toBe(up.git('rev-parse', 'HEAD'));

    const globs = loadConfig(writeCfg(dir, [{ name: 'docs', url: up.bare, include: ['docs/**/*.markdown'] }]).file);
    expect((await runIndex(globs)).sources[0]!.error).toMatch(/lists no files/);
    expect(held(db)).toEqual(before);
  });
});

describe('checkouts ragsync did not make are never reset, re-cloned or deleted', () => {
  let up: Upstream;
  beforeAll(() => {
    up = new Upstream(fresh('co-up'));
    up.write('a.md', para('丁火', 1)).write('b.md', para('丁火', 2)).commit('init');
  });
  const cfgAt = (dir: string, path: string, extra: Record<string, unknown> = {}) =>
    loadConfig(writeCfg(dir, [{ name: 'docs', url: up.bare, path, ...extra }]).file);

  it('a folder with files and no .git, a file, or a symlink at the checkout path is refused untouched', async () => {
    const dir = fresh('foreign');
    const mine = join(dir, 'my-notes');
    mkdirSync(mine);
    writeFileSync(join(mine, 'diary.md'), '# private\n');
    writeFileSync(join(dir, 'a-file'), 'keep me');
    symlinkSync(mine, join(dir, 'link'));
    for (const [path, why] of [
      [mine, 'is a folder with files and no .git'],
      [join(dir, 'a-file'), 'is a file, not a folder'],
      [join(dir, 'link'), 'is a symbolic link'],
    ] as const) {
      const r = await runIndex(cfgAt(dir, path));
      expect(r.sources[0]!.error).toBe(
        `source "docs" (${up.bare}): the checkout path ${path} ${why}, not a checkout ragsync made; ragsync does not delete or ` +
          'overwrite what it did not create: move it away, or point sources[].path at another folder',
      );
    }
    expect(tree(mine)).toEqual({ 'diary.md': sha('# private\n') });
    expect(readFileSync(join(dir, 'a-file'), 'utf8')).toBe('keep me');
    expect(readdirSync(dir).filter((f) => f.includes('ragsync-clone'))).toEqual([]);
  });

  it("someone's working copy — another upstream, another branch, uncommitted or untracked work, local commits — is refused with what would be lost", async () => {
    const dir = fresh('wc');
    const other = new Upstream(fresh('other-up'));
    other.write('x.md', '# x\n').commit('x');
    const cases: [string, (wc: string) => void, RegExp][] = [
      ['another upstream', (wc) => git(wc, 'remote', 'set-url', 'origin', other.bare), /its origin is .*other-up.*upstream\.git/],
      ['another branch', (wc) => git(wc, 'checkout', '-q', '-b', 'feature'), /it is on branch "feature", not "main"/],
      ['an edit', (wc) => writeFileSync(join(wc, 'a.md'), '# mine\n'), /1 uncommitted change \(modified a\.md\)/],
      ['an untracked file', (wc) => writeFileSync(join(wc, 'new\nline.md'), 'x'), /1 uncommitted change \(untracked "new\\nline\.md"\)/],
      [
        'a local commit',
        (wc) => {
          writeFileSync(join(wc, 'c.md'), '# c\n');
          git(wc, 'add', '-A');
          git(wc, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'my local work');
        },
        /1 local commit \([0-9a-f]+ my local work\)/,
      ],
    ];
    for (const [what, change, message] of cases) {
      const wc = join(dir, what.replace(/\W+/g, '-'));
      git(dir, 'clone', '-q', up.bare, wc);
      change(wc);
      const before = { files: tree(wc), head: git(wc, 'rev-parse', 'HEAD'), status: git(wc, 'status', '--porcelain') };
      up.write('a.md', para('丁火', 10 + cases.findIndex((c) => c[0] === what))).commit(`upstream moves (${what})`);
      const r = await runIndex(cfgAt(dir, wc));
      expect(r.status, what).toBe('failed');
      expect(r.sources[0]!.error, what).toMatch(new RegExp(`^source "docs" \\(.*\\): ${wc.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is a git working copy ragsync did not make \\(`));
      expect(r.sources[0]!.error, what).toMatch(message);
      expect(r.sources[0]!.error!.split('\n'), what).toHaveLength(1);
      expect({ files: tree(wc), head: git(wc, 'rev-parse', 'HEAD'), status: git(wc, 'status', '--porcelain') }, what).toEqual(before);
      expect(existsSync(join(wc, '.git', MARKER)), what).toBe(false);
    }
  });

  it('a clean clone of the same upstream and branch (as an older ragsync left it) is adopted, then followed', async () => {
    const dir = fresh('adopt');
    const wc = join(dir, 'checkout');
    git(dir, 'clone', '-q', '--branch', 'main', '--single-branch', '--no-tags', up.bare, wc);
    up.write('b.md', para('戊土', 3)).commit('upstream moves');
    const cfg = cfgAt(dir, wc);
    const r = await runIndex(cfg);
    expect(r.status, r.sources[0]!.error ?? '').toBe('ok');
    expect(git(wc, 'rev-parse', 'HEAD')).toBe(up.git('rev-parse', 'HEAD'));
    expect(JSON.parse(readFileSync(join(wc, '.git', MARKER), 'utf8'))).toMatchObject({ source: 'docs', commit: up.git('rev-parse', 'HEAD') });
  });

  it("its own checkout holding someone's edit is refused with the list when upstream moves; an empty folder is cloned into", async () => {
    const dir = fresh('own');
    const root = join(dir, 'empty-dir');
    mkdirSync(root);
    const cfg = cfgAt(dir, root);
    expect((await runIndex(cfg)).status).toBe('ok');
    expect(existsSync(join(root, '.git', MARKER))).toBe(true);
    writeFileSync(join(root, 'b.md'), '# edited by hand\n');
    expect((await runIndex(cfg)).status).toBe('ok'); // upstream unchanged: no reset, nothing at risk
    up.write('a.md', para('己土', 4)).commit('upstream moves again');
    const r = await runIndex(cfg);
    expect(r.sources[0]!.error).toMatch(/holds work a reset to upstream would lose: 1 uncommitted change \(modified b\.md\); ragsync leaves it as it is/);
    expect(readFileSync(join(root, 'b.md'), 'utf8')).toBe('# edited by hand\n');
  });

  it('two git sources cannot share a checkout: refused at config load; a checkout of another source is refused', async () => {
    const dir = fresh('shared');
    const root = join(dir, 'co');
    const both = await cliAs(['index', '-c', writeCfg(dir, [{ name: 'one', url: up.bare, path: root }, { name: 'two', url: up.bare, path: root }]).file]);
    expect(both.code).toBe(EXIT.usage);
    expect(errorLine(both)).toMatch(/sources\[1\]\.path: the checkout .* is also source "one"'s; give each git source its own/);
    expect(existsSync(root)).toBe(false);
    expect((await runIndex(cfgAt(dir, root))).status).toBe('ok');
    const renamed = await runIndex(loadConfig(writeCfg(dir, [{ name: 'renamed', url: up.bare, path: root }]).file));
    expect(renamed.sources[0]!.error).toMatch(/the checkout .* belongs to source "docs"; give each git source its own path/);
  });
});

describe("git failures say git's reason in one line; URLs that would run programs are refused", () => {
  it('clone: missing repository, unresolvable host, a branch that does not exist (naming the ones there are), an empty repository', async () => {
    const dir = fresh('clone-err');
    const up = new Upstream(join(dir, 'up'));
    up.write('a.md', para('庚金', 1)).commit('one');
    execFileSync('git', ['init', '-q', '--bare', join(dir, 'empty.git')]);
    const { file } = writeCfg(dir, [
      { name: 'missing', url: join(dir, 'nope.git') },
      { name: 'host', url: 'https://user:s3cret@nonexistent.invalid/x.git' },
      { name: 'branch', url: up.bare, branch: 'nope' },
      { name: 'empty', url: join(dir, 'empty.git') },
    ]);
    const r = await runIndex(loadConfig(file));
    const errors = r.sources.map((s) => s.error!);
    expect(errors[0]).toMatch(/^source "missing" \(.*nope\.git\): clone failed: repository '.*nope\.git' does not exist$/);
    expect(errors[1]).toMatch(/^source "host" \(https:\/\/\*\*\*@nonexistent\.invalid\/x\.git\): clone failed: unable to access .*Could not resolve host: nonexistent\.invalid$/);
    expect(errors[2]).toMatch(/: clone failed: branch "nope" not found on the remote; it has main$/);
    expect(errors[3]).toMatch(/: clone failed: branch "main" not found on the remote; it has no branches \(an empty repository\)$/);
    for (const e of errors) {
      expect(e.split('\n')).toHaveLength(1);
      expect(e).not.toContain('Cloning into');
      expect(e).not.toContain('s3cret');
    }
    expect(readdirSync(join(dir, 'data', 'checkouts'))).toEqual([]); // no half-made clones left
  });

  it('fetch: a branch changed to one that does not exist fails by name and keeps the index', async () => {
    const dir = fresh('fetch-err');
    const up = new Upstream(join(dir, 'up'));
    up.write('a.md', para('辛金', 1)).commit('one');
    const { file, db } = writeCfg(dir, [{ name: 'docs', url: up.bare }]);
    await runIndex(loadConfig(file));
    const before = held(db);
    const r = await runIndex(loadConfig(writeCfg(dir, [{ name: 'docs', url: up.bare, branch: 'gone' }]).file));
    expect(r.sources[0]!.error).toMatch(/: fetch failed: branch "gone" not found on the remote; it has main$/);
    expect(held(db)).toEqual(before);
  });

  it('a URL like --upload-pack=… or ext::… is refused when the config loads, and never run', async () => {
    const dir = fresh('urls');
    const canary = join(dir, 'ran');
    for (const [url, message] of [
      [`--upload-pack=touch ${canary}`, /sources\[0\]\.url: a git URL must not start with "-" \(git would read it as an option\)/],
      [`ext::sh -c touch% ${canary}`, /sources\[0\]\.url: git transport helpers \("ext::…"\) are not allowed/],
      [`fd::17`, /transport helpers \("fd::…"\)/],
    ] as const) {
      const { file } = writeCfg(dir, [{ name: 'docs', url }]);
      expect(() => loadConfig(file), url).toThrow(message);
    }
    const r = await cliAs(['index', '-c', writeCfg(dir, [{ name: 'docs', url: `ext::sh -c touch% ${canary}` }]).file]);
    expect(r.code).toBe(EXIT.usage);
    expect(errorLine(r)).toMatch(/sources\[0\]\.url: git transport helpers/);
    expect(() => loadConfig(writeCfg(dir, [{ name: 'docs', url: 'x', branch: '--upload-pack=touch' }]).file)).toThrow(
      /sources\[0\]\.branch: not a valid branch name/,
    );
    // And a library caller that skips the config schema still cannot get it run.
    const { gitSnapshot } = await import('../../src/sources/git.ts');
    const { silentLogger } = await import('../../src/core/log.ts');
    await expect(
      gitSnapshot({ name: 'docs', url: `--upload-pack=touch ${canary}`, branch: 'main', root: join(dir, 'co'), updateWorkTree: true, log: silentLogger }, () => true),
    ).rejects.toThrow(/must not start with "-"/);
    expect(existsSync(canary)).toBe(false);
  });
});

describe('hostile files in a folder source', () => {
  it('links out of the source are never followed; a FIFO does not hang the run; a 50 MB file, invalid UTF-8 and odd names are handled by name', async () => {
    const dir = fresh('files');
    const outside = join(dir, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.md'), '# secret\n\nTOPSECRET-CANARY 甲乙丙\n');
    const src = notes(join(dir, 'notes'), 3);
    symlinkSync(join(outside, 'secret.md'), join(src, 'link.md'));
    symlinkSync(outside, join(src, 'linked-dir'));
    symlinkSync('/etc/passwd', join(src, 'passwd.md'));
    execFileSync('mkfifo', [join(src, 'fifo.md')]);
    writeFileSync(join(src, 'big.md'), '');
    truncateSync(join(src, 'big.md'), 50 * 1024 * 1024); // sparse: 50 MB of NULs, no disk
    writeFileSync(join(src, 'latin1.md'), Buffer.from([0x23, 0x20, 0xe9, 0x74, 0xe9, 0x0a]));
    writeFileSync(join(src, 'bad\nname.md'), Buffer.from([0xff, 0xfe, 0x41]));
    writeFileSync(join(src, 'new\nline.md'), para('壬水', 1));
    const { file, db } = writeCfg(dir, [{ name: 'notes', kind: 'dir', path: src }]);

    const r = await cliAs(['index', '-c', file, '--json'], { timeoutMs: 30_000 });
    expect(r.signal, 'the run finished on its own').toBeNull();
    expect(r.code, r.stderr).toBe(EXIT.partial);
    const s = json(r).sources[0];
    expect(s.skippedFiles.map((f: { reason: string }) => f.reason).sort()).toEqual([
      '"bad\\nname.md": not valid UTF-8, skipped',
      'big.md: 52428800 bytes is over maxFileBytes (2000000), skipped',
      'latin1.md: not valid UTF-8, skipped',
    ]);
    expect(held(db).documents).toEqual(['notes|n01.md', 'notes|n02.md', 'notes|n03.md', 'notes|new\nline.md']);
    const admin = openIndex(loadConfig(file), 'admin');
    let exported = '';
    for await (const row of admin.exportChunks()) exported += JSON.stringify(row);
    await admin.close();
    expect(exported).toContain('壬水');
    expect(exported).not.toContain('TOPSECRET');
    expect(exported).not.toContain('root:');
    // Over the size limit and raised past it, the 50 MB file is read and refused as binary, by name.
    const raised = await runIndex(loadConfig(writeCfg(dir, [{ name: 'notes', kind: 'dir', path: src, maxFileBytes: 60_000_000 }]).file));
    expect(raised.sources[0]!.skippedFiles.map((f) => f.reason)).toContain('big.md: binary file (contains NUL bytes), skipped');
  });

  it('a file that turns invalid keeps its previous version indexed', async () => {
    const dir = fresh('turns-bad');
    const src = notes(join(dir, 'notes'), 2);
    const { file, db } = writeCfg(dir, [{ name: 'notes', kind: 'dir', path: src }]);
    await runIndex(loadConfig(file));
    const before = held(db);
    writeFileSync(join(src, 'n01.md'), Buffer.from([0xc3, 0x28, 0x0a]));
    const r = await runIndex(loadConfig(file));
    expect(r.status).toBe('partial');
    expect(held(db)).toEqual(before);
  });

  it('a git upstream with a symlink to outside files indexes only its regular files', async () => {
    const dir = fresh('git-link');
    const up = new Upstream(join(dir, 'up'));
    up.write('a.md', para('癸水', 1)).commit('a');
    symlinkSync('/etc/passwd', join(up.work, 'passwd.md'));
    up.commit('a link');
    const { file, db } = writeCfg(dir, [{ name: 'docs', url: up.bare }]);
    expect((await runIndex(loadConfig(file))).status).toBe('ok');
    expect(held(db).documents).toEqual(['docs|a.md']);
  });
});

describe('the database is ragsync\'s, or it is refused untouched', () => {
  /**
   * Every role refuses (search, status/export, gc, index and its dry run) with the one line, and the
   * CLI exits 2 with it; the file is left as it was.
   */
  async function refusedByAll(file: string, db: string, line: RegExp): Promise<void> {
    const before = existsSync(db) && statSync(db).isFile() ? sha(readFileSync(db)) : null;
    const cli = Promise.all([cliAs(['status', '-c', file]), cliAs(['index', '-c', file])]);
    const cfg = loadConfig(file);
    const opens: [string, () => unknown][] = [
      ['search', () => openIndex(cfg, 'search')],
      ['admin', () => openIndex(cfg, 'admin')],
      ['maintain', () => openIndex(cfg, 'maintain')],
      ['sync', () => openIndex(cfg, 'sync')],
      ['dry run', () => openIndex(cfg, 'sync', { dryRun: true })],
    ];
    const bare = new RegExp(line.source.replace(/^\^ragsync: /, '^'));
    for (const [role, open] of opens) {
      expect(open, role).toThrow(bare);
      expect(open, role).toThrow(RagsyncError);
    }
    for (const r of await cli) {
      expect(r.code, r.stderr).toBe(EXIT.usage);
      expect(errorLine(r)).toMatch(line);
      expect(r.stderr).not.toContain('internal error');
    }
    if (before) expect(sha(readFileSync(db))).toBe(before);
    expect(existsSync(`${db}-wal`) && readFileSync(`${db}-wal`).length > 0).toBe(false);
  }
  const setup = () => {
    const dir = fresh('db');
    const src = notes(join(dir, 'notes'), 2);
    return { dir, ...writeCfg(dir, [{ name: 'notes', kind: 'dir', path: src }]) };
  };

  it('a file that is not SQLite, another program\'s SQLite file, and a directory', async () => {
    const a = setup();
    mkdirSync(join(a.dir, 'data'));
    writeFileSync(a.db, 'name,balance\nalice,100\n');
    await refusedByAll(a.file, a.db, new RegExp(`^ragsync: not a ragsync index: ${a.db} \\(not an SQLite database\\)$`));

    const b = setup();
    mkdirSync(join(b.dir, 'data'));
    const other = new BetterSqlite3(b.db);
    other.exec("CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('alice');");
    other.close();
    await refusedByAll(b.file, b.db, new RegExp(`^ragsync: not a ragsync index: ${b.db} \\(it holds other tables: people\\); ragsync leaves it untouched$`));
    const check = new BetterSqlite3(b.db, { readonly: true });
    expect(check.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all()).toEqual(['people']);
    check.close();

    const c = setup();
    mkdirSync(c.db, { recursive: true });
    await refusedByAll(c.file, c.db, new RegExp(`^ragsync: the index ${c.db} is a directory, not a database file \\(config "db"\\)$`));
  });

  it('an index from a newer ragsync is refused by every command, naming both versions', async () => {
    const a = setup();
    await runIndex(loadConfig(a.file));
    const raw = new BetterSqlite3(a.db);
    raw.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', '2030-01-01')").run();
    raw.close();
    await refusedByAll(a.file, a.db, /^ragsync: the index .* has schema version 99, newer than this ragsync knows \(6\): .*upgrade ragsync to use it \(the index was not touched\)$/);
  });

  it('reading commands never write: an index of the previous schema is read as it is and upgraded only by the next index run', async () => {
    const a = setup();
    await runIndex(loadConfig(a.file));
    const raw = new BetterSqlite3(a.db);
    raw.exec('DELETE FROM schema_migrations WHERE version = 6; PRAGMA application_id = 0;');
    raw.close();
    const before = sha(readFileSync(a.db));
    const status = await cliAs(['status', '-c', a.file, '--json']);
    expect(status.code, status.stderr).toBe(EXIT.ok);
    const cfg = loadConfig(a.file);
    const searcher = Searcher.open(cfg);
    expect((await searcher.search('甲木')).length).toBeGreaterThan(0);
    await searcher.close();
    const admin = openIndex(cfg, 'admin');
    const rows = [];
    for await (const row of admin.exportChunks()) rows.push(row);
    await admin.close();
    expect(rows.length).toBeGreaterThan(0);
    expect(sha(readFileSync(a.db))).toBe(before);
    expect((await runIndex(loadConfig(a.file))).status).toBe('ok');
    const after = new BetterSqlite3(a.db, { readonly: true });
    expect(after.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
    after.close();
  });

  it('corrupt, unreadable and read-only-folder databases are named with the reason in words', async () => {
    const a = setup();
    await runIndex(loadConfig(a.file));
    const bytes = readFileSync(a.db);
    for (let i = 4096; i < bytes.length; i++) bytes[i] = (i * 7919) & 0xff; // every page after the first
    writeFileSync(a.db, bytes);
    const corrupt = await cliAs(['status', '-c', a.file]);
    expect(corrupt.code).toBe(EXIT.usage);
    expect(errorLine(corrupt)).toMatch(new RegExp(`^ragsync: the index ${a.db} is corrupt \\(the database disk image is malformed\\)`));

    const b = setup();
    await runIndex(loadConfig(b.file));
    const before = sha(readFileSync(b.db));
    chmodSync(t.dir, 0o755); // the unprivileged user must reach the files
    chmodSync(b.dir, 0o755);
    chmodSync(join(b.dir, 'data'), 0o555);
    try {
      const [index, status] = await Promise.all([
        cliAs(['index', '-c', b.file], { user: UNPRIVILEGED }),
        cliAs(['status', '-c', b.file], { user: UNPRIVILEGED }),
      ]);
      for (const r of [index, status]) {
        expect(r.code, r.stderr).toBe(EXIT.usage);
        expect(errorLine(r)).toMatch(new RegExp(`^ragsync: the index ${b.db} (cannot be used: its folder is read-only|is read-only)`));
      }
      chmodSync(join(b.dir, 'data'), 0o755);
      chmodSync(b.db, 0o000);
      const denied = await cliAs(['status', '-c', b.file], { user: UNPRIVILEGED });
      expect(denied.code).toBe(EXIT.usage);
      expect(errorLine(denied)).toBe(`ragsync: ${b.db}: permission denied`);
    } finally {
      chmodSync(join(b.dir, 'data'), 0o755);
      chmodSync(b.db, 0o644);
    }
    expect(sha(readFileSync(b.db))).toBe(before);
  });
});

describe('remote calls have a whole-request deadline; zero vectors are a provider fault', () => {
  const remoteCfg = (dir: string, url: string, extra: Record<string, unknown> = {}) => {
    const src = notes(join(dir, 'notes'), 3);
    return writeCfg(dir, [{ name: 'notes', kind: 'dir', path: src }], {
      embedder: { provider: 'openai-compatible', baseUrl: `${url}/v1`, model: 'm', dimensions: 8, batchSize: 8, maxRetries: 1, ...extra },
    });
  };
  const vectors = (body: string, v: (i: number) => number[]) => {
    const input = (JSON.parse(body) as { input: string[] }).input;
    return JSON.stringify({ data: input.map((_, i) => ({ index: i, embedding: v(i) })) });
  };

  it('a provider that trickles a byte every 50 ms is cut at deadlineMs, retried as a timeout, named in the error; the lock is released', async () => {
    const p = await peer((_req, res, body) => trickle(res, vectors(body, () => [1, 0, 0, 0, 0, 0, 0, 0])));
    try {
      const dir = fresh('trickle');
      const { file, db } = remoteCfg(dir, p.url, { deadlineMs: 400, timeoutMs: 5000 });
      const started = Date.now();
      const r = await runIndex(loadConfig(file));
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(r.status).toBe('failed');
      expect(r.retries).toBe(1);
      expect(p.hits).toBe(2);
      expect(r.sources[0]!.error).toMatch(/openai-compatible m: no complete reply within deadlineMs 400 ms \(timed out\) \(gave up after 2 attempts\)/);
      const c = new BetterSqlite3(db, { readonly: true });
      expect(c.prepare('SELECT count(*) FROM index_lock').pluck().get()).toBe(0);
      c.close();
    } finally {
      await p.close();
    }
  });

  it('a provider that streams without end, fast, is cut off at a size no batch reaches', async () => {
    const p = await peer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1 << 20, 0x20); // a megabyte of spaces, again and again
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      res.on('error', () => {});
      pump();
    });
    try {
      const dir = fresh('flood');
      const { file } = remoteCfg(dir, p.url, { deadlineMs: 60_000 });
      const started = Date.now();
      const r = await runIndex(loadConfig(file));
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(r.sources[0]!.error).toMatch(/openai-compatible m: reply larger than 8388608 bytes; cut off/);
      expect(p.hits).toBe(1); // not retried: the same batch would bring the same flood
    } finally {
      await p.close();
    }
  });

  it('a batch holding a zero vector is rejected whole, nothing of it stored', async () => {
    const p = await peer((_req, res, body) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(vectors(body, (i) => (i === 1 ? [0, 0, 0, 0, 0, 0, 0, 0] : [0, 1, 0, 0, 0, 0, 0, 0])));
    });
    try {
      const dir = fresh('zero');
      const { file, db } = remoteCfg(dir, p.url);
      const r = await runIndex(loadConfig(file));
      expect(r.status).toBe('failed');
      expect(r.sources[0]!.error).toMatch(/vector 1 is all zeros \(zero norm\); batch rejected/);
      expect(held(db)).toEqual({ documents: [], chunks: 0, vectors: 0 });
    } finally {
      await p.close();
    }
  });

  it('a reranker that trickles is cut at its deadline: the search answers in fused order, naming the deadline', async () => {
    const p = await peer((_req, res) => trickle(res, JSON.stringify({ output: { results: [{ index: 0, relevance_score: 1 }] } })));
    const fx = await makeFixture();
    try {
      const searcher = Searcher.open(loadConfig(fx.configFile), undefined, new DashScopeReranker({ apiKey: 'k', url: p.url, timeoutMs: 300 }));
      const started = Date.now();
      const r = await searcher.run(parseSearchRequest({ query: '甲木', k: 3 }));
      await searcher.close();
      expect(Date.now() - started).toBeLessThan(5000);
      expect(r.reranked).toBe(false);
      expect(r.results.length).toBeGreaterThan(0);
      expect(r.rerankError).toMatch(/no complete answer within 300 ms \(timed out; RAGSYNC_RERANK_TIMEOUT_MS\)/);
    } finally {
      fx.cleanup();
      await p.close();
    }
  });
});

describe('gc beside an index run', () => {
  it('waits for no one: a gc while a run holds the lock exits 75 and deletes nothing; after a killed run it spares what the run stored', async () => {
    const dir = fresh('gc');
    const up = new Upstream(join(dir, 'up'));
    for (let i = 1; i <= 4; i++) up.write(`a${i}.md`, para('甲木', i));
    up.commit('a');
    const { file, db } = writeCfg(dir, [{ name: 'docs', url: up.bare }]);
    await runIndex(loadConfig(file));
    for (let i = 1; i <= 12; i++) up.write(`b${i}.md`, para('乙木', i));
    up.commit('b');

    // Frozen right after its first batch of vectors committed (their documents not yet written).
    const run = spawnCli(['index', '-c', file, '--json'], { RAGSYNC_FAILPOINT: 'after-vectors:1:stop' });
    await waitFor(() => isStopped(run.pid!) || run.exitCode !== null, 'the run to reach its first batch');
    const mid = held(db);
    const gc = await cliAs(['gc', '-c', file, '--json']);
    expect(gc.code).toBe(EXIT.locked);
    expect(errorLine(gc)).toMatch(/^ragsync: index is locked by another run \(pid \d+ on .*\): /);
    expect(held(db)).toEqual(mid);
    run.kill('SIGCONT');
    expect((await run.done).code).toBe(EXIT.ok);

    // Killed after its second batch: the vectors it stored belong to no chunk yet; gc keeps them.
    for (let i = 1; i <= 12; i++) up.write(`c${i}.md`, para('丙火', i));
    up.commit('c');
    const killed = await cliAs(['index', '-c', file], { env: { RAGSYNC_FAILPOINT: 'after-vectors:2' } });
    expect(killed.signal).toBe('SIGKILL');
    const stored = held(db).vectors;
    const gc2 = await cliAs(['gc', '-c', file, '--json']);
    expect(gc2.code, gc2.stderr).toBe(EXIT.ok);
    // Batch 1's documents were written before the kill; batch 2's 4 vectors wait for theirs.
    expect(json(gc2)).toEqual({ vectors: 0, spared: 4 });
    expect(held(db).vectors).toBe(stored);
    const next = await runIndex(loadConfig(file));
    expect(next.status).toBe('ok');
    expect(next.sources[0]!.planned.documents.added).toBe(8);
    expect(next.sources[0]!.planned.texts).toBe(4);
  });
});

describe('requests beyond the limits, and a port in use', () => {
  let fx: Awaited<ReturnType<typeof makeFixture>>;
  let searcher: Searcher;
  let base: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    fx = await makeFixture();
    searcher = Searcher.open(loadConfig(fx.configFile));
    const server = createHttpServer(searcher);
    base = await listen(server, 0);
    close = async () => {
      await new Promise((r) => server.close(r));
      await searcher.close();
      fx.cleanup();
    };
  });
  afterAll(() => close());

  it('a thousand filter values, a megabyte query string, a huge k: 400 with the reason, never 500', async () => {
    const many = (name: string) => Array.from({ length: 1000 }, (_, i) => `${name}=v${i}`).join('&');
    const cases: [string, RegExp][] = [
      [`/search?q=x&${many('tag')}`, /tag: at most 64 values/],
      [`/search?q=x&source=${Array.from({ length: 1000 }, (_, i) => `s${i}`).join(',')}`, /sources: at most 64 values/],
      [`/search?q=${'x'.repeat(1_000_000)}`, /request too large: the URL and headers may take at most \d+ bytes \(a query at most 1000 characters\)/],
      [`/search?q=x&${Array.from({ length: 1000 }, (_, i) => `p${i}=1`).join('&')}`, /unknown parameter "p0"/],
      ['/search?q=x&k=99999999999999999999999', /k must be an integer from 1 to 100/],
      ['/search?q=x&k=-1', /k must be an integer from 1 to 100/],
      ['/search?q=x&minScore=1e400', /minScore must be a number/],
      [`/search?q=x&path=${'*'.repeat(600)}`, /path: .*500/],
      ['/related?id=x&k=1000000', /k must be an integer from 1 to 100/],
    ];
    for (const [path, reason] of cases) {
      const res = await fetch(base + path);
      const body = (await res.json()) as { error: string };
      expect(res.status, path.slice(0, 60)).toBe(400);
      expect(body.error, path.slice(0, 60)).toMatch(reason);
    }
    expect((await fetch(`${base}/search?q=甲木`)).status).toBe(200);
  });

  it('a config file that is a directory is named as one, not as invalid JSON', async () => {
    const dir = fresh('cfgdir');
    const r = await cliAs(['status', '-c', dir]);
    expect(r.code).toBe(EXIT.usage);
    expect(errorLine(r)).toBe(`ragsync: cannot read the config file: ${dir}: is a directory, not a file`);
  });

  it('ragsync serve on a port in use, or on an address not of this machine, says which, exit 2', async () => {
    const busy = createNetServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const { port } = busy.address() as AddressInfo;
    try {
      const r = await cliAs(['serve', '-c', fx.configFile, '--port', String(port)]);
      expect(r.code).toBe(EXIT.usage);
      expect(errorLine(r)).toBe(`ragsync: port ${port} on 127.0.0.1 is already in use (another ragsync serve or daemon, or another program, listens there)`);
      const away = await cliAs(['serve', '-c', fx.configFile, '--port', String(port), '--host', '192.0.2.1']);
      expect(away.code).toBe(EXIT.usage);
      expect(errorLine(away)).toBe(`ragsync: 192.0.2.1 is not an address of this machine (cannot listen on port ${port} there)`);
    } finally {
      busy.close();
    }
  });
});

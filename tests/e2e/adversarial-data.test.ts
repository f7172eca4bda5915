// The adversarial list's source and database cases, and the hostile peers beside them: each case
// asserts what happens and that nothing indexed is lost. (The guards of issue 17 — empty sources,
// foreign checkouts, deadlines, gc beside a run, foreign databases — have their own group in
// adversarial-data-safety.test.ts; this one grows with each new class tried against a source or
// the database.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadConfig } from '../../src/builtin.ts';
import { EXIT, RagsyncError } from '../../src/core/errors.ts';
import { silentLogger } from '../../src/core/log.ts';

import { Searcher } from '../../src/search/search.ts';
import { DashScopeReranker } from '../../src/search/rerank.ts';
import { parseSearchRequest } from '../../src/search/request.ts';
import { createHttpServer, listen } from '../../src/server/http.ts';
import { gitSnapshot } from '../../src/sources/git.ts';
import { openIndex } from '../../src/storage/open.ts';
import { Upstream } from '../helpers/upstream.ts';
import { tempDir } from '../helpers/tmp.ts';
import { makeFixture } from '../helpers/search-fixture.ts';
import { cliAs, errorLine, held, peer, sha, tree, writeCfg } from '../helpers/adversarial.ts';
import { openSearcher, runIndex } from '../../src/engine/library.ts';

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
const commitAll = (cwd: string, message: string) => {
  git(cwd, 'add', '-A');
  git(cwd, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', message);
};
/** Runs the CLI as an unprivileged user when the tests run as root (root ignores file modes). */
const UNPRIVILEGED = process.getuid?.() === 0 ? 65534 : undefined;

describe("git failures say git's reason, in one line; nothing indexed is lost", () => {
  it('clone: a missing repository, an unresolvable host, a branch that does not exist, an empty repository', async () => {
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
    expect(errors[1]).toMatch(
      /^source "host" \(https:\/\/\*\*\*@nonexistent\.invalid\/x\.git\): clone failed: unable to access .*Could not resolve host: nonexistent\.invalid$/,
    );
    expect(errors[2]).toMatch(/: clone failed: branch "nope" not found on the remote; it has main$/);
    expect(errors[3]).toMatch(/: clone failed: branch "main" not found on the remote; it has no branches \(an empty repository\)$/);
    for (const e of errors) {
      expect(e.split('\n')).toHaveLength(1);
      expect(e).not.toMatch(/Cloning into|s3cret/);
    }
    // No half-made clone is left behind, not even a hidden one.
    expect(existsSync(join(dir, 'data', 'checkouts')) ? readdirSync(join(dir, 'data', 'checkouts')) : []).toEqual([]);
  });

  it('fetch: a branch changed to one that does not exist fails by name and keeps the index', async () => {
    const dir = fresh('fetch-err');
    const up = new Upstream(join(dir, 'up'));
    up.write('a.md', para('辛金', 1)).write('b.md', para('辛金', 2)).commit('one');
    const { file, db } = writeCfg(dir, [{ name: 'docs', url: up.bare }]);
    expect((await runIndex(loadConfig(file))).status).toBe('ok');
    const before = held(db);
    const r = await cliAs(['index', '-c', writeCfg(dir, [{ name: 'docs', url: up.bare, branch: 'gone' }]).file, '--json']);
    expect(r.code).toBe(EXIT.failed);
    expect(json(r).sources[0].error).toMatch(/: fetch failed: branch "gone" not found on the remote; it has main$/);
    expect(held(db)).toEqual(before);
  });

  it('a URL like --upload-pack=… or ext::…, or a branch like one, is refused when the config loads and never run', async () => {
    const dir = fresh('urls');
    const canary = join(dir, 'ran');
    for (const [url, message] of [
      [`--upload-pack=touch ${canary}`, /sources\[0\]\.url: a git URL must not start with "-" \(git would read it as an option\)/],
      [`ext::sh -c touch% ${canary}`, /sources\[0\]\.url: git transport helpers \("ext::…"\) are not allowed/],
      ['fd::17', /transport helpers \("fd::…"\)/],
    ] as const) {
      expect(() => loadConfig(writeCfg(dir, [{ name: 'docs', url }]).file), url).toThrow(message);
    }
    const r = await cliAs(['index', '-c', writeCfg(dir, [{ name: 'docs', url: `ext::sh -c touch% ${canary}` }]).file]);
    expect(r.code).toBe(EXIT.usage);
    expect(errorLine(r)).toMatch(/sources\[0\]\.url: git transport helpers/);
    expect(() => loadConfig(writeCfg(dir, [{ name: 'docs', url: 'x', branch: '--upload-pack=touch' }]).file)).toThrow(
      /sources\[0\]\.branch: not a valid branch name/,
    );
    // A library caller that builds the options by hand meets the same refusal.
    await expect(
      gitSnapshot({ name: 'docs', url: `--upload-pack=touch ${canary}`, branch: 'main', root: join(dir, 'co'), updateWorkTree: true, log: silentLogger }, () => true),
    ).rejects.toThrow(/must not start with "-"/);
    expect(existsSync(canary)).toBe(false);
    expect(existsSync(join(dir, 'co'))).toBe(false);
  });

  it("a damaged checkout inside the user's own repository: the repository around it is never fetched into or reset", async () => {
    // The data folder lives in the user's project, ignored by it, everything pushed: the project
    // repository is clean. ragsync's own checkout in it gets a garbage HEAD (a crash mid-write).
    const project = fresh('project');
    const remote = join(fresh('project-remote'), 'project.git');
    execFileSync('git', ['init', '-q', '--bare', '--initial-branch=main', remote]);
    git(project, 'init', '-q', '--initial-branch=main');
    writeFileSync(join(project, 'app.md'), 'my project\n');
    writeFileSync(join(project, '.gitignore'), 'data/\n*.json\nup/\n');
    commitAll(project, 'project');
    git(project, 'remote', 'add', 'origin', remote);
    git(project, 'push', '-q', 'origin', 'main');
    git(project, 'fetch', '-q', 'origin');
    const up = new Upstream(join(project, 'up'));
    up.write('a.md', para('壬水', 1)).commit('docs');
    const { file } = writeCfg(project, [{ name: 'docs', url: up.bare }]);
    expect((await runIndex(loadConfig(file))).status).toBe('ok');
    const checkout = loadConfig(file).sources[0]!.root;
    up.write('b.md', para('壬水', 2)).commit('more docs');
    writeFileSync(join(checkout, '.git', 'HEAD'), 'garbage\n');
    const projectBefore = { head: git(project, 'rev-parse', 'HEAD'), refs: git(project, 'for-each-ref'), files: tree(project) };

    const r = await runIndex(loadConfig(file));
    expect(r.status, r.sources[0]!.error ?? '').toBe('ok'); // its own checkout, cloned again
    expect(git(checkout, 'rev-parse', 'HEAD')).toBe(up.git('rev-parse', 'HEAD'));
    expect(git(project, 'rev-parse', 'HEAD')).toBe(projectBefore.head);
    expect(git(project, 'for-each-ref')).toBe(projectBefore.refs);
    expect(readFileSync(join(project, 'app.md'), 'utf8')).toBe('my project\n');
  });
});

describe('hostile files in a source', () => {
  it('links out of the folder are never followed; a FIFO does not hang the run; a 50 MB file, invalid UTF-8 and odd names are skipped or kept by name', async () => {
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
    truncateSync(join(src, 'big.md'), 50 * 1024 * 1024); // sparse: 50 MB of NULs, no disk used
    writeFileSync(join(src, 'latin1.md'), Buffer.from([0x23, 0x20, 0xe9, 0x74, 0xe9, 0x0a]));
    writeFileSync(join(src, 'bad\nname.md'), Buffer.from([0xff, 0xfe, 0x41]));
    writeFileSync(join(src, 'new\nline.md'), para('壬水', 1));
    const { file, db } = writeCfg(dir, [{ name: 'notes', kind: 'dir', path: src }]);

    const r = await cliAs(['index', '-c', file, '--json'], { timeoutMs: 30_000 });
    expect(r.signal, 'the run ended on its own').toBeNull();
    expect(r.code, r.stderr).toBe(EXIT.partial);
    expect(json(r).sources[0].skippedFiles.map((f: { reason: string }) => f.reason).sort()).toEqual([
      // quoted: a name cannot split the line or forge another; FF FE is a UTF-16LE byte-order mark, and one byte after it is no UTF-16
      '"bad\\nname.md": not valid UTF-16LE, skipped',
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
    // Raised past the limit, the 50 MB file is read and refused as binary, by name; nothing else changes.
    const raised = await runIndex(loadConfig(writeCfg(dir, [{ name: 'notes', kind: 'dir', path: src, maxFileBytes: 60_000_000 }]).file));
    expect(raised.sources[0]!.skippedFiles.map((f) => f.reason)).toContain('big.md: binary file (contains NUL bytes), skipped');
    expect(held(db).documents).toHaveLength(4);
  });

  it('a file that turns into invalid UTF-8 keeps its previous version indexed', async () => {
    const dir = fresh('turns-bad');
    const src = notes(join(dir, 'notes'), 2);
    const { file, db } = writeCfg(dir, [{ name: 'notes', kind: 'dir', path: src }]);
    await runIndex(loadConfig(file));
    const before = held(db);
    writeFileSync(join(src, 'n01.md'), Buffer.from([0xc3, 0x28, 0x0a]));
    const r = await runIndex(loadConfig(file));
    expect(r.status).toBe('partial');
    expect(r.sources[0]!.skippedFiles.map((f) => f.reason)).toEqual(['n01.md: not valid UTF-8, skipped']);
    expect(held(db)).toEqual(before);
  });

  it('a git upstream holding a link to files outside it, and a path with a newline, index only its regular files', async () => {
    const dir = fresh('git-link');
    const up = new Upstream(join(dir, 'up'));
    up.write('a.md', para('癸水', 1)).write('odd\nname.md', para('癸水', 2)).commit('a');
    symlinkSync('/etc/passwd', join(up.work, 'passwd.md'));
    up.commit('a link');
    const { file, db } = writeCfg(dir, [{ name: 'docs', url: up.bare }]);
    expect((await runIndex(loadConfig(file))).status).toBe('ok');
    expect(held(db).documents).toEqual(['docs|a.md', 'docs|odd\nname.md']);
  });
});

describe('databases from the adversarial list: refused or named, untouched', () => {
  const setup = () => {
    const dir = fresh('db');
    const src = notes(join(dir, 'notes'), 2);
    return { dir, src, ...writeCfg(dir, [{ name: 'notes', kind: 'dir', path: src }]) };
  };

  it('a file that is not SQLite and an index from a newer migration: every command refuses, exit 2, the file unchanged', async () => {
    const text = setup();
    mkdirSync(join(text.dir, 'data'));
    writeFileSync(text.db, 'name,balance\nalice,100\n');
    const newer = setup();
    expect((await runIndex(loadConfig(newer.file))).status).toBe('ok');
    const raw = new BetterSqlite3(newer.db);
    raw.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', '2030-01-01')").run();
    raw.close();
    for (const [c, words] of [
      [text, /database file .* is not a SQLite database/],
      [newer, /index .* has schema version 99; this ragsync knows up to \d+: upgrade ragsync \(the index is left as it is\)/],
    ] as const) {
      const before = sha(readFileSync(c.db));
      const cfg = loadConfig(c.file);
      for (const open of [() => openIndex(cfg, 'search'), () => openIndex(cfg, 'admin'), () => openIndex(cfg, 'sync'), () => openIndex(cfg, 'sync', { dryRun: true })]) {
        expect(open).toThrow(RagsyncError);
        expect(open).toThrow(words);
      }
      const [status, index] = await Promise.all([cliAs(['status', '-c', c.file]), cliAs(['index', '-c', c.file])]);
      for (const r of [status, index]) {
        expect(r.code, r.stderr).toBe(EXIT.usage);
        expect(r.stderr).toMatch(words);
        expect(r.stderr).not.toContain('internal error');
      }
      expect(sha(readFileSync(c.db))).toBe(before);
    }
  });

  it('a read-only database folder: index and status say so by name, exit 2; the index is unchanged and serves again once writable', async () => {
    const c = setup();
    expect((await runIndex(loadConfig(c.file))).status).toBe('ok');
    writeFileSync(join(c.src, 'n03.md'), para('乙木', 3));
    const before = sha(readFileSync(c.db));
    chmodSync(t.dir, 0o755); // the unprivileged user must reach the files
    chmodSync(c.dir, 0o755);
    chmodSync(join(c.dir, 'data'), 0o555);
    try {
      const [index, status] = await Promise.all([
        cliAs(['index', '-c', c.file], { user: UNPRIVILEGED }),
        cliAs(['status', '-c', c.file], { user: UNPRIVILEGED }),
      ]);
      for (const r of [index, status]) {
        expect(r.code, r.stderr).toBe(EXIT.usage);
        expect(r.stderr).not.toContain('internal error');
        expect(r.stderr).toMatch(new RegExp(`${c.db.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}.*(read-only|permission denied)`));
      }
    } finally {
      chmodSync(join(c.dir, 'data'), 0o755);
    }
    expect(sha(readFileSync(c.db))).toBe(before);
    const r = await runIndex(loadConfig(c.file));
    expect(r.status).toBe('ok');
    expect(held(c.db).documents).toHaveLength(3);
  });
});

describe('a source folder the user may not read', () => {
  it.skipIf(UNPRIVILEGED === undefined)('fails that source by name (exit 1, as a source that cannot be reached), the others still index (exit 3)', async () => {
    const dir = fresh('denied');
    const open = notes(join(dir, 'open'), 2);
    const shut = notes(join(dir, 'shut'), 2);
    const { file } = writeCfg(dir, [{ name: 'shut', kind: 'dir', path: shut }]);
    mkdirSync(join(dir, 'both'));
    const both = writeCfg(join(dir, 'both'), [{ name: 'open', kind: 'dir', path: open }, { name: 'shut', kind: 'dir', path: shut }]);
    chmodSync(dirname(dir), 0o755); // the unprivileged user must reach the files
    execFileSync('chmod', ['-R', 'a+rwX', dir]);
    chmodSync(shut, 0o000);
    try {
      const [alone, mixed] = await Promise.all([cliAs(['index', '-c', file, '--json'], { user: UNPRIVILEGED }), cliAs(['index', '-c', both.file, '--json'], { user: UNPRIVILEGED })]);
      expect(alone.code, alone.stderr).toBe(EXIT.failed);
      expect(alone.stderr).toContain(`permission denied: ${shut}`);
      expect(mixed.code, mixed.stderr).toBe(EXIT.partial);
      expect(JSON.parse(mixed.stdout).sources.map((x: { name: string; status: string }) => `${x.name}:${x.status}`)).toEqual(['open:ok', 'shut:failed']);
    } finally {
      chmodSync(shut, 0o755);
    }
  });
});

describe('peers that never stop sending', () => {
  it('an embeddings provider streaming without end, too fast for any timeout, is cut off at a size no batch reaches', async () => {
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
      const src = notes(join(dir, 'notes'), 3);
      const { file, db } = writeCfg(dir, [{ name: 'notes', kind: 'dir', path: src }], {
        embedder: { provider: 'openai-compatible', baseUrl: `${p.url}/v1`, model: 'm', dimensions: 8, batchSize: 8, deadlineMs: 60_000 },
      });
      const started = Date.now();
      const r = await runIndex(loadConfig(file));
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(r.sources[0]!.error).toMatch(/^embedding failed \(openai-compatible m at http:\/\/127\.0\.0\.1:\d+\/v1\): reply larger than 8388608 bytes; cut off$/);
      expect(p.hits).toBe(1); // not retried: the same batch would bring the same flood
      expect(held(db)).toMatchObject({ documents: [], vectors: 0 });
    } finally {
      await p.close();
    }
  });

  it('a reranker streaming without end is cut off too: the search answers in fused order', async () => {
    const p = await peer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(1 << 16, 0x20);
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      res.on('error', () => {});
      pump();
    });
    const fx = await makeFixture();
    try {
      const searcher = openSearcher(loadConfig(fx.configFile), undefined, new DashScopeReranker({ apiKey: 'k', url: p.url, timeoutMs: 60_000 }));
      const r = await searcher.run(parseSearchRequest({ query: '甲木', k: 3 }));
      await searcher.close();
      expect(r.reranked).toBe(false);
      expect(r.results.length).toBeGreaterThan(0);
      expect(r.rerankError).toMatch(/reply larger than 4194304 bytes; cut off/);
    } finally {
      fx.cleanup();
      await p.close();
    }
  });
});

describe('requests beyond the engine\'s limits', () => {
  let fx: Awaited<ReturnType<typeof makeFixture>>;
  let base: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    fx = await makeFixture();
    const searcher = openSearcher(loadConfig(fx.configFile));
    const server = createHttpServer(searcher);
    base = await listen(server, 0);
    close = async () => {
      await new Promise((r) => server.close(r));
      await searcher.close();
      fx.cleanup();
    };
  });
  afterAll(() => close());

  it('a thousand filter values, a megabyte query string, a huge k: a 4xx with the reason, never 500', async () => {
    const many = (name: string) => Array.from({ length: 1000 }, (_, i) => `${name}=v${i}`).join('&');
    const cases: [string, RegExp][] = [
      [`/search?q=x&${many('tag')}`, /tag: at most 64 values/],
      [`/search?q=x&source=${Array.from({ length: 1000 }, (_, i) => `s${i}`).join(',')}`, /sources: at most 64 values/],

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
    // Past node's header limit the status is 431 (the request line is what is too large), with the reason.
    const huge = await fetch(`${base}/search?q=${'x'.repeat(1_000_000)}`);
    expect(huge.status).toBe(431);
    expect(((await huge.json()) as { error: string }).error).toBe(
      'request too large: the URL and headers may take at most 16384 bytes (a query at most 1000 characters); use POST /search with a JSON body for long queries',
    );
    expect((await fetch(`${base}/search?q=甲木`)).status).toBe(200);
  });
});

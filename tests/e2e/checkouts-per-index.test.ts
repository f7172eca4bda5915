// Two indexes in one folder (two configs, one checkouts folder) never share a checkout: each git
// source is cloned into a folder of its own index and upstream, so one config's fetch (a dry run,
// a run stopped after fetching) is never the other's "local commits". A checkout made before
// checkouts were kept per index is moved, not cloned again; real local work is still refused.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import { index, snapshotDb } from '../helpers/index-fixture.ts';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';
import { Upstream } from '../helpers/upstream.ts';

let t: ReturnType<typeof tempDir>;
let upA: Upstream;
let upB: Upstream;
beforeEach(() => {
  t = tempDir('ragsync-checkouts-');
  upA = new Upstream(join(t.dir, 'repo-a'));
  upB = new Upstream(join(t.dir, 'repo-b'));
  for (let i = 0; i < 4; i++) upA.write(`a${i}.md`, `# A ${i}\n\nNote ${i} of repository A, about apples.\n`).commit(`a ${i}`);
  for (let i = 0; i < 4; i++) upB.write(`b${i}.md`, `# B ${i}\n\nNote ${i} of repository B, about boats.\n`).commit(`b ${i}`);
});
afterEach(() => t.cleanup());

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8' }).trim();

/** A config file in the shared project folder: its own db, the default checkouts folder, a git source "s". */
function configFile(name: string, url: string): string {
  const file = join(t.dir, 'project', `${name}.json`);
  mkdirSync(join(t.dir, 'project'), { recursive: true });
  writeFileSync(file, JSON.stringify({ db: `${name}.db`, embedder: { provider: 'hash', dims: 64 }, sources: [{ name: 's', url }] }));
  return file;
}
const load = (file: string, url: string): Config =>
  parseConfig({ db: file.replace(/\.json$/, '.db'), embedder: { provider: 'hash', dims: 64 }, sources: [{ name: 's', url }] }, file);
const paths = (db: string) => [...new Set(snapshotDb(db).chunks.map((c) => c.path))];

describe('checkouts belong to one index', () => {
  it('two configs in one folder with same-named sources from different repositories both run, dry runs of the other in between', async () => {
    const a = load(configFile('a', upA.bare), upA.bare);
    const b = load(configFile('b', upB.bare), upB.bare);
    expect(a.checkouts).toBe(b.checkouts);
    expect(a.sources[0]!.root).not.toBe(b.sources[0]!.root);

    // b's dry run first: it fetches (and clones) without moving anything; a's index still fills.
    expect((await index(b, { dryRun: true })).status).toBe('ok');
    for (let round = 0; round < 3; round++) {
      upA.write(`a-round${round}.md`, `# round ${round}\n\nApples again, round ${round}.\n`).commit(`round ${round}`);
      upB.write(`b-round${round}.md`, `# round ${round}\n\nBoats again, round ${round}.\n`).commit(`round ${round}`);
      const ra = await index(a);
      expect(ra.status, ra.sources[0]!.error ?? '').toBe('ok');
      expect((await index(a, { dryRun: true })).status).toBe('ok');
      const rb = await index(b);
      expect(rb.status, rb.sources[0]!.error ?? '').toBe('ok');
      expect((await index(b, { dryRun: true })).status).toBe('ok');
    }
    expect(paths(join(t.dir, 'project', 'a.db'))).toEqual(['a-round0.md', 'a-round1.md', 'a-round2.md', 'a0.md', 'a1.md', 'a2.md', 'a3.md']);
    expect(paths(join(t.dir, 'project', 'b.db'))).toEqual(['b-round0.md', 'b-round1.md', 'b-round2.md', 'b0.md', 'b1.md', 'b2.md', 'b3.md']);
    expect(readdirSync(a.checkouts).sort()).toEqual([a.sources[0]!.root, b.sources[0]!.root].map((p) => p.slice(a.checkouts.length + 1)).sort());
    expect(readFileSync(join(a.sources[0]!.root, '.git', 'ragsync-index'), 'utf8').trim()).toBe(a.db);
  });

  it('the CLI: `index --dry-run` of one config, then the other indexes, hour after hour', async () => {
    const fa = configFile('a', upA.bare);
    const fb = configFile('b', upB.bare);
    for (let hour = 0; hour < 2; hour++) {
      upA.write(`h${hour}.md`, `# hour ${hour}\n\nApples at hour ${hour}.\n`).commit(`hour ${hour}`);
      upB.write(`h${hour}.md`, `# hour ${hour}\n\nBoats at hour ${hour}.\n`).commit(`hour ${hour}`);
      const dry = await runCli(['index', '--dry-run', '-c', fb]);
      expect(dry.code, dry.stderr).toBe(0);
      const ra = await runCli(['index', '-c', fa]);
      expect(ra.code, ra.stderr).toBe(0);
      const rb = await runCli(['index', '-c', fb]);
      expect(rb.code, rb.stderr).toBe(0);
    }
    expect(paths(join(t.dir, 'project', 'a.db'))).toContain('h1.md');
    expect(snapshotDb(join(t.dir, 'project', 'a.db')).chunks.some((c) => c.path.startsWith('b'))).toBe(false);
    expect(paths(join(t.dir, 'project', 'b.db'))).toContain('h1.md');
  });

  it('a shared checkout made before checkouts were per index: moved to its index (not cloned again), the other clones its own', async () => {
    const a = load(configFile('a', upA.bare), upA.bare);
    const b = load(configFile('b', upB.bare), upB.bare);
    // What older versions left: <checkouts>/s, ragsync's checkout of a, into which b's dry run
    // fetched its own branch (HEAD still at a's commit), and a's index still empty.
    const former = join(a.checkouts, 's');
    mkdirSync(a.checkouts, { recursive: true });
    execFileSync('git', ['clone', '-q', '--branch', 'main', '--single-branch', '--no-tags', upA.bare, former]);
    writeFileSync(join(former, '.git', 'ragsync-managed'), `${upA.bare}\n`);
    writeFileSync(join(former, '.ragsync-checkout'), `${upA.bare}\n`);
    git(former, 'fetch', '-q', '--', upB.bare, '+refs/heads/main:refs/remotes/origin/main');
    const object = join(former, '.git', 'objects');
    const objectDirs = readdirSync(object).length;

    const ra = await index(a);
    expect(ra.status, ra.sources[0]!.error ?? '').toBe('ok');
    expect(existsSync(former)).toBe(false);
    expect(readdirSync(join(a.sources[0]!.root, '.git', 'objects')).length).toBe(objectDirs); // the same objects: moved, not cloned
    expect(paths(a.db)).toEqual(['a0.md', 'a1.md', 'a2.md', 'a3.md']);
    const rb = await index(b);
    expect(rb.status, rb.sources[0]!.error ?? '').toBe('ok');
    expect(paths(b.db)).toEqual(['b0.md', 'b1.md', 'b2.md', 'b3.md']);
  });

  it('a checkout of another index named by "path" is refused; a real local commit is still refused', async () => {
    const shared = join(t.dir, 'mine');
    const a = parseConfig({ db: join(t.dir, 'a.db'), embedder: { provider: 'hash', dims: 64 }, sources: [{ name: 's', url: upA.bare, path: shared }] });
    const b = parseConfig({ db: join(t.dir, 'b.db'), embedder: { provider: 'hash', dims: 64 }, sources: [{ name: 's', url: upB.bare, path: shared }] });
    expect((await index(a)).status).toBe('ok');
    const head = git(shared, 'rev-parse', 'HEAD');
    const rb = await index(b);
    expect(rb.sources[0]!.error).toMatch(/is ragsync's checkout for another index \(.*a\.db\), and two indexes never share one/);
    expect(git(shared, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(shared, 'rev-parse', 'refs/remotes/origin/main')).toBe(head);

    const own = load(configFile('a', upA.bare), upA.bare);
    expect((await index(own)).status).toBe('ok');
    const root = own.sources[0]!.root;
    git(root, '-c', 'user.name=me', '-c', 'user.email=me@example.com', 'commit', '-q', '--allow-empty', '-m', 'my local work');
    const mine = git(root, 'rev-parse', 'HEAD');
    upA.write('later.md', '# later\n').commit('later');
    const refused = await index(own);
    expect(refused.sources[0]!.error).toMatch(/1 local commit not on the upstream \([0-9a-f]+ my local work\)/);
    expect(git(root, 'rev-parse', 'HEAD')).toBe(mine);
    // Also after a dry run moved the remote-tracking branch past it.
    expect((await index(own, { dryRun: true })).status).toBe('ok');
    expect((await index(own)).sources[0]!.error).toMatch(/1 local commit not on the upstream/);
  });
});

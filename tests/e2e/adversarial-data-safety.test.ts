// What ragsync refuses to do with the user's data, one group per class of mistake it must not make.
// Real folders, real git repositories in temp dirs, real SQLite files, the CLI as a child process
// where the exit code and the message are the point, and a loopback provider for remote calls.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import type { ConfigInput } from '../../src/config/schema.ts';
import { runCli } from '../helpers/cli.ts';
import { index, snapshotDb } from '../helpers/index-fixture.ts';
import { tempDir } from '../helpers/tmp.ts';
import { Upstream } from '../helpers/upstream.ts';

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

function writeConfigFile(cfg: Record<string, unknown>): string {
  const file = join(t.dir, 'ragsync.json');
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
    expect(dry.sources[0]!.error).toMatch(/would delete 6 of 10 indexed documents \(60%\), over maxDeleteShare 50%/);

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
    expect(most.sources[0]!.error).toMatch(/would delete 4 of 6/);

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

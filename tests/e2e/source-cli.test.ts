/**
 * `ragsync source add|list|remove` as a user runs them, on a commented config file, a folder and a
 * git repository made here, and the real SQLite index: the file is edited in place (comments and
 * layout kept, byte for byte once the source is gone again), bad input leaves it untouched, and a
 * removal takes the source's documents, chunks and then-unused vectors out of the index.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinProfiles, loadConfig } from '../../src/builtin.ts';
import { addSource } from '../../src/sync/manage-sources.ts';
import { indexes } from '../../src/engine/engine.ts';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

let t: ReturnType<typeof tempDir>;
let cfg: string;
let upstream: string;
let notes: string;
let original: string;

describe('source add: the temporary file it writes the config through', () => {
  it('is created, never opened: a symlink or file already at its name is left alone, another name taken; the mode kept', async () => {
    const d = tempDir('ragsync-source-tmp-');
    try {
      const file = join(d.dir, 'ragsync.jsonc');
      writeFileSync(file, CONFIG, { mode: 0o640 });
      mkdirSync(join(d.dir, 'notes'));
      mkdirSync(join(d.dir, 'more'));
      // What another user (or an earlier crash) left at the name the first attempt uses.
      const victim = join(d.dir, 'victim.txt');
      writeFileSync(victim, 'not yours\n');
      const planted = join(d.dir, `.ragsync.jsonc.${process.pid}.tmp`);
      symlinkSync(victim, planted);
      const r = await addSource(builtinProfiles, file, { location: join(d.dir, 'more') }, { cwd: d.dir, indexes });
      expect(r.written).toBe(true);
      expect(readFileSync(victim, 'utf8')).toBe('not yours\n');
      expect(lstatSync(planted).isSymbolicLink()).toBe(true);
      expect(lstatSync(file).isFile()).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o640);
      expect(readFileSync(file, 'utf8')).toContain('"name": "more"');
      // Nothing of its own left behind: only what was there before, and the config.
      expect(readdirSync(d.dir).sort()).toEqual(['.ragsync.jsonc.' + process.pid + '.tmp', 'more', 'notes', 'ragsync.jsonc', 'victim.txt']);
    } finally {
      d.cleanup();
    }
  });
});

const SHARED = '# Shared\n\nThis paragraph about orchards and harvests appears in both sources, word for word.\n';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd, encoding: 'utf8' }).trim();
}

const CONFIG = `{
  // My knowledge base. Comments like this one must survive every edit.
  "db": ".ragsync/index.db",
  "embedder": { "provider": "hash", "dims": 256 }, /* small vectors: a test */
  "sources": [
    // the notes folder, read in place
    {
      "name": "notes",
      "kind": "dir",
      "path": "./notes" // relative to this file
    }
  ],
  // the end
  "logLevel": "warn"
}
`;

type Listing = { name: string; kind: string; inConfig: boolean; indexed: boolean; commit: string | null; documents: number; chunks: number; lastRun: { status: string } | null };

async function list(): Promise<Listing[]> {
  const r = await runCli(['source', 'list', '-c', cfg, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { sources: Listing[] }).sources;
}

/** Text hashes of a source's chunks, and every stored vector's, read with SQLite itself. */
function indexRows(source: string): { chunks: string[]; vectors: Set<string>; sourceRow: boolean } {
  const db = new Database(join(t.dir, '.ragsync', 'index.db'), { readonly: true });
  try {
    const chunks = db
      .prepare('SELECT c.text_hash FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id WHERE s.name = ?')
      .pluck()
      .all(source) as string[];
    const vectors = new Set(db.prepare('SELECT text_hash FROM vectors').pluck().all() as string[]);
    const sourceRow = db.prepare('SELECT 1 FROM sources WHERE name = ?').get(source) !== undefined;
    return { chunks, vectors, sourceRow };
  } finally {
    db.close();
  }
}

beforeAll(() => {
  t = tempDir('ragsync-source-cli-');
  notes = join(t.dir, 'notes');
  mkdirSync(notes);
  writeFileSync(join(notes, 'apples.md'), '# Apples\n\nApples are red or green fruit picked in autumn.\n');
  writeFileSync(join(notes, 'shared.md'), SHARED);
  // A repository on "trunk": `source add` writes the branch its HEAD names, not the default "main".
  upstream = join(t.dir, 'upstream');
  mkdirSync(upstream);
  git(upstream, 'init', '-q', '-b', 'trunk');
  writeFileSync(join(upstream, 'bananas.md'), '# Bananas\n\nBananas are long yellow fruit that grow in bunches.\n');
  writeFileSync(join(upstream, 'shared.md'), SHARED);
  git(upstream, 'add', '.');
  git(upstream, 'commit', '-q', '-m', 'fruit');
  cfg = join(t.dir, 'ragsync.jsonc');
  writeFileSync(cfg, CONFIG);
  original = CONFIG;
});
afterAll(() => t?.cleanup());

describe('ragsync source add, list, remove', () => {
  it('add writes a validated entry in place, comments kept; list shows it never indexed', async () => {
    const r = await runCli(['source', 'add', upstream, '--kind', 'git', '-c', cfg, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const { source } = JSON.parse(r.stdout) as { source: Record<string, unknown> };
    expect(source).toEqual({ name: 'upstream', kind: 'git', url: upstream, branch: 'trunk' });
    const text = readFileSync(cfg, 'utf8');
    // The original text, with the new element after the last one (its line gained a comma).
    expect(text).toBe(
      CONFIG.replace(
        '      "path": "./notes" // relative to this file\n    }\n',
        `      "path": "./notes" // relative to this file\n    },\n    {\n      "name": "upstream",\n      "kind": "git",\n      "url": ${JSON.stringify(upstream)},\n      "branch": "trunk"\n    }\n`,
      ),
    );
    const rows = await list();
    expect(rows.map((s) => [s.name, s.kind, s.indexed, s.documents, s.lastRun])).toEqual([
      ['notes', 'dir', false, 0, null],
      ['upstream', 'git', false, 0, null],
    ]);
    const plain = await runCli(['source', 'list', '-c', cfg]);
    expect(plain.stdout).toMatch(/^upstream +git +- +- +never indexed/m);
  });

  it('after an index, list shows the commit, documents, chunks and the last run', async () => {
    const ix = await runCli(['index', '-c', cfg, '--json']);
    expect(ix.code, ix.stderr).toBe(0);
    const head = git(upstream, 'rev-parse', 'HEAD');
    const rows = await list();
    const up = rows.find((s) => s.name === 'upstream')!;
    expect(up).toMatchObject({ indexed: true, commit: head, documents: 2, lastRun: { status: 'ok' } });
    expect(up.chunks).toBeGreaterThanOrEqual(2);
    expect(rows.find((s) => s.name === 'notes')).toMatchObject({ indexed: true, commit: null, documents: 2 });
    const plain = await runCli(['source', 'list', '-c', cfg]);
    expect(plain.stdout).toMatch(new RegExp(`^upstream +git +2 +\\d+ +@${head.slice(0, 7)} `, 'm'));
  });

  it('bad input is one line naming the field and value, exit 2, and the file byte for byte as it was', async () => {
    const before = readFileSync(cfg);
    const cases: [string[], RegExp][] = [
      [['source', 'add', notes, '--chunker', 'nope'], /sources\[2\]\.chunker: unknown chunker .*\(got "nope"\).* is unchanged/],
      [['source', 'add', notes, '--name', 'no spaces'], /sources\[2\]\.name: .*\(got "no spaces"\)/],
      [['source', 'add', notes, '--name', 'notes'], /--name: a source named "notes" is already in/],
      [['source', 'add', join(t.dir, 'missing')], /no such folder: .*missing/],
      [['source', 'add', notes, '--kind', 'web'], /--kind web: .* is not an http\(s\) URL/],
      [['source', 'add', notes, '--kind', 'git'], /--kind git: .* is not a git repository/],
      [['source', 'add', notes, '--branch', 'dev'], /--branch is only for a git source/],
      [['source', 'add', 'https://example.com/docs', '--schedule', 'every hour'], /sources\[2\]\.schedule: not a valid cron expression/],
      [['source', 'remove', 'nosuch', '--yes'], /unknown source "nosuch" \(known: notes, upstream\)/],
      [['source', 'remove', 'upstream'], /not a terminal: pass --yes/],
    ];
    for (const [args, message] of cases) {
      const r = await runCli([...args, '-c', cfg]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect(readFileSync(cfg).equals(before), args.join(' ')).toBe(true);
    }
    expect((await list()).find((s) => s.name === 'upstream')?.documents).toBe(2);
  });

  it('add --index indexes that source at once; removing a folder source leaves the folder', async () => {
    const extra = join(t.dir, 'extra');
    mkdirSync(extra);
    writeFileSync(join(extra, 'cherries.md'), '# Cherries\n\nCherries are small red stone fruit.\n');
    const r = await runCli(['source', 'add', extra, '-c', cfg, '--index', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const run = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { status: string; sources: { name: string }[] };
    expect(run.status).toBe('ok');
    expect(run.sources.map((s) => s.name)).toEqual(['extra']);
    expect((await list()).find((s) => s.name === 'extra')).toMatchObject({ indexed: true, documents: 1 });
    const rm = await runCli(['source', 'remove', 'extra', '--yes', '-c', cfg, '--json']);
    expect(rm.code, rm.stderr).toBe(0);
    expect(JSON.parse(rm.stdout)).toMatchObject({ name: 'extra', documents: 1, configEdited: true, checkout: null });
    expect(readFileSync(join(extra, 'cherries.md'), 'utf8')).toContain('Cherries');
  });

  it("remove takes the documents, chunks and unused vectors out, the entry out of the file (comments kept) and ragsync's checkout", async () => {
    const up = indexRows('upstream');
    const mine = indexRows('notes');
    const shared = up.chunks.filter((h) => mine.chunks.includes(h));
    const only = up.chunks.filter((h) => !mine.chunks.includes(h));
    expect(shared.length).toBeGreaterThan(0);
    expect(only.length).toBeGreaterThan(0);
    for (const h of up.chunks) expect(up.vectors.has(h)).toBe(true);
    const checkout = loadConfig(cfg).sources.find((s) => s.name === 'upstream')!.root;
    expect(existsSync(join(checkout, '.git'))).toBe(true);

    const r = await runCli(['source', 'remove', 'upstream', '--yes', '-c', cfg]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`removed source "upstream": 2 documents, ${up.chunks.length} chunks?, ${only.length} unused vectors? deleted`));
    const after = indexRows('upstream');
    expect(after).toMatchObject({ chunks: [], sourceRow: false });
    // Texts no other chunk uses lost their vectors; the text the notes hold too kept its vector.
    for (const h of only) expect(after.vectors.has(h)).toBe(false);
    for (const h of shared) expect(after.vectors.has(h)).toBe(true);
    // The file is what it was before `add`, byte for byte.
    expect(readFileSync(cfg, 'utf8')).toBe(original);
    // ragsync's own clone is gone; the user's repository is untouched.
    expect(existsSync(checkout)).toBe(false);
    expect(git(upstream, 'status', '--porcelain')).toBe('');
    expect(readFileSync(join(upstream, 'bananas.md'), 'utf8')).toContain('Bananas');

    const rows = await list();
    expect(rows.map((s) => s.name)).toEqual(['notes']);
    const search = await runCli(['search', 'apples autumn', '-c', cfg, '--json']);
    expect(search.code, search.stderr).toBe(0);
    expect((JSON.parse(search.stdout) as { source: string }[]).every((h) => h.source === 'notes')).toBe(true);
  });

  it('a source only in the index (taken out of the file by hand) is listed and removable; the last configured one is kept', async () => {
    // Index a second folder, then drop its entry by hand: the index still holds it.
    const side = join(t.dir, 'side');
    mkdirSync(side);
    writeFileSync(join(side, 'plums.md'), '# Plums\n\nPlums are purple.\n');
    const add = await runCli(['source', 'add', side, '-c', cfg, '--index']);
    expect(add.code, add.stderr).toBe(0);
    writeFileSync(cfg, original);
    expect((await list()).find((s) => s.name === 'side')).toMatchObject({ inConfig: false, documents: 1 });
    const rm = await runCli(['source', 'remove', 'side', '--yes', '-c', cfg, '--json']);
    expect(rm.code, rm.stderr).toBe(0);
    expect(JSON.parse(rm.stdout)).toMatchObject({ documents: 1, configEdited: false });
    expect(readFileSync(cfg, 'utf8')).toBe(original);

    const only = await runCli(['source', 'remove', 'notes', '--yes', '-c', cfg]);
    expect(only.code).toBe(2);
    expect(only.stderr).toMatch(/"notes" is the only source in .*: add another first/);
    expect(indexRows('notes').chunks.length).toBeGreaterThan(0);
    expect(readFileSync(cfg, 'utf8')).toBe(original);
  });
});

// `ragsync daemon --watch` and per-source refreshIntervalMs: a real daemon process, a real folder
// and a git upstream made here, the run log read from the database.
import BetterSqlite3 from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/builtin.ts';
import { Daemon, LOCKED_RETRY_MS } from '../../src/daemon/daemon.ts';
import { HashEmbedder } from '../../src/embedding/hash.ts';
import { openIndex } from '../../src/storage/open.ts';
import { acquireIndexLock } from '../../src/sync/lock.ts';
import { prng, spawnCli, waitFor } from './daemon-helpers.ts';

const DEBOUNCE_MS = 300;
/** What a run may take on a loaded machine on top of the debounce (the run itself takes ~50 ms). */
const MARGIN_MS = 5000;
const NEVER = '0 0 1 1 *';

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'ragsync-watch-'));
});
afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const WORDS = 'river stone lantern orchard copper meadow signal harbor violet thunder compass ember glacier willow summit prism falcon cedar'.split(' ');

/** A few paragraphs of made-up words, different for every seed. */
function prose(seed: number, paragraphs = 3): string {
  const r = prng(seed);
  return Array.from({ length: paragraphs }, () =>
    Array.from({ length: 40 }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ') + '.',
  ).join('\n\n');
}

type Log = Record<string, unknown> & { msg: string; time: number };

interface RunningDaemon {
  logs(): Log[];
  runs(): Log[];
  stop(): Promise<number | null>;
}

function startDaemon(file: string, ...args: string[]): RunningDaemon {
  const child = spawnCli(['daemon', '-c', file, ...args]);
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  const logs = () =>
    out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Log);
  return {
    logs,
    runs: () => logs().filter((l) => /^run (ok|partial|failed|aborted)$/.test(l.msg)),
    async stop() {
      child.kill('SIGTERM');
      const exit = await child.done;
      return exit.code;
    },
  };
}

function writeConfig(dir: string, sources: Record<string, unknown>[], daemon: Record<string, unknown> = {}): { file: string; db: string } {
  const db = join(dir, 'data', 'index.db');
  const file = join(dir, 'ragsync.json');
  writeFileSync(
    file,
    JSON.stringify({ db, embedder: { provider: 'hash', dims: 64, batchSize: 8 }, chunking: { targetTokens: 100 }, sources, daemon: { schedule: NEVER, ...daemon } }),
  );
  return { file, db };
}

function query<T>(db: string, sql: string): T[] {
  const c = new BetterSqlite3(db, { readonly: true, fileMustExist: true });
  try {
    return c.prepare(sql).all() as T[];
  } finally {
    c.close();
  }
}

/** path → its chunks' text hashes, in order. */
function chunksByPath(db: string): Map<string, string[]> {
  const rows = query<{ path: string; h: string }>(db, 'SELECT d.path, c.text_hash AS h FROM chunks c JOIN documents d ON d.id = c.document_id ORDER BY d.path, c.ordinal');
  const m = new Map<string, string[]>();
  for (const r of rows) m.set(r.path, [...(m.get(r.path) ?? []), r.h]);
  return m;
}

const written = (run: Log) => (run.sources as { written: Record<string, number> }[])[0]!.written;
/** The "planned" line of the run that ended with `run`: files listed and read. */
const plannedOf = (d: RunningDaemon, run: Log) => d.logs().filter((l) => l.msg === 'planned' && l.time <= run.time).at(-1)!;

describe('ragsync daemon --watch', () => {
  it('syncs a changed file within the debounce, once per burst, follows deletions; after a restart reads only what changed', async () => {
    const root = join(tmp, 'watch');
    const notes = join(root, 'notes');
    mkdirSync(join(notes, 'sub'), { recursive: true });
    const names = [...Array.from({ length: 10 }, (_, i) => `n0${i}.md`), 'sub/s0.md', 'sub/s1.md'];
    // File times in the past (files that were there before): none is "racy" (written within 2 s of
    // its listing, so read again by the next run), whatever the daemon's start-up takes.
    const past = (s: number) => (Date.now() - 3_600_000 + s * 1000) / 1000;
    names.forEach((n, i) => {
      writeFileSync(join(notes, n), `# Note ${n}\n\n${prose(i)}\n`);
      utimesSync(join(notes, n), past(i), past(i));
    });
    writeFileSync(join(notes, 'skip.txt'), 'not listed');
    const { file, db } = writeConfig(root, [{ name: 'notes', kind: 'dir', path: notes }], { watchDebounceMs: DEBOUNCE_MS });

    let d = startDaemon(file, '--watch');
    // Started watching: the folder is synced once (what changed while no daemon watched).
    await waitFor(() => d.runs().length >= 1, 'the first run');
    expect(d.runs()[0]).toMatchObject({ msg: 'run ok', trigger: 'watch' });
    expect(written(d.runs()[0]!)).toMatchObject({ added: 12 });
    expect(d.logs().find((l) => l.msg === 'watching')).toMatchObject({ source: 'notes', folders: 2, debounceMs: DEBOUNCE_MS });

    // One file edited: a run within the debounce (+ the run's own time), only that file read and embedded.
    const before = chunksByPath(db);
    const t0 = Date.now();
    appendFileSync(join(notes, 'n03.md'), `\n\n${prose(100, 1)}\n`);
    await waitFor(() => d.runs().length >= 2, 'a run after the edit');
    const edit = d.runs()[1]!;
    const latencyMs = edit.time - t0;
    expect(edit).toMatchObject({ msg: 'run ok', trigger: 'watch' });
    expect(written(edit)).toMatchObject({ added: 0, changed: 1, deleted: 0, unchanged: 11 });
    expect(plannedOf(d, edit)).toMatchObject({ listed: 12, read: 1 });
    const after = chunksByPath(db);
    for (const n of names) if (n !== 'n03.md') expect(after.get(n), n).toEqual(before.get(n));
    const known = new Set([...before.values()].flat());
    const fresh = new Set(after.get('n03.md')!.filter((h) => !known.has(h)));
    expect(fresh.size).toBeGreaterThan(0);
    expect(edit.textsEmbedded).toBe(fresh.size);
    expect(latencyMs).toBeLessThan(DEBOUNCE_MS + MARGIN_MS);
    console.log(`watch: change to indexed in ${latencyMs} ms (debounce ${DEBOUNCE_MS} ms)`);

    // A file the source does not list (include: Markdown) triggers nothing: written last, it is
    // not the change the run was started for.
    appendFileSync(join(notes, 'n05.md'), `\n\n${prose(101, 1)}\n`);
    writeFileSync(join(notes, 'skip.txt'), 'changed, still not listed');
    await waitFor(() => d.runs().length >= 3, 'a run after the second edit');
    expect(d.logs().filter((l) => l.msg === 'changes seen: syncing').at(-1)).toMatchObject({ path: 'n05.md' });
    expect(written(d.runs()[2]!)).toMatchObject({ changed: 1 });

    // A burst of 20 writes: one or two runs, not 20; the last version is what is indexed.
    const runsBeforeBurst = d.runs().length;
    for (let k = 0; k < 20; k++) writeFileSync(join(notes, 'n07.md'), `# Note n07\n\n${prose(7)}\n\nversion-${k} ${prose(200 + k, 1)}\n`);
    await waitFor(
      () => query<{ n: number }>(db, "SELECT count(*) AS n FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.path = 'n07.md' AND c.content LIKE '%version-19%'")[0]!.n > 0,
      'the last version of the burst indexed',
    );

    // A deleted file is removed (the delete guard still judges: one of twelve passes).
    rmSync(join(notes, 'n09.md'));
    await waitFor(() => d.runs().some((r) => written(r).deleted === 1), 'a run removing the deleted file');
    const runs = d.runs();
    const deleting = runs.findIndex((r) => written(r).deleted === 1);
    const burstRuns = deleting - runsBeforeBurst;
    expect(burstRuns).toBeGreaterThanOrEqual(1);
    expect(burstRuns).toBeLessThanOrEqual(2);
    console.log(`watch: a burst of 20 writes made ${burstRuns} run(s)`);
    expect(chunksByPath(db).has('n09.md')).toBe(false);
    expect(runs.every((r) => r.msg === 'run ok' && r.trigger === 'watch')).toBe(true);
    const lastWriteAt = Date.now();
    expect(await d.stop()).toBe(0);

    // While no daemon runs: one file edited, one only touched, one added (file times in the past,
    // as for files copied in), and the folder left alone long enough that nothing is "racy".
    appendFileSync(join(notes, 'n01.md'), `\n\n${prose(300, 1)}\n`);
    utimesSync(join(notes, 'n01.md'), past(101), past(101));
    utimesSync(join(notes, 'n02.md'), past(102), past(102));
    writeFileSync(join(notes, 'n10.md'), `# Note n10\n\n${prose(301)}\n`);
    utimesSync(join(notes, 'n10.md'), past(103), past(103));
    await waitFor(() => Date.now() - lastWriteAt > 2500, 'the last writes to be older than the racy window', 10_000);

    const heldBefore = chunksByPath(db);
    d = startDaemon(file, '--watch');
    await waitFor(() => d.runs().length >= 1, 'the catch-up run after a restart');
    const catchUp = d.runs()[0]!;
    expect(catchUp).toMatchObject({ msg: 'run ok', trigger: 'watch' });
    expect(written(catchUp)).toMatchObject({ added: 1, changed: 1, deleted: 0, unchanged: 10 });
    // Read: the three files above, and at most the three written just before the last run of the
    // previous daemon (their stamps were racy); never the other six.
    const readAfterRestart = plannedOf(d, catchUp).read as number;
    expect(readAfterRestart).toBeGreaterThanOrEqual(3);
    expect(readAfterRestart).toBeLessThanOrEqual(6);
    const heldAfter = chunksByPath(db);
    const knownBefore = new Set([...heldBefore.values()].flat());
    const freshTexts = new Set([...heldAfter.get('n01.md')!, ...heldAfter.get('n10.md')!].filter((h) => !knownBefore.has(h)));
    expect(catchUp.textsEmbedded).toBe(freshTexts.size);
    expect(await d.stop()).toBe(0);

    // Restarted with nothing changed: every file listed by its size and mtime, none read.
    d = startDaemon(file, '--watch');
    await waitFor(() => d.runs().length >= 1, 'the catch-up run after a second restart');
    const idle = d.runs()[0]!;
    expect(written(idle)).toMatchObject({ added: 0, changed: 0, deleted: 0, unchanged: 12, chunks: 0, texts: 0 });
    expect(plannedOf(d, idle)).toMatchObject({ listed: 12, read: 0 });

    // Most of the folder deleted: the delete guard refuses the watch-triggered run and keeps every document.
    for (let i = 0; i < 9; i++) rmSync(join(notes, `n0${i}.md`));
    await waitFor(() => d.runs().length >= 2, 'a run after the mass deletion');
    const refused = d.runs()[1]!;
    expect(refused).toMatchObject({ msg: 'run failed', trigger: 'watch' });
    expect((refused.sources as { error: string }[])[0]!.error).toMatch(/source "notes" .*would/);
    expect(chunksByPath(db).size).toBe(heldAfter.size);
    expect(await d.stop()).toBe(0);
  });
});

describe('per-source refreshIntervalMs', () => {
  it('runs each source on its own interval, counted from its last sync across restarts; others stay on the cron schedule', async () => {
    const root = join(tmp, 'intervals');
    const upstream = join(root, 'upstream');
    mkdirSync(upstream, { recursive: true });
    const git = (...a: string[]) => execFileSync('git', a, { cwd: upstream, stdio: 'ignore' });
    git('init', '-q', '-b', 'main');
    writeFileSync(join(upstream, 'readme.md'), `# Upstream\n\n${prose(400)}\n`);
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'one');
    for (const n of ['fast', 'cron']) {
      mkdirSync(join(root, n));
      writeFileSync(join(root, n, 'a.md'), `# ${n}\n\n${prose(n.length)}\n`);
    }
    const { file, db } = writeConfig(root, [
      { name: 'fast', kind: 'dir', path: join(root, 'fast'), refreshIntervalMs: 1000 },
      { name: 'repo', kind: 'git', url: upstream, branch: 'main', refreshIntervalMs: 600_000 },
      { name: 'cron', kind: 'dir', path: join(root, 'cron') },
    ]);
    const ranSources = () =>
      query<{ id: number; trigger: string; status: string; sources: string }>(
        db,
        `SELECT r.id, r.trigger, r.status, group_concat(rs.source) AS sources FROM runs r JOIN run_sources rs ON rs.run_id = r.id
         GROUP BY r.id ORDER BY r.id`,
      );
    const runsOf = (name: string) => ranSources().filter((r) => r.sources.split(',').includes(name));

    let d = startDaemon(file);
    // Never synced: both interval sources are due at once; then "fast" every second.
    await waitFor(() => d.runs().length >= 1 && runsOf('fast').length >= 3, 'three runs of "fast"');
    expect(await d.stop()).toBe(0);
    expect(runsOf('repo')).toHaveLength(1);
    expect(runsOf('cron')).toHaveLength(0);
    expect(ranSources().every((r) => r.trigger === 'interval' && r.status === 'ok')).toBe(true);
    const scheduled = d.logs().filter((l) => l.msg === 'scheduled');
    expect(scheduled.map((l) => l.source ?? l.sources)).toEqual([['cron'], 'fast', 'repo']);

    // Restarted: "repo" was synced less than its ten minutes ago, so it is not due; "fast" is.
    const runsBefore = ranSources().length;
    d = startDaemon(file);
    await waitFor(() => ranSources().length >= runsBefore + 2, 'two more runs');
    expect(await d.stop()).toBe(0);
    const repoNext = Date.parse(d.logs().find((l) => l.msg === 'scheduled' && l.source === 'repo')!.next as string);
    expect(repoNext).toBeGreaterThan(Date.now() + 500_000);
    const later = ranSources().slice(runsBefore);
    expect(later.every((r) => r.sources === 'fast' && r.trigger === 'interval')).toBe(true);
    expect(runsOf('repo')).toHaveLength(1);
  });
});

/** A folder of Markdown files (file times an hour back), its config for an in-process daemon, and a log kept in memory. */
function inProcessFolder(name: string, files: Record<string, string>) {
  const root = join(tmp, name);
  const notes = join(root, 'notes');
  mkdirSync(notes, { recursive: true });
  const hourAgo = Date.now() / 1000 - 3600;
  for (const [f, text] of Object.entries(files)) {
    writeFileSync(join(notes, f), text);
    utimesSync(join(notes, f), hourAgo, hourAgo);
  }
  const db = join(root, 'index.db');
  const config = parseConfig({ db, sources: [{ name: 'notes', kind: 'dir', path: notes }], daemon: { schedule: NEVER, watchDebounceMs: 100 } });
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) });
  return { notes, db, config, lines, log };
}

describe('changes during a run', () => {
  it('are one more run right after it, never an overlapping one', async () => {
    const { notes, db, config, lines, log } = inProcessFolder(
      'during',
      Object.fromEntries(['a.md', 'b.md', 'c.md'].map((n, i) => [n, `# ${n}\n\n${prose(500 + i)}\n`])),
    );
    // The embedder holds a run inside its first request until the test lets it go.
    const embedder = new HashEmbedder(64, 8);
    const inner = embedder.embed.bind(embedder);
    let gate: Promise<void> | null = null;
    let open = () => {};
    let entered = 0;
    embedder.embed = async (texts: string[]) => {
      entered++;
      await gate;
      return inner(texts);
    };
    const seen = () => lines.filter((l) => l.msg === 'changes seen: syncing').length;

    const d = new Daemon({ config, log, embedder, watch: true });
    await d.start();
    await d.whenIdle(); // the first sync of the folder
    gate = new Promise((resolve) => (open = resolve));
    appendFileSync(join(notes, 'a.md'), `\n\n${prose(600, 1)}\n`);
    const before = entered;
    await waitFor(() => entered > before, 'the run for a.md to reach its embedder');
    // Two more changes, each settled and asked for while that run is held.
    appendFileSync(join(notes, 'b.md'), `\n\n${prose(601, 1)}\n`);
    await waitFor(() => seen() === 2, 'the change to b.md asked for');
    appendFileSync(join(notes, 'c.md'), `\n\n${prose(602, 1)}\n`);
    await waitFor(() => seen() === 3, 'the change to c.md asked for');
    open();
    await d.whenIdle();
    expect(await d.stop()).toBe('stopped');

    const runs = query<{ id: number; trigger: string; started: string; finished: string; changed: number }>(
      db,
      'SELECT r.id, r.trigger, r.started_at AS started, r.finished_at AS finished, rs.changed FROM runs r JOIN run_sources rs ON rs.run_id = r.id ORDER BY r.id',
    );
    expect(runs.map((r) => [r.trigger, r.changed])).toEqual([
      ['watch', 0],
      ['watch', 1],
      ['watch', 2],
    ]);
    expect(runs[2]!.started >= runs[1]!.finished).toBe(true);
  });
});

describe('a watch run that finds the index locked', () => {
  it('is asked for again a few seconds later, so the change does not wait for the next one', async () => {
    const { notes, db, config, lines, log } = inProcessFolder('locked', { 'a.md': `# a\n\n${prose(700)}\n` });
    const d = new Daemon({ config, log, watch: true });
    await d.start();
    await d.whenIdle();
    // Another run (here: a lock taken in this process) holds the index while the file changes.
    const other = openIndex(config, 'sync');
    const lock = await acquireIndexLock(other, db);
    appendFileSync(join(notes, 'a.md'), `\n\n${prose(701, 1)}\n`);
    await waitFor(() => lines.some((l) => String(l.msg).startsWith('run skipped')), 'the watch run to find the index locked');
    expect(lines.find((l) => String(l.msg).startsWith('run skipped'))).toMatchObject({ trigger: 'watch', retryInMs: LOCKED_RETRY_MS });
    await lock.release();
    await other.close();
    await waitFor(() => lines.some((l) => l.msg === 'run ok' && l.trigger === 'watch' && (l.sources as { written: { changed: number } }[])[0]!.written.changed === 1), 'the retried run', LOCKED_RETRY_MS + 10_000);
    expect(await d.stop()).toBe('stopped');
  });
});

describe('folders under a watched folder', () => {
  it('are watched as they appear: files in a new, moved or removed folder are synced', async () => {
    const { notes, db, config, lines, log } = inProcessFolder(
      'folders',
      Object.fromEntries([0, 1, 2, 3].map((i) => [`t${i}.md`, `# t${i}\n\n${prose(800 + i)}\n`])),
    );
    const d = new Daemon({ config, log, watch: true });
    await d.start();
    await d.whenIdle();
    const paths = () => [...chunksByPath(db).keys()].sort();
    const syncedTo = async (want: string[], what: string) => {
      await waitFor(() => JSON.stringify(paths()) === JSON.stringify(want), what);
      await d.whenIdle();
    };
    const base = ['t0.md', 't1.md', 't2.md', 't3.md'];
    await syncedTo(base, 'the first sync');

    // A new folder, then a file in it, then one in a folder inside it (each watched once it appears).
    mkdirSync(join(notes, 'new'));
    writeFileSync(join(notes, 'new', 'a.md'), `# a\n\n${prose(810)}\n`);
    await syncedTo([...base, 'new/a.md'].sort(), 'the file in the new folder');
    mkdirSync(join(notes, 'new', 'deeper'));
    writeFileSync(join(notes, 'new', 'deeper', 'b.md'), `# b\n\n${prose(811)}\n`);
    await syncedTo([...base, 'new/a.md', 'new/deeper/b.md'].sort(), 'the file in the folder inside it');
    // A folder moved, then a file changed inside it under its new name.
    renameSync(join(notes, 'new'), join(notes, 'moved'));
    await syncedTo([...base, 'moved/a.md', 'moved/deeper/b.md'].sort(), 'the moved folder');
    writeFileSync(join(notes, 'moved', 'deeper', 'c.md'), `# c\n\n${prose(812)}\n`);
    await syncedTo([...base, 'moved/a.md', 'moved/deeper/b.md', 'moved/deeper/c.md'].sort(), 'a file added in the moved folder');
    // A folder removed: its files go (three of seven documents: under the delete guard's share).
    rmSync(join(notes, 'moved'), { recursive: true });
    await syncedTo(base, 'the removed folder');
    // A folder the listing skips starts nothing: written after t0.md, it is not the change last seen.
    const runs = () => query<{ n: number }>(db, 'SELECT count(*) AS n FROM runs')[0]!.n;
    const before = runs();
    writeFileSync(join(notes, 't0.md'), `# t0\n\n${prose(820)}\n`);
    mkdirSync(join(notes, 'node_modules'));
    writeFileSync(join(notes, 'node_modules', 'x.md'), '# x\n');
    await waitFor(() => runs() > before, 'the run for t0.md');
    await d.whenIdle();
    expect(runs()).toBe(before + 1);
    expect(lines.filter((l) => l.msg === 'changes seen: syncing').at(-1)).toMatchObject({ path: 't0.md' });
    expect(paths()).toEqual(base);
    expect(await d.stop()).toBe('stopped');
  });
});

describe('a watched folder replaced at its path', () => {
  const setup = async (name: string, files: Record<string, string>) => {
    const f = inProcessFolder(name, files);
    const d = new Daemon({ config: f.config, log: f.log, watch: true });
    await d.start();
    await d.whenIdle();
    const paths = () => [...chunksByPath(f.db).keys()].sort();
    const syncedTo = async (want: string[], what: string) => {
      await waitFor(() => JSON.stringify(paths()) === JSON.stringify(want), what);
      await d.whenIdle();
    };
    const rewatched = () => f.lines.filter((l) => /was replaced .*watching the new folder/.test(String(l.msg)));
    return { ...f, d, syncedTo, rewatched };
  };
  const doc = (n: string, seed: number) => `# ${n}\n\n${prose(seed)}\n`;

  it('by renames (old moved away, new moved in): the new folder is synced and watched, and a log line says so', async () => {
    const { notes, d, syncedTo, rewatched } = await setup('renamed-root', { 'a.md': doc('a', 900), 'b.md': doc('b', 901) });
    await syncedTo(['a.md', 'b.md'], 'the first sync');
    const fresh = `${notes}.new`;
    mkdirSync(fresh);
    for (const [n, s] of [['a.md', 900], ['b.md', 901], ['c.md', 902]] as const) writeFileSync(join(fresh, n), doc(n, s));
    renameSync(notes, `${notes}.old`);
    renameSync(fresh, notes);
    await syncedTo(['a.md', 'b.md', 'c.md'], 'the new folder');
    await waitFor(() => rewatched().length >= 1, 'the log line');
    expect(rewatched()[0]).toMatchObject({ source: 'notes', folder: notes });
    // Watched: an edit in the new folder is synced; one in the old, moved-away folder is not.
    writeFileSync(join(notes, 'd.md'), doc('d', 903));
    await syncedTo(['a.md', 'b.md', 'c.md', 'd.md'], 'a file added to the new folder');
    expect(await d.stop()).toBe('stopped');
  });

  it('by a symlink swapped atomically (a deploy\'s "current"): the release it points to now is watched', async () => {
    const root = join(tmp, 'swap');
    mkdirSync(join(root, 'r1'), { recursive: true });
    mkdirSync(join(root, 'r2'));
    writeFileSync(join(root, 'r1', 'a.md'), doc('a', 910));
    writeFileSync(join(root, 'r2', 'a.md'), doc('a', 910));
    writeFileSync(join(root, 'r2', 'b.md'), doc('b', 911));
    const current = join(root, 'current');
    symlinkSync('r1', current);
    const db = join(root, 'index.db');
    const config = parseConfig({ db, sources: [{ name: 'notes', kind: 'dir', path: current }], daemon: { schedule: NEVER, watchDebounceMs: 100 } });
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) });
    const d = new Daemon({ config, log, watch: true });
    await d.start();
    // The daemon creates the index on its first run: none yet (or no tables yet) reads as no paths.
    const paths = () => {
      try {
        return existsSync(db) ? [...chunksByPath(db).keys()].sort() : [];
      } catch {
        return [];
      }
    };
    await waitFor(() => JSON.stringify(paths()) === '["a.md"]', 'the first sync');
    await d.whenIdle();
    symlinkSync('r2', join(root, 'next'));
    renameSync(join(root, 'next'), current);
    await waitFor(() => JSON.stringify(paths()) === '["a.md","b.md"]', 'the new release');
    expect(lines.some((l) => /was replaced/.test(String(l.msg)))).toBe(true);
    await d.whenIdle();
    writeFileSync(join(root, 'r2', 'c.md'), doc('c', 912));
    await waitFor(() => JSON.stringify(paths()) === '["a.md","b.md","c.md"]', 'a file added to the new release');
    expect(await d.stop()).toBe('stopped');
  });

  it('a subfolder renamed over (an empty folder replaced by a full one) is watched again', async () => {
    const { notes, d, syncedTo } = await setup('renamed-sub', { 'a.md': doc('a', 920) });
    mkdirSync(join(notes, 'sub'));
    await syncedTo(['a.md'], 'the first sync');
    const fresh = join(tmp, 'renamed-sub', 'sub.new');
    mkdirSync(fresh);
    writeFileSync(join(fresh, 's.md'), doc('s', 921));
    renameSync(fresh, join(notes, 'sub'));
    await syncedTo(['a.md', 'sub/s.md'], 'the folder renamed in');
    writeFileSync(join(notes, 'sub', 't.md'), doc('t', 922));
    await syncedTo(['a.md', 'sub/s.md', 'sub/t.md'], 'a file added to it');
    expect(await d.stop()).toBe('stopped');
  });
});

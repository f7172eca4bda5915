// The CLI end to end on every storage backend (one body, run per backend): index and a no-op
// re-run, a dry run that writes nothing, one writer at a time across processes (exit 75), two
// serve processes on one index;
// then both backends side by side: the same searches give the same results.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/builtin.ts';
import { EXIT } from '../../src/core/errors.ts';
import { BACKENDS, snapshotIndex, type Backend } from '../helpers/backends.ts';
import { index } from '../helpers/index-fixture.ts';
import { startServe } from '../helpers/serve.ts';
import { tempDir } from '../helpers/tmp.ts';
import { cli, isStopped, spawnCli, waitFor } from './daemon-helpers.ts';

const TOPICS = [
  ['queues', 'Message queues decouple producers from consumers. A consumer acknowledges a message after processing it; unacknowledged messages are delivered again.'],
  ['retry', 'Retry failed jobs with exponential backoff and jitter, and give up after a deadline so that a poison message does not block the queue.'],
  ['caching', 'A cache keeps recent answers close to the reader; invalidation on write keeps it from serving stale entries.'],
  ['wood', '甲木参天，脱胎要火。春不容金，秋不容土。火炽乘龙，水荡骑虎。'],
  ['officer', '伤官配印，贵不可言。伤官见官，为祸百端。伤官伤尽复生财。'],
  ['water', '壬水通河，能泄金气。刚中之德，周流不滞。通根透癸，冲天奔地。'],
] as const;

/** A folder of Markdown notes: each topic in two documents (a year folder each), with sections. */
function notes(dir: string, extra = ''): void {
  for (const [year, shift] of [['2024', 0], ['2025', 3]] as const) {
    mkdirSync(join(dir, year), { recursive: true });
    TOPICS.forEach(([name, text], i) => {
      const other = TOPICS[(i + shift) % TOPICS.length]![1];
      writeFileSync(join(dir, year, `${name}.md`), `# ${name} ${year}\n\n${text}\n\n## more\n\n${other}\n${extra}`);
    });
  }
}

function setup(backend: Backend, cleanups: (() => Promise<void> | void)[]) {
  const t = tempDir('ragsync-backends-');
  const at = backend.fresh();
  cleanups.push(t.cleanup, at.cleanup);
  const folder = join(t.dir, 'notes');
  notes(folder);
  const file = join(t.dir, 'ragsync.json');
  writeFileSync(file, JSON.stringify({ db: at.db, sources: [{ name: 'notes', kind: 'dir', path: 'notes' }] }));
  return { dir: t.dir, folder, file, db: at.db };
}


describe.each(BACKENDS)('$name', (backend) => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const c of cleanups) await c();
  });

  describe.skipIf(!backend.ok)(backend.title('the CLI on one backend'), () => {
    it('indexes, re-runs embedding nothing, and a dry run of a change writes nothing', async () => {
      const s = setup(backend, cleanups);
      const first = await index(loadConfig(s.file));
      expect(first.status).toBe('ok');
      expect(first.textsEmbedded).toBe(new Set(first.sent).size);
      expect(first.textsEmbedded).toBeGreaterThan(10);
      const again = await index(loadConfig(s.file));
      expect({ status: again.status, embedded: again.textsEmbedded, sent: again.sent.length }).toEqual({ status: 'ok', embedded: 0, sent: 0 });

      const fp = first.fingerprint;
      const before = await snapshotIndex(s.db, fp);
      notes(s.folder, '\nA new closing line in every note.\n');
      const dry = await cli(['index', '-c', s.file, '--dry-run']);
      expect(dry.code, dry.stderr).toBe(0);
      expect(await snapshotIndex(s.db, fp)).toEqual(before);
      const status = await cli(['status', '-c', s.file, '--json']);
      expect(status.code, status.stderr).toBe(0);
      expect((JSON.parse(status.stdout) as { runs: unknown[] }).runs).toHaveLength(2); // the dry run left no run behind
      // A server index leaves no database file beside the config.
      if (backend.name === 'postgres') expect(readdirSync(s.dir).filter((f) => /\.db/.test(f))).toEqual([]);
    });

    it('a second `index` from another process exits 75 naming the holder (SQLite; on PostgreSQL it finds the source leased and says by whom); searches go on; the first finishes', async () => {
      const s = setup(backend, cleanups);
      // A freezes (SIGSTOP) right after its first batch of vectors commits, holding the lock.
      const a = spawnCli(['index', '-c', s.file], { RAGSYNC_FAILPOINT: 'after-vectors:1:stop' });
      try {
        await waitFor(() => isStopped(a.pid!) || a.exitCode !== null, 'the first index to reach its first batch');
        expect(a.exitCode).toBeNull();
        const b = await cli(['index', '-c', s.file]);
        if (backend.name === 'sqlite') {
          expect(b.code).toBe(EXIT.locked);
          expect(b.stderr.trim()).toMatch(new RegExp(`^ragsync: index is locked by another run \\(pid ${a.pid} on [^)]*\\)`));
        } else {
          // PostgreSQL shares sources between workers (docs/postgres.md): the one source is leased
          // to the first run, so the second has nothing to claim and indexes nothing twice.
          expect(b.code, b.stderr).toBe(0);
          expect(JSON.parse(b.stdout)).toMatchObject({ status: 'ok', embedded: 0, sources: [] });
          // It says so in one line: which source, held by whom, since when.
          expect(b.stderr).toMatch(
            new RegExp(`^ragsync: nothing to do: no source is free for this worker: \\S+ held by pid ${a.pid} on \\S+ \\(lease \\d+s old, renewed \\d+s ago\\)\n$`),
          );
        }
        // A reader sees the last committed state (vectors of the first batch, no documents yet).
        const search = await cli(['search', 'retry backoff', '-c', s.file, '--json']);
        expect(search.code, search.stderr).toBe(0);
        expect(JSON.parse(search.stdout)).toEqual([]);
      } finally {
        a.kill('SIGCONT');
      }
      const done = await a.done;
      expect(done.code, done.stderr).toBe(0);
      const after = await cli(['search', 'retry backoff', '-c', s.file, '--json']);
      expect((JSON.parse(after.stdout) as { path: string }[])[0]!.path).toMatch(/retry\.md$/);
    });

    it('two serve processes on one index answer the same, and both see a later run without a restart', async () => {
      const s = setup(backend, cleanups);
      expect((await index(loadConfig(s.file))).status).toBe('ok');
      const servers = await Promise.all([startServe(s.file), startServe(s.file)]);
      try {
        // Each server's answer, and a check that the other gives the very same (ids, order, scores).
        const ask = async (q: string) => {
          const answers = await Promise.all(
            servers.map(async (served) => {
              const r = await fetch(`${served.url}/search?q=${encodeURIComponent(q)}&k=5`);
              expect(r.status).toBe(200);
              return ((await r.json()) as { results: { id: string; path: string; content: string; score: number }[] }).results;
            }),
          );
          expect(answers[1], q).toEqual(answers[0]);
          expect(answers[0]!.length).toBeGreaterThan(0);
          return answers[0]!;
        };
        expect((await ask('伤官配印'))[0]!.content).toContain('伤官配印');
        await ask('retry backoff');
        expect((await ask('zeppelin airship')).map((h) => h.path)).not.toContain('2025/zeppelin.md');
        writeFileSync(join(s.folder, '2025', 'zeppelin.md'), '# zeppelin\n\nA zeppelin is a rigid airship.\n');
        expect((await index(loadConfig(s.file))).status).toBe('ok');
        expect((await ask('zeppelin airship'))[0]!.path).toBe('2025/zeppelin.md');
      } finally {
        await Promise.all(servers.map((served) => served.stop()));
      }
    });
  });
});

describe.skipIf(!BACKENDS.every((b) => b.ok))(BACKENDS[1]!.title('both backends side by side'), () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const c of cleanups) await c();
  });

  it('the same searches (hybrid, keyword only, vector only, with filters) and the same eval figures', async () => {
    const [a, b] = [setup(BACKENDS[0]!, cleanups), setup(BACKENDS[1]!, cleanups)];
    for (const s of [a, b]) expect((await index(loadConfig(s.file))).status).toBe('ok');
    const queries: string[][] = [
      ['retry backoff'],
      ['message consumers', '--weights', '0,1'],
      ['message consumers', '--weights', '1,0'],
      ['伤官'],
      ['甲木 火', '--path', '2025/**'],
      ['cache invalidation', '-k', '3', '--mmr', '0.5'],
    ];
    // eval over gold paths of the notes: the same figures, per kind too, and the same ranked results.
    const gold = [
      ['retry with exponential backoff', '2024/retry.md', 'question'],
      ['伤官配印', '2024/officer.md', 'term'],
      ['甲木参天', '2024/wood.md', 'term'],
      ['cache invalidation stale entries', '2024/caching.md', 'question'],
      ['acknowledges a message', '2024/queues.md', 'question'],
    ].map(([query, path, kind], i) => JSON.stringify({ id: `g${i}`, query, kind, source: 'notes', gold: [{ path, evidence: [] }] }));
    const evalFile = join(a.dir, 'gold.jsonl');
    writeFileSync(evalFile, gold.join('\n') + '\n');
    const evals = await Promise.all([a, b].map((s) => cli(['eval', evalFile, '-c', s.file, '--json', '--results', join(s.dir, 'ranked.jsonl')])));
    for (const e of evals) expect(e.code, e.stderr).toBe(0);
    const figures = evals.map((e) => JSON.parse(e.stdout) as { overall: { hit10: number } });
    expect(figures[1]).toEqual(figures[0]);
    expect(figures[0]!.overall.hit10).toBe(1);
    const ranked = (s: { dir: string }) =>
      readFileSync(join(s.dir, 'ranked.jsonl'), 'utf8').trim().split('\n').map((l) => {
        const r = JSON.parse(l) as { id: string; results: { path: string; text: string }[] };
        return [r.id, r.results.map((h) => [h.path, h.text])];
      });
    expect(ranked(b)).toEqual(ranked(a));

    for (const q of queries) {
      const [ra, rb] = await Promise.all([a, b].map((s) => cli(['search', ...q, '-c', s.file, '--json'])));
      expect(ra!.code, ra!.stderr).toBe(0);
      expect(rb!.code, rb!.stderr).toBe(0);
      const shape = (out: string) => (JSON.parse(out) as { id: string; score: number }[]).map((h) => [h.id, h.score.toFixed(4)]);
      expect(shape(rb!.stdout), q.join(' ')).toEqual(shape(ra!.stdout));
      expect(shape(ra!.stdout).length).toBeGreaterThan(0);
    }
  });
});

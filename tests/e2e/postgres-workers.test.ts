// Several daemons share the sources of one Postgres index: leases per source, once per tick,
// failover from a killed worker, and fencing of a paused one. Real child processes, a real
// cluster, real git upstreams, and a loopback TEI embedder that counts every text it is sent.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshSchema, needPostgres, pgQuery } from '../helpers/postgres.ts';
import { cli, isStopped, spawnCli, type Exit } from './daemon-helpers.ts';

const pg = needPostgres();
const SOURCES = 30;
const DIMS = 1024;

/** A TEI-shaped embedder on 127.0.0.1 counting how often each text was sent. */
async function countingEmbedder(): Promise<{ url: string; sent: Map<string, number>; server: Server }> {
  const sent = new Map<string, number>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const { inputs } = JSON.parse(body) as { inputs: string[] };
      for (const t of inputs) sent.set(t, (sent.get(t) ?? 0) + 1);
      const vectors = inputs.map((t) => {
        const v = new Array<number>(DIMS).fill(0);
        for (let i = 0; i < t.length; i++) v[(t.charCodeAt(i) * 31 + i) % DIMS]! += 1;
        return v;
      });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(vectors));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, sent, server };
}

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, { cwd, stdio: 'ignore', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
}

/** N small upstreams, each two Markdown files of texts found nowhere else. */
function makeSources(dir: string, n: number): { name: string; url: string }[] {
  const out = [];
  for (let i = 0; i < n; i++) {
    const name = `s${String(i).padStart(2, '0')}`;
    const work = join(dir, 'work', name);
    mkdirSync(work, { recursive: true });
    git(work, 'init', '-q', '-b', 'main');
    for (const f of ['a', 'b']) {
      const sections = Array.from({ length: 4 }, (_, k) => `## Part ${k} of ${f}\n\nworker-test ${name} ${f} ${k}: ${'lorem ipsum '.repeat(8)}${name}-${f}-${k}.\n`);
      writeFileSync(join(work, `${f}.md`), `# ${name} ${f}\n\n${sections.join('\n')}`);
    }
    git(work, 'add', '-A');
    git(work, 'commit', '-q', '-m', 'init');
    const url = join(dir, `${name}.git`);
    execFileSync('git', ['clone', '-q', '--bare', work, url]);
    out.push({ name, url });
  }
  return out;
}

function writeWorkerConfig(dir: string, db: string, embedUrl: string, sources: { name: string; url: string }[], daemon: Record<string, unknown>): string {
  const file = join(dir, `ragsync-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      db,
      embedder: { provider: 'tei', baseUrl: embedUrl, batchSize: 4 },
      chunking: { targetTokens: 60 },
      sources: sources.map((s) => ({ name: s.name, url: s.url, branch: 'main' })),
      daemon,
    }),
  );
  return file;
}

/** Polls `pred` (async) until it holds: a condition with a bound, never a guess at timing. */
async function until<T>(pred: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 90_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await pred();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface SourceRun {
  source: string;
  status: string;
  tick: string;
  pid: number;
  texts: number;
  run_status: string;
  error: string | null;
}

const sourceRuns = (schema: string) =>
  pgQuery<SourceRun>(
    `SELECT rs.source, rs.status, rs.error, rs.tick, r.pid, rs.texts_embedded AS texts, r.status AS run_status
     FROM "${schema}".run_sources rs JOIN "${schema}".runs r ON r.id = rs.run_id WHERE rs.tick IS NOT NULL ORDER BY rs.source`,
  );

const texts = (schema: string) => pgQuery<{ n: number }>(`SELECT count(DISTINCT text_hash)::int AS n FROM "${schema}".chunks`).then((r) => r[0]!.n);

async function stop(d: ReturnType<typeof spawnCli>): Promise<Exit> {
  if (d.exitCode === null && d.signalCode === null) d.kill('SIGTERM');
  return d.done;
}

describe.skipIf(!pg.ok)(pg.title('postgres workers: many daemons, one index'), () => {
  let dir: string;
  let embed: Awaited<ReturnType<typeof countingEmbedder>>;
  let sources: { name: string; url: string }[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ragsync-workers-'));
    embed = await countingEmbedder();
    sources = makeSources(dir, SOURCES);
  });

  afterAll(async () => {
    await new Promise((r) => embed?.server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('three daemons index each of 30 sources once per tick, the work spread, every text embedded once', async () => {
    const { url, schema, drop } = freshSchema('wk');
    // A lease long enough that a worker starved of CPU on a loaded machine keeps it (failover is the next test's).
    const file = writeWorkerConfig(dir, url, embed.url, sources, { schedule: '*/3 * * * * *', leaseSeconds: 30 });
    embed.sent.clear();
    const daemons = [0, 1, 2].map(() => spawnCli(['daemon', '-c', file]));
    try {
      // A tick all three took part in, with every source recorded ok for it.
      const tick = await until(async () => {
        const rows = await sourceRuns(schema).catch(() => []);
        const byTick = new Map<string, SourceRun[]>();
        for (const r of rows) byTick.set(r.tick, [...(byTick.get(r.tick) ?? []), r]);
        for (const [t, rs] of byTick) {
          if (rs.filter((r) => r.status === 'ok').length === SOURCES && new Set(rs.map((r) => r.pid)).size === 3) return t;
        }
        return null;
      }, 'a tick in which the three workers indexed all 30 sources');
      const rows = await sourceRuns(schema);
      // Never indexed twice in one tick, whatever the tick (a worker that lost its lease records its
      // refused attempt as failed; it wrote nothing).
      const seen = new Set<string>();
      for (const r of rows.filter((r) => r.status !== 'failed' || !/taken over by another worker/.test(r.error ?? ''))) {
        expect(seen.has(`${r.tick}|${r.source}`), `${r.source} twice in ${r.tick}`).toBe(false);
        seen.add(`${r.tick}|${r.source}`);
      }
      const inTick = rows.filter((r) => r.tick === tick);
      expect(inTick.map((r) => r.source).sort()).toEqual(sources.map((s) => s.name));
      const perWorker = [...new Set(inTick.map((r) => r.pid))].map((pid) => inTick.filter((r) => r.pid === pid).length);
      expect(perWorker.length).toBe(3);
      for (const n of perWorker) expect(n).toBeGreaterThan(0);
      // Embedded = the distinct new texts: each sent once, the run records agree.
      const distinct = await texts(schema);
      const ours = [...embed.sent].filter(([t]) => t.includes('worker-test'));
      expect(distinct).toBeGreaterThan(SOURCES * 2);
      expect(ours.length).toBe(distinct);
      expect(ours.filter(([, n]) => n > 1)).toEqual([]);
      expect(rows.reduce((n, r) => n + r.texts, 0)).toBe(distinct);
      // Status names each source's worker and lease.
      const status = await cli(['status', '-c', file, '--json']);
      const leases = (JSON.parse(status.stdout) as { leases: { source: string; pid: number }[] }).leases;
      expect(leases.map((l) => l.source).sort()).toEqual(sources.map((s) => s.name));
      expect(new Set(leases.map((l) => l.pid)).size).toBeGreaterThan(1);
      const text = (await cli(['status', '-c', file])).stdout;
      expect(text).toMatch(/^workers:$/m);
      expect(text).toMatch(/^ {2}s00 +pid \d+ on .+: (holds it, renewed \d+s ago|idle on it \(released \d+s ago\)), tick cron:.+; last run ok at /m);
    } finally {
      for (const d of daemons) await stop(d);
      await drop();
    }
  }, 180_000);

  it('kill -9 of a worker mid-source: another takes the source over at once, nothing embedded twice, status names it', async () => {
    const { url, schema, drop } = freshSchema('wk');
    const file = writeWorkerConfig(dir, url, embed.url, sources, { schedule: '*/2 * * * * *', leaseSeconds: 2 });
    embed.sent.clear();
    // The first worker freezes after its first batch of vectors committed, holding a source.
    const victim = spawnCli(['daemon', '-c', file], { RAGSYNC_FAILPOINT: 'after-vectors:1:stop' });
    const others: ReturnType<typeof spawnCli>[] = [];
    try {
      await until(async () => isStopped(victim.pid!), 'the first worker to stop mid-source');
      const [held] = await pgQuery<{ source: string; tick: string }>(
        `SELECT source, tick FROM "${schema}".source_leases WHERE pid = $1 AND released_at IS NULL`,
        [victim.pid],
      );
      expect(held).toBeDefined();
      victim.kill('SIGKILL');
      await victim.done;
      const killedAt = Date.now();
      // What the victim sent, and what of it it stored: only the rest may be sent again.
      const sentBefore = new Set([...embed.sent.keys()].filter((t) => t.includes('worker-test')));
      const [{ n: storedBefore }] = (await pgQuery<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".vectors`)) as [{ n: number }];
      expect(storedBefore).toBeGreaterThan(0);
      others.push(spawnCli(['daemon', '-c', file]), spawnCli(['daemon', '-c', file]));
      const taken = await until(async () => {
        const rows = await sourceRuns(schema);
        return rows.find((r) => r.source === held!.source && r.status === 'ok' && r.pid !== victim.pid && r.tick === held!.tick);
      }, 'another worker to finish the killed worker\'s source');
      // The lease period (2 s) plus a tick (2 s), with room for a loaded machine's start-up of the others.
      expect(Date.now() - killedAt).toBeLessThan(30_000);
      // Every source through; no stored text sent again: only what the victim had in flight and
      // never stored (its requests after the frozen batch) goes to the embedder a second time.
      await until(async () => new Set((await sourceRuns(schema)).filter((r) => r.status === 'ok').map((r) => r.source)).size === SOURCES, 'all sources');
      const distinct = await texts(schema);
      const ours = [...embed.sent].filter(([t]) => t.includes('worker-test'));
      expect(ours.length).toBe(distinct);
      expect(ours.filter(([, n]) => n > 2)).toEqual([]);
      const again = ours.filter(([t, n]) => n === 2 && sentBefore.has(t)).length;
      expect(ours.filter(([t, n]) => n === 2 && !sentBefore.has(t))).toEqual([]);
      expect(again).toBe(sentBefore.size - storedBefore);
      const status = await cli(['status', '-c', file, '--json']);
      const leases = (JSON.parse(status.stdout) as { leases: { source: string; pid: number }[] }).leases;
      expect(others.map((d) => d.pid)).toContain(leases.find((l) => l.source === held!.source)!.pid);
      expect(leases.filter((l) => l.pid === victim.pid)).toEqual([]);
    } finally {
      victim.kill('SIGKILL');
      for (const d of others) await stop(d);
      await drop();
    }
  }, 180_000);

  it('a paused worker (SIGSTOP past its lease, SIGCONT) writes nothing to the source it lost', async () => {
    const { url, schema, drop } = freshSchema('wk');
    const two = sources.slice(0, 2);
    const file = writeWorkerConfig(dir, url, embed.url, two, { leaseSeconds: 1 });
    // Paused just after claiming its first source, before any write of it.
    const paused = spawnCli(['index', '-c', file], { RAGSYNC_FAILPOINT: 'source-claimed:1:stop' });
    try {
      await until(async () => isStopped(paused.pid!), 'the worker to pause holding a source');
      const [held] = await pgQuery<{ source: string; generation: number }>(
        `SELECT source, generation FROM "${schema}".source_leases WHERE pid = $1 AND released_at IS NULL`,
        [paused.pid],
      );
      // Past its lease; its session still lives, so only the silence lets another take over.
      await until(async () => (await pgQuery(`SELECT 1 FROM "${schema}".source_leases WHERE source = $1 AND renewed_at < now() - interval '1 second'`, [held!.source])).length > 0, 'the lease to lapse');
      const other = await cli(['index', '-c', file]);
      expect(other.code).toBe(0);
      const before = await pgQuery(`SELECT d.path, d.indexed_at, d.content_hash FROM "${schema}".documents d JOIN "${schema}".sources s ON s.id = d.source_id WHERE s.name = $1 ORDER BY d.path`, [held!.source]);
      expect(before.length).toBe(2);
      paused.kill('SIGCONT');
      const done = await paused.done;
      // Its source failed with the lease named; what the other worker wrote is as it was.
      expect(done.stderr).toContain(`source \\"${held!.source}\\" was taken over by another worker`);
      const after = await pgQuery(`SELECT d.path, d.indexed_at, d.content_hash FROM "${schema}".documents d JOIN "${schema}".sources s ON s.id = d.source_id WHERE s.name = $1 ORDER BY d.path`, [held!.source]);
      expect(after).toEqual(before);
      const [mine] = await pgQuery<{ status: string }>(
        `SELECT rs.status FROM "${schema}".run_sources rs JOIN "${schema}".runs r ON r.id = rs.run_id WHERE r.pid = $1 AND rs.source = $2`,
        [paused.pid, held!.source],
      );
      expect(mine?.status).toBe('failed');
    } finally {
      paused.kill('SIGKILL');
      await paused.done;
      await drop();
    }
  }, 120_000);
});

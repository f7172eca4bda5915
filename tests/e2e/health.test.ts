// Health that means it: a loopback embeddings provider goes down, then comes back. The run that
// could not embed is `failed` (exit 1, one line naming provider, URL and cause, never the key),
// /healthz turns 503 with the reason and `status` says so on its first line; one good run later
// both are healthy again. A missing key is a configuration error (exit 2), recorded as a failed run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeProvider } from '../helpers/fake-provider.ts';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';
import { startServe, type Served } from '../helpers/serve.ts';

const KEY = 'sk-health-test-0123456789abcdef';
const KEY_ENV = 'RAGSYNC_HEALTH_TEST_KEY';

let t: ReturnType<typeof tempDir>;
let fake: FakeProvider;
let cfgFile: string;
let notes: string;
let server: Served;
let base: string;
const outputs: string[] = [];

async function index(env: Record<string, string> = { [KEY_ENV]: KEY }) {
  const r = await runCli(['index', '-c', cfgFile, '--json'], { RAGSYNC_LOG_FORMAT: 'json', ...env });
  outputs.push(r.stdout, r.stderr);
  return { ...r, json: JSON.parse(r.stdout) as { status: string; sources: { status: string; error: string | null }[] } };
}

async function healthz(): Promise<{ code: number; body: { status: string; reason: string; consecutiveFailures: number } }> {
  const res = await fetch(`${base}/healthz`);
  const text = await res.text();
  outputs.push(text);
  return { code: res.status, body: JSON.parse(text) };
}

async function statusFirstLine(): Promise<string> {
  const r = await runCli(['status', '-c', cfgFile], { [KEY_ENV]: KEY });
  outputs.push(r.stdout, r.stderr);
  expect(r.code).toBe(0);
  return r.stdout.split('\n')[0]!;
}

beforeAll(async () => {
  t = tempDir('ragsync-health-');
  fake = await FakeProvider.start({ dims: 32, apiKey: KEY });
  notes = join(t.dir, 'notes');
  mkdirSync(notes);
  writeFileSync(join(notes, 'a.md'), '# A\n\nThe first note, about retries with jitter.\n');
  writeFileSync(join(notes, 'b.md'), '# B\n\nThe second note, about circuit breakers.\n');
  cfgFile = join(t.dir, 'ragsync.json');
  writeFileSync(
    cfgFile,
    JSON.stringify({
      db: join(t.dir, 'data', 'index.db'),
      embedder: { provider: 'openai-compatible', baseUrl: fake.baseUrl, model: 'fake-model', dimensions: 32, apiKeyEnv: KEY_ENV, maxRetries: 0, concurrency: 1 },
      daemon: { schedule: '0 * * * *' },
      sources: [{ name: 'notes', kind: 'dir', path: notes }],
    }),
  );
  const first = await index();
  expect(first.code, first.stderr).toBe(0);
  server = await startServe(cfgFile, { [KEY_ENV]: KEY });
  base = server.url;
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
  t?.cleanup();
});

describe('health follows the embedder', () => {
  it('provider down: failed, exit 1, provider + URL + cause named, /healthz 503 with the reason; up again: 200 after one good run', async () => {
    expect((await healthz()).code).toBe(200);
    expect(await statusFirstLine()).toMatch(/^health: ok: last successful run #1 \d+s ago$/);

    writeFileSync(join(notes, 'c.md'), '# C\n\nA third note the embedder must embed.\n');
    fake.fallback = { kind: '503' };
    const down = await index();
    expect(down.code).toBe(1);
    expect(down.json.status).toBe('failed');
    const reason = `embedding failed (openai-compatible fake-model at ${fake.baseUrl}): HTTP 503: scripted 503 (gave up after 1 attempts)`;
    expect(down.json.sources[0]).toMatchObject({ status: 'failed', error: reason });
    // One error line naming it; the run's summary line is logged at error level too.
    const logged = down.stderr.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(logged.filter((l) => l.msg === reason)).toHaveLength(1);
    expect(logged.find((l) => l.msg === 'run failed')?.level).toBe(50);

    const sick = await healthz();
    expect(sick.code).toBe(503);
    expect(sick.body).toMatchObject({ status: 'failing', consecutiveFailures: 1 });
    expect(sick.body.reason).toBe(`the last run failed (run #2: ${reason})`);
    expect(await statusFirstLine()).toBe(`health: failing (unhealthy): the last run failed (run #2: ${reason})`);

    fake.fallback = { kind: 'ok' };
    const up = await index();
    expect(up.code).toBe(0);
    expect(up.json.status).toBe('ok');
    const well = await healthz();
    expect(well.code).toBe(200);
    expect(well.body).toMatchObject({ status: 'ok', consecutiveFailures: 0 });
  });

  it('a missing key: exit 2 naming the variable, the run recorded failed (health 503), nothing lost', async () => {
    writeFileSync(join(notes, 'd.md'), '# D\n\nA fourth note.\n');
    const r = await index({});
    expect(r.code).toBe(2);
    expect(r.json.status).toBe('failed');
    expect(r.json.sources[0]).toMatchObject({ status: 'failed', error: `not run: embedder.apiKeyEnv: environment variable ${KEY_ENV} is not set (set it, or put it in .env)` });
    expect((await healthz()).code).toBe(503);
    // Searches still answer from what was indexed.
    const s = await runCli(['search', '-c', cfgFile, 'circuit breakers', '--json', '--mode', 'keyword'], {});
    expect(s.code, s.stderr).toBe(0);
    expect((JSON.parse(s.stdout) as { path: string }[]).map((x) => x.path)).toContain('b.md');

    // The key from a file named by RAGSYNC_ENV_FILE (a missing file is a one-line usage error).
    const missing = await runCli(['index', '-c', cfgFile], { RAGSYNC_ENV_FILE: join(t.dir, 'nope.env') });
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe(`ragsync: RAGSYNC_ENV_FILE: no such file ${join(t.dir, 'nope.env')}`);
    const envFile = join(t.dir, 'keys.env');
    writeFileSync(envFile, `${KEY_ENV}=${KEY}\n`);
    const again = await index({ RAGSYNC_ENV_FILE: envFile });
    expect(again.code, again.stderr).toBe(0);
    expect((await healthz()).code).toBe(200);
  });

  it('never lets the key out: outputs, logs, health bodies and the database', () => {
    expect(outputs.join('\n')).not.toContain(KEY);
    for (const f of ['index.db', 'index.db-wal']) {
      try {
        expect(readFileSync(join(t.dir, 'data', f)).includes(Buffer.from(KEY))).toBe(false);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
  });
});

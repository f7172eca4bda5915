/**
 * The pm2 recipes under a real pm2 (from npm, a private PM2_HOME in a temp folder, killed at the
 * end): the process file with a cron schedule from RAGSYNC_SCHEDULE runs the daemon on it; a usage
 * error (a bad schedule) exits 2 and pm2 does not restart it; the README's `pm2 start` line, as
 * written, starts a daemon whose schedule is the config's.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../helpers/cli.ts';
import { REPO_ROOT, tempDir } from '../helpers/tmp.ts';
import { Upstream } from '../helpers/upstream.ts';

const PM2 = 'pm2@7.0.4';

let t: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
/** A git repository with one Markdown file: what every daemon here indexes. */
let upstream: string;

/** A shell line with `pm2` running the npm package (never a global one), in `cwd`. */
function sh(line: string, cwd: string, extra: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const prelude = `pm2() { npm exec --yes --prefer-offline "${PM2}" -- "$@"; }\n`;
    const child = spawn('bash', ['-eo', 'pipefail', '-c', prelude + line], { cwd, env: { ...env, ...extra } });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

interface Pm2Process {
  name: string;
  pid?: number;
  pm2_env: { status: string; restart_time: number; exit_code?: number; unstable_restarts?: number };
}

async function list(): Promise<Pm2Process[]> {
  const r = await sh('pm2 jlist', t.dir);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out.slice(r.out.indexOf('['))) as Pm2Process[];
}

/** Polls `check` every 500 ms until it returns a value, for at most `ms`. */
async function until<T>(what: string, ms: number, check: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** The runs recorded in an index, read with the CLI. */
async function cronRunsOk(config: string): Promise<number> {
  const r = await sh(`node "${join(REPO_ROOT, 'bin', 'ragsync.js')}" status -c "${config}" --json`, t.dir);
  if (r.code !== 0) return 0;
  const s = JSON.parse(r.out) as { runs: { trigger: string; status: string }[] };
  return s.runs.filter((x) => x.trigger === 'cron' && x.status === 'ok').length;
}

function writeConfig(dir: string, up: string, schedule?: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'ragsync.jsonc');
  writeFileSync(
    file,
    JSON.stringify({
      db: join(dir, 'index.db'),
      embedder: { provider: 'hash', dims: 64 },
      daemon: { stopTimeoutMs: 5000, ...(schedule ? { schedule } : {}) },
      sources: [{ name: 'up', url: up, branch: 'main' }],
    }),
  );
  return file;
}

beforeAll(() => {
  assertBuilt(); // pm2 runs bin/ragsync.js: the build
  t = tempDir('ragsync-pm2-');
  env = { ...process.env, PM2_HOME: join(t.dir, 'pm2-home'), RAGSYNC_LOG_DIR: join(t.dir, 'logs'), RAGSYNC_KILL_TIMEOUT_MS: '8000' };
  const up = new Upstream(join(t.dir, 'up')).write('one.md', '# One\n\nFirst file.\n');
  up.commit('init');
  upstream = up.bare;
  for (const k of ['RAGSYNC_CONFIG', 'RAGSYNC_LOG_LEVEL', 'RAGSYNC_SCHEDULE', 'RAGSYNC_DAEMON_ARGS', 'CI']) delete env[k];
});

afterAll(async () => {
  if (!t) return;
  await sh('pm2 kill', t.dir); // pm2's own daemon, in this PM2_HOME only
  t.cleanup();
});

describe('ragsync under pm2', () => {
  it('ecosystem.config.cjs: RAGSYNC_SCHEDULE keeps a cron expression whole and the daemon runs on it', { timeout: 240_000 }, async () => {
    const config = writeConfig(join(t.dir, 'eco'), upstream);
    const r = await sh(`pm2 start "${join(REPO_ROOT, 'ecosystem.config.cjs')}"`, t.dir, { RAGSYNC_CONFIG: config, RAGSYNC_SCHEDULE: '* * * * * *' });
    expect(r.code, r.err + r.out).toBe(0);
    await until('a cron run recorded', 120_000, async () => ((await cronRunsOk(config)) > 0 ? true : undefined));
    const p = (await list()).find((x) => x.name === 'ragsync')!;
    expect(p.pm2_env.status).toBe('online');
    expect(p.pm2_env.restart_time).toBe(0);
    expect((await sh('pm2 delete ragsync', t.dir)).code).toBe(0);
  });

  it('a usage error (a bad schedule) exits 2 and pm2 does not restart it', { timeout: 240_000 }, async () => {
    const config = writeConfig(join(t.dir, 'bad'), upstream);
    const r = await sh(`pm2 start "${join(REPO_ROOT, 'ecosystem.config.cjs')}"`, t.dir, { RAGSYNC_CONFIG: config, RAGSYNC_SCHEDULE: 'every hour' });
    expect(r.code, r.err + r.out).toBe(0);
    const p = await until('the daemon to exit', 120_000, async () => {
      const x = (await list()).find((y) => y.name === 'ragsync');
      return x?.pm2_env.exit_code !== undefined ? x : undefined;
    });
    expect(p.pm2_env.exit_code).toBe(2);
    // pm2 7 labels a stop-exit-code process "waiting restart" when restarts back off, but never
    // schedules the restart: after many times the first backoff delay (100 ms) it has not run again.
    expect(['stopped', 'waiting restart']).toContain(p.pm2_env.status);
    await new Promise((res) => setTimeout(res, 3000));
    const later = (await list()).find((y) => y.name === 'ragsync')!;
    expect(later.pm2_env.restart_time).toBe(0);
    expect(later.pid ?? 0).toBe(0);
    const log = readFileSync(join(t.dir, 'logs', 'ragsync.err.log'), 'utf8');
    expect(log).toContain('--schedule: not a valid cron expression');
    expect((await sh('pm2 delete ragsync', t.dir)).code).toBe(0);
  });

  it("the README's pm2 start line, as written, runs the daemon on the config's schedule", { timeout: 240_000 }, async () => {
    const line = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('pm2 start node_modules/ragsync/'));
    expect(line).toBeDefined();
    const project = join(t.dir, 'project');
    const config = writeConfig(project, upstream, '* * * * * *');
    mkdirSync(join(project, 'node_modules'));
    symlinkSync(REPO_ROOT, join(project, 'node_modules', 'ragsync')); // as installed
    const r = await sh(line!, project);
    expect(r.code, r.err + r.out).toBe(0);
    await until('a cron run recorded', 120_000, async () => ((await cronRunsOk(config)) > 0 ? true : undefined));
    expect((await list()).find((x) => x.name === 'ragsync')!.pm2_env.restart_time).toBe(0);
    expect((await sh('pm2 delete ragsync', t.dir)).code).toBe(0);
  });
});

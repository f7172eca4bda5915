import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeOwnedDir, staleOwnedDirs } from './owned-dir.ts';
import { REPO_ROOT } from './tmp.ts';

/**
 * A private PostgreSQL with pgvector for one test run: Debian's server binaries, pgvector built
 * from the vendored tarball when the server lacks it, a cluster in a temp folder on a loopback
 * port, run as the `postgres` user when we are root (initdb refuses root). Nothing is left behind
 * but the installed extension.
 */

const PGVECTOR = 'pgvector-0.8.6';

/** The vendored pgvector tarball: ../shared/vendor beside the repository, or one level further up (a worktree). */
export const PGVECTOR_TARBALL =
  [join(REPO_ROOT, '..', 'shared', 'vendor'), join(REPO_ROOT, '..', '..', 'shared', 'vendor')]
    .map((d) => join(d, `${PGVECTOR}.tar.gz`))
    .find((f) => existsSync(f)) ?? join(REPO_ROOT, '..', 'shared', 'vendor', `${PGVECTOR}.tar.gz`);

/** The newest PostgreSQL server's bin folder (Debian keeps each major version apart), or null. */
export function serverBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0]!, 'bin') : null;
}

const pgConfig = (bin: string, flag: string) => execFileSync(join(bin, 'pg_config'), [flag], { encoding: 'utf8' }).trim();

/** Builds and installs pgvector when the server has no `vector` extension; the reason it cannot, or null. */
export function ensurePgvector(bin: string): string | null {
  if (!existsSync(join(bin, 'pg_config'))) return `no pg_config in ${bin}: install postgresql-server-dev-${bin.split('/').at(-2)}`;
  if (existsSync(join(pgConfig(bin, '--sharedir'), 'extension', 'vector.control'))) return null;
  if (!existsSync(join(pgConfig(bin, '--includedir-server'), 'postgres.h'))) {
    return `pgvector is not installed and cannot be built: install postgresql-server-dev-${bin.split('/').at(-2)} (apt-get)`;
  }
  if (!existsSync(PGVECTOR_TARBALL)) return `pgvector is not installed and ${PGVECTOR_TARBALL} is missing (the shared vendor folder)`;
  if (process.getuid?.() !== 0) return 'pgvector is not installed and installing it needs root (see ../shared/vendor/README.md)';
  const work = mkdtempSync(join(tmpdir(), 'ragsync-pgvector-'));
  try {
    execFileSync('tar', ['xzf', PGVECTOR_TARBALL, '-C', work]);
    const make = ['-C', join(work, PGVECTOR), `PG_CONFIG=${join(bin, 'pg_config')}`, 'with_llvm=no', 'OPTFLAGS='];
    execFileSync('make', ['-j2', ...make], { stdio: 'ignore' });
    execFileSync('make', [...make, 'install'], { stdio: 'ignore' });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface Cluster {
  url: string;
  /** The cluster's folder (data, socket, log, owner file). */
  dir: string;
  stop(): void;
}

const PREFIX = 'ragsync-pg-';

/** Runs a server program, as `postgres` when we are root (initdb refuses root). */
function serverCommand(bin: string): (cmd: string, args: string[]) => void {
  const asRoot = process.getuid?.() === 0;
  return (cmd, args) => {
    const r = asRoot
      ? spawnSync('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args], { encoding: 'utf8' })
      : spawnSync(join(bin, cmd), args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${cmd} failed: ${(r.stderr || r.stdout || String(r.error)).trim().split('\n').at(-1)}`);
  };
}

/**
 * Stops and removes the clusters of test runs that were killed (SIGKILL, a closed terminal): those
 * whose owner process is gone. Clusters of runs still going, and folders without an owner file,
 * are left alone. The paths it removed.
 */
export function stopStaleClusters(bin: string, under = tmpdir()): string[] {
  const run = serverCommand(bin);
  const removed: string[] = [];
  for (const dir of staleOwnedDirs(under, PREFIX)) {
    try {
      if (existsSync(join(dir, 'data', 'postmaster.pid'))) run('pg_ctl', ['-D', join(dir, 'data'), '-m', 'immediate', '-w', 'stop']);
    } catch {
      // not running any more: the folder goes all the same
    }
    rmSync(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  return removed;
}

/**
 * initdb + pg_ctl start in a temp folder; the URL of its `postgres` database (trust auth on
 * loopback). The folder names its owner (this process) so that, should the run be killed before
 * it stops the cluster, the next run stops it (stopStaleClusters).
 */
export async function startCluster(bin: string): Promise<Cluster> {
  const dir = makeOwnedDir(tmpdir(), PREFIX);
  const asRoot = process.getuid?.() === 0;
  // As root, the server runs as `postgres`, which must own the folder.
  const run = serverCommand(bin);
  if (asRoot) {
    const pw = execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim();
    const gr = execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim();
    chownSync(dir, Number(pw), Number(gr));
  }
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  // fsync off: a test cluster need not survive a power cut, and commits cost far less.
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  run('pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'log'), '-w', 'start']);
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      if (existsSync(join(data, 'postmaster.pid'))) run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, dir, stop };
}

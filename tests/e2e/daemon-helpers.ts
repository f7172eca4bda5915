// Shared by the daemon, lock and kill tests: a real upstream from the classics bundle, a config,
// the CLI as a child process, and a snapshot of what the database holds.
import BetterSqlite3 from 'better-sqlite3';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORPORA, REPO_ROOT } from '../helpers/tmp.ts';
import { needCorpora } from '../helpers/corpora.ts';
import { pgQuery } from '../helpers/postgres.ts';
import { isDatabaseUrl } from '../../src/core/db-url.ts';
import { FROM_CLI } from '../helpers/cli.ts';

export const repoRoot = REPO_ROOT;
export const corpora = CORPORA;

/** The e2e tests here need the classics bundle; without it they skip saying why (and fail under CI=true). */
export const classicsCorpus = needCorpora('classics.bundle');
export const hasClassics = classicsCorpus.ok;

/** The classics history (oldest first), see corpora/README.md. */
export const CLASSICS = { initial: '2bd81f3', tip: 'acf8e42' };

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** A bare clone of the classics bundle with `main` at `at`. */
export function classicsUpstream(dir: string, at = CLASSICS.tip): string {
  const url = join(dir, 'classics.git');
  execFileSync('git', ['clone', '-q', '--bare', join(corpora, 'classics.bundle'), url]);
  setBranch(url, at);
  return url;
}

export function setBranch(url: string, at: string): void {
  git(url, 'update-ref', 'refs/heads/main', git(url, 'rev-parse', `${at}^{commit}`));
}

export interface TestConfigOptions {
  url: string;
  include?: string[];
  batchSize?: number;
  daemon?: Record<string, unknown>;
  /** The index (default: data/index.db in the folder): a Postgres URL puts it on the server. */
  db?: string;
}

/**
 * A config for one git source. Default: 千里命稿 (one file at the initial commit, 18 at the tip, ~480
 * chunk texts) with a
 * 64-dim hash embedder in batches of 8 — about 60 commits per run, cheap enough to kill often.
 */
export function writeConfig(dir: string, o: TestConfigOptions): { file: string; db: string } {
  const db = o.db ?? join(dir, 'data', 'index.db');
  const file = join(dir, 'ragsync.json');
  writeFileSync(
    file,
    JSON.stringify({
      db,
      embedder: { provider: 'hash', dims: 64, batchSize: o.batchSize ?? 8 },
      chunking: { targetTokens: 200 },
      sources: [{ name: 'classics', url: o.url, branch: 'main', include: o.include ?? ['content/命/千里命稿/**', 'content/命/千里命稿.md'] }],
      ...(o.daemon ? { daemon: o.daemon } : {}),
    }),
  );
  return { file, db };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** `ragsync <args>` as a child process (the TypeScript sources through tsx). */
export function spawnCli(args: string[], env: Record<string, string> = {}): ChildProcess & { done: Promise<Exit> } {
  const child = spawn(process.execPath, [...FROM_CLI, ...args], {
    cwd: repoRoot,
    env: { ...process.env, RAGSYNC_LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<Exit>((res) => child.on('close', (code, signal) => res({ code, signal, stdout, stderr })));
  return Object.assign(child, { done });
}

export function cli(args: string[], env: Record<string, string> = {}): Promise<Exit> {
  return spawnCli(args, env).done;
}

/** Waits until `pred` holds, checking every 20 ms (a condition, not a guess at timing). */
export async function waitFor(pred: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Whether a process is stopped (SIGSTOP), from /proc (Linux). */
export function isStopped(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('T');
  } catch {
    return false;
  }
}

export interface DbState {
  integrity: string;
  /** source, path, ordinal, text_hash of every chunk, sorted. */
  chunks: string[];
  /** text_hash + embedding (hex) of every vector a chunk references, sorted. */
  referencedVectors: string[];
  vectors: number;
  distinctTexts: number;
  lock: { pid: number; host: string } | null;
  runs: { id: number; status: string; trigger: string; embedded: number }[];
}

/** What the database holds, read through a separate read-only connection. */
export function dbState(db: string): DbState {
  if (!existsSync(db)) {
    return { integrity: 'ok', chunks: [], referencedVectors: [], vectors: 0, distinctTexts: 0, lock: null, runs: [] };
  }
  // Read-write handle (nothing is written): a reader may have to recover the WAL a killed writer left.
  const c = new BetterSqlite3(db, { fileMustExist: true });
  try {
    const tables = new Set(c.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
    const integrity = (c.prepare('PRAGMA integrity_check').pluck().all() as string[]).join('; ');
    if (!tables.has('chunks')) return { integrity, chunks: [], referencedVectors: [], vectors: 0, distinctTexts: 0, lock: null, runs: [] };
    const chunks = (
      c
        .prepare(
          `SELECT s.name || '|' || d.path || '|' || c.ordinal || '|' || c.text_hash FROM chunks c
           JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id`,
        )
        .pluck()
        .all() as string[]
    ).sort();
    const referencedVectors = (
      c
        .prepare(`SELECT v.text_hash || ':' || hex(v.embedding) FROM vectors v WHERE v.text_hash IN (SELECT text_hash FROM chunks)`)
        .pluck()
        .all() as string[]
    ).sort();
    const vectors = c.prepare('SELECT count(*) FROM vectors').pluck().get() as number;
    const distinctTexts = c.prepare('SELECT count(DISTINCT text_hash) FROM chunks').pluck().get() as number;
    const lock = tables.has('index_lock')
      ? ((c.prepare('SELECT pid, host FROM index_lock').get() as DbState['lock']) ?? null)
      : null;
    const runs = c.prepare('SELECT id, status, trigger, texts_embedded AS embedded FROM runs ORDER BY id').all() as DbState['runs'];
    return { integrity, chunks, referencedVectors, vectors, distinctTexts, lock, runs };
  } finally {
    c.close();
  }
}

/**
 * dbState of a Postgres index (a schema on the test server): the same figures, read with SQL;
 * integrity is the server's business ("ok"), and the vectors' hex is of their float32 bytes.
 */
async function pgDbState(url: string): Promise<DbState> {
  const schema = new URL(url).searchParams.get('schema') ?? 'ragsync';
  const none: DbState = { integrity: 'ok', chunks: [], referencedVectors: [], vectors: 0, distinctTexts: 0, lock: null, runs: [] };
  const [made] = await pgQuery<{ ok: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS ok`, [`"${schema}".chunks`]);
  if (!made!.ok) return none;
  const q = <R extends Record<string, unknown>>(sql: string) => pgQuery<R>(sql.replace(/\bS\./g, `"${schema}".`));
  const chunks = (
    await q<{ k: string }>(`SELECT s.name || '|' || d.path || '|' || c.ordinal || '|' || c.text_hash AS k FROM S.chunks c
      JOIN S.documents d ON d.id = c.document_id JOIN S.sources s ON s.id = d.source_id`)
  ).map((r) => r.k).sort();
  const referencedVectors = (
    await q<{ k: string }>(`SELECT v.text_hash || ':' || encode(substr(vector_send(v.embedding), 5), 'hex') AS k FROM S.vectors v
      WHERE v.text_hash IN (SELECT text_hash FROM S.chunks)`)
  ).map((r) => r.k).sort();
  const [n] = await q<{ vectors: number; texts: number }>(
    `SELECT (SELECT count(*)::int FROM S.vectors) AS vectors, (SELECT count(DISTINCT text_hash)::int FROM S.chunks) AS texts`,
  );
  const [lock] = await q<{ pid: number; host: string }>(`SELECT pid, host FROM S.index_lock`);
  const runs = await q<DbState['runs'][number]>(`SELECT id::int, status, trigger, texts_embedded AS embedded FROM S.runs ORDER BY id`);
  return { integrity: 'ok', chunks, referencedVectors, vectors: n!.vectors, distinctTexts: n!.texts, lock: lock ?? null, runs };
}

/** dbState of either backend: a SQLite file, or a Postgres URL. */
export const indexState = (db: string): Promise<DbState> => (isDatabaseUrl(db) ? pgDbState(db) : Promise.resolve(dbState(db)));

/** A small seeded PRNG (mulberry32): the same seed gives the same kill points. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

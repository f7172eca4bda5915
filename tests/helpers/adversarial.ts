// Shared by the adversarial tests: configs written to disk, what an index holds, whether a folder or
// a file was left exactly as it was, the CLI run as an unprivileged user, and scripted HTTP peers.
import BetterSqlite3 from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, lstatSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join, relative } from 'node:path';
import { FROM_CLI, type CliResult } from './cli.ts';
import { REPO_ROOT } from './tmp.ts';

/** Writes a config file (hash embedder, 64 dims: cheap) and returns its path and the db path. */
export function writeCfg(dir: string, sources: Record<string, unknown>[], top: Record<string, unknown> = {}): { file: string; db: string } {
  const db = join(dir, 'data', 'index.db');
  const file = join(dir, `ragsync-${Math.random().toString(36).slice(2, 8)}.json`);
  writeFileSync(file, JSON.stringify({ db, embedder: { provider: 'hash', dims: 64, batchSize: 4 }, sources, ...top }));
  return { file, db };
}

/** What an index holds, read with plain SQL: documents (source|path), chunk and vector counts. */
export function held(db: string): { documents: string[]; chunks: number; vectors: number } {
  const c = new BetterSqlite3(db, { readonly: true, fileMustExist: true });
  try {
    const documents = (
      c.prepare('SELECT s.name || \'|\' || d.path FROM documents d JOIN sources s ON s.id = d.source_id ORDER BY 1').pluck().all() as string[]
    );
    const chunks = c.prepare('SELECT count(*) FROM chunks').pluck().get() as number;
    const vectors = c.prepare('SELECT count(*) FROM vectors').pluck().get() as number;
    return { documents, chunks, vectors };
  } finally {
    c.close();
  }
}

export const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** Every file under `dir` (relative path → sha256 of its bytes; links by target), `.git` left out unless asked. */
export function tree(dir: string, withGit = false): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      if (name === '.git' && !withGit) continue;
      const full = join(d, name);
      const st = lstatSync(full);
      if (st.isDirectory()) walk(full);
      else out[relative(dir, full)] = st.isFile() ? sha(readFileSync(full)) : `link or special (${st.mode.toString(8)})`;
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

/**
 * The CLI as a child process; `user` runs it as that uid/gid (only possible as root): how the
 * permission tests see what a normal user sees, since root ignores file modes.
 */
export function cliAs(args: string[], opts: { user?: number; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...FROM_CLI, ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, RAGSYNC_LOG_LEVEL: 'warn', RAGSYNC_LOG_FORMAT: 'json', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(opts.user !== undefined ? { uid: opts.user, gid: opts.user } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** The one `ragsync: …` line a failing command prints (log lines, JSON, are left out). */
export function errorLine(r: CliResult): string {
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('ragsync: '));
  return lines.join('\n');
}

/** A loopback HTTP peer with a scripted handler; `close` also ends connections left open. */
export async function peer(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>): Promise<{ url: string; hits: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const state = { hits: 0 };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      state.hits++;
      void handler(req, res, body);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get hits() {
      return state.hits;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

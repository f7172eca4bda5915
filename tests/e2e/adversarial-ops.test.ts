// Adversarial operations: two daemons on one database, malformed MCP JSON-RPC lines, FTS query
// syntax in queries, a 1 MB query string and 200 concurrent connections over HTTP. Each outcome is
// asserted, and nothing indexed is lost in any of them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { writeFileSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/builtin.ts';

import { startServe, type Served } from '../helpers/serve.ts';
import { REPO_ROOT, tempDir } from '../helpers/tmp.ts';
import { dbState, isStopped, spawnCli, waitFor, type DbState } from './daemon-helpers.ts';
import { runIndex } from '../../src/engine/library.ts';
import { FROM_CLI } from '../helpers/cli.ts';

let t: ReturnType<typeof tempDir>;
let cfgFile: string;
let db: string;
let notes: string;
let before: DbState;

beforeAll(async () => {
  t = tempDir('ragsync-adv-ops-');
  notes = join(t.dir, 'notes');
  cpSync(join(REPO_ROOT, 'examples', 'classics'), notes, { recursive: true });
  db = join(t.dir, 'data', 'index.db');
  cfgFile = join(t.dir, 'ragsync.json');
  writeFileSync(
    cfgFile,
    JSON.stringify({ db, embedder: { provider: 'hash', dims: 64, batchSize: 2 }, sources: [{ name: 'notes', kind: 'dir', path: notes }] }),
  );
  expect((await runIndex(loadConfig(cfgFile))).status).toBe('ok');
  before = dbState(db);
  expect(before.chunks.length).toBeGreaterThan(5);
});
afterAll(() => t?.cleanup());

/** Nothing indexed was lost: every chunk from before is still there, the file is sound. */
function nothingLost(): void {
  const now = dbState(db);
  expect(now.integrity).toBe('ok');
  for (const c of before.chunks) expect(now.chunks).toContain(c);
}

describe('two daemons on one database', () => {
  it('one runs while the other skips its ticks naming the holder; both stop cleanly; no run overlaps, nothing is indexed twice', async () => {
    writeFileSync(join(notes, '新篇.md'), `# 新篇\n\n${Array.from({ length: 8 }, (_, i) => `第${i}段：甲木参天，脱胎要火。庚金带煞，刚健为最。`).join('\n\n')}\n`);
    const lines = (s: string) => s.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string; level: number });
    // A freezes right after its first batch of vectors commits, holding the index lock.
    const a = spawnCli(['daemon', '-c', cfgFile, '--run-on-start', '--schedule', '0 0 1 1 *'], { RAGSYNC_FAILPOINT: 'after-vectors:1:stop' });
    let aOut = '';
    a.stdout!.on('data', (b: Buffer) => (aOut += b.toString()));
    await waitFor(() => isStopped(a.pid!) || a.exitCode !== null, 'daemon A to hold the lock mid-run');
    // B fires every second: each tick is skipped with one line naming A.
    const b = spawnCli(['daemon', '-c', cfgFile, '--run-on-start', '--schedule', '* * * * * *']);
    let bOut = '';
    b.stdout!.on('data', (x: Buffer) => (bOut += x.toString()));
    await waitFor(() => lines(bOut).filter((l) => l.msg.startsWith('run skipped')).length >= 2 || b.exitCode !== null, 'daemon B to be locked out twice');
    const skipped = lines(bOut).filter((l) => l.msg.startsWith('run skipped'));
    expect(skipped[0]!.msg).toMatch(new RegExp(`^run skipped: index is locked by another run \\(pid ${a.pid} on `));
    expect(skipped[0]!.level).toBe(40);

    // A goes on and finishes; B's next tick finds nothing left to do.
    a.kill('SIGCONT');
    await waitFor(() => /"msg":"run ok"/.test(aOut) || a.exitCode !== null, 'daemon A to finish its run');
    await waitFor(() => /"msg":"run ok"/.test(bOut) || b.exitCode !== null, 'daemon B to run once the lock is free');
    a.kill('SIGTERM');
    b.kill('SIGTERM');
    expect((await a.done).code).toBe(0);
    expect((await b.done).code).toBe(0);

    const s = dbState(db);
    expect(s.runs.filter((r) => r.status === 'running')).toEqual([]);
    // One writer at a time: no two runs' [started, finished] intervals overlap.
    const c = new BetterSqlite3(db, { readonly: true });
    const spans = c.prepare('SELECT started_at AS s, finished_at AS f FROM runs ORDER BY started_at').all() as { s: string; f: string }[];
    c.close();
    for (let i = 1; i < spans.length; i++) expect(spans[i]!.s >= spans[i - 1]!.f, JSON.stringify(spans)).toBe(true);
    expect(s.lock).toBeNull();
    const ok = s.runs.filter((r) => r.status === 'ok');
    // A's run embedded the new file; B's runs embedded nothing again.
    expect(ok.filter((r) => r.embedded > 0)).toHaveLength(2); // the first index, A's run
    const added = s.chunks.filter((c) => c.includes('|新篇.md|'));
    expect(added.length).toBeGreaterThan(0);
    expect(new Set(added).size).toBe(added.length);
    nothingLost();
    before = s;
  });
});

describe('malformed MCP JSON-RPC lines', () => {
  it('are dropped with one stderr line each; the session goes on and answers the next valid request', async () => {
    const child = spawn(process.execPath, [...FROM_CLI, 'mcp', '-c', cfgFile], {
      cwd: REPO_ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const send = (line: string) => child.stdin.write(line + '\n');
    const replies = () => out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id?: number; result?: { content?: { text: string }[]; serverInfo?: unknown }; error?: unknown });
    const garbage = [
      'not json at all',
      '{"jsonrpc":"2.0","id":1,"method":"initialize"', // cut short
      '{"id":2,"method":"tools/list"}', // no jsonrpc field
      '[1,2,3]',
      '{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}', // id of the wrong type
      '\u0000\u0001\u00ff',
      '{"jsonrpc":"1.0","id":3,"method":"tools/list"}',
    ];
    for (const g of garbage) send(g);
    send(JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }));
    await waitFor(() => replies().some((r) => r.id === 10) || child.exitCode !== null, 'the initialize reply');
    send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    send('{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"search","arguments":{"query":"甲木"'); // cut short again
    send(JSON.stringify({ jsonrpc: '2.0', id: 12, method: 'tools/call', params: { name: 'search', arguments: { query: '甲木', k: 2 } } }));
    send(JSON.stringify({ jsonrpc: '2.0', id: 13, method: 'no/such/method' }));
    await waitFor(() => [12, 13].every((id) => replies().some((r) => r.id === id)) || child.exitCode !== null, 'the replies after more garbage');
    const byId = new Map(replies().map((r) => [r.id, r]));
    expect(byId.get(10)!.result!.serverInfo).toMatchObject({ name: 'ragsync' });
    expect(byId.has(11)).toBe(false);
    const found = JSON.parse(byId.get(12)!.result!.content![0]!.text) as { results: unknown[] };
    expect(found.results).toHaveLength(2);
    expect(byId.get(13)!.error).toMatchObject({ code: -32601 });
    // Only replies on stdout, never to the garbage; one stderr line per dropped line.
    expect([...byId.keys()].sort()).toEqual([10, 12, 13]);
    const notes = err.split('\n').filter((l) => l.startsWith('ragsync mcp: ignored a malformed message'));
    expect(notes).toHaveLength(garbage.length + 1);
    child.stdin.end();
    await new Promise((resolve) => child.on('close', resolve));
    nothingLost();
  });
});

describe('the HTTP API under hostile requests', () => {
  let served: Served;
  beforeAll(async () => {
    served = await startServe(cfgFile);
  });
  afterAll(async () => {
    await served?.stop();
  });

  const get = async (path: string) => {
    const res = await fetch(served.url + path);
    return { status: res.status, body: (await res.json()) as { results?: unknown[]; error?: string } };
  };

  it('listens on loopback only by default', () => {
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('FTS query syntax is searched as text, never parsed: ", NEAR(, *, ^, col:', async () => {
    const queries = ['"甲木', '甲木"', 'NEAR(甲木 庚金)', 'NEAR(', '甲*', '*', '^甲木', 'tokens:甲木', 'col: 甲木', '"" OR "', 'a AND OR NOT b', '甲木) OR (庚金', "'; DROP TABLE chunks; --"];
    for (const q of queries) {
      for (const mode of ['keyword', 'hybrid']) {
        const r = await get(`/search?q=${encodeURIComponent(q)}&mode=${mode}&k=3`);
        const hasTerms = /[\p{L}\p{N}]/u.test(q);
        expect(r.status, `${q} (${mode}): ${r.body.error}`).toBe(hasTerms ? 200 : 400);
        if (hasTerms) expect(Array.isArray(r.body.results)).toBe(true);
        else expect(r.body.error).toBe(`query ${JSON.stringify(q)} has no searchable terms (letters, digits or CJK characters)`);
      }
    }
    // Text that reads as FTS syntax still finds what it names.
    const r = await get(`/search?q=${encodeURIComponent('NEAR(甲木')}&mode=keyword&k=3`);
    expect(r.body.results!.length).toBeGreaterThan(0);
    nothingLost();
  });

  it('a 1 MB query string gets 431 and the server keeps answering; an over-long query gets 400 naming the limit', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      // Raw node:http: a client library might refuse to send it.
      const req = request(`${served.url}/search?q=${'甲'.repeat(350_000)}`, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(431);
    const long = await get(`/search?q=${encodeURIComponent('甲木'.repeat(600))}`);
    expect(long.status).toBe(400);
    expect(long.body.error).toMatch(/^q: query longer than 1000 characters \(got "(甲木)+甲?…\)$/);
    expect((await get('/healthz')).status).toBe(200);
    nothingLost();
  });

  it('200 concurrent connections are all answered, correctly, and the server stays up', async () => {
    const started = Date.now();
    // node:http without an agent: a connection of its own for every request, all open at once.
    const one = (path: string) =>
      new Promise<{ status: number; body: { results: { path: string }[] } }>((resolve, reject) => {
        const req = request(served.url + path, { agent: false }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
        });
        req.on('error', reject);
        req.end();
      });
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => one(`/search?q=${encodeURIComponent(i % 2 ? '甲木 庚金' : '伤官')}&mode=${i % 3 ? 'keyword' : 'hybrid'}&k=3`)),
    );
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(answers.every((a) => a.body.results.length > 0)).toBe(true);
    // Same question, same answer, however busy the server was.
    const first = answers[1]!.body.results.map((r) => r.path);
    for (let i = 1; i < 200; i += 6) expect(answers[i]!.body.results.map((r) => r.path)).toEqual(first);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect((await get('/healthz')).status).toBe(200);
    expect(served.child.exitCode).toBeNull();
    nothingLost();
  });
});

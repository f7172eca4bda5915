import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/builtin.ts';
import { initializeResult, PROTOCOL_VERSIONS } from '../../src/mcp/front.ts';
import { createMcpServer } from '../../src/mcp/server.ts';
import { Searcher } from '../../src/search/search.ts';
import { makeFixture, type Fixture } from '../helpers/search-fixture.ts';
import { openSearcher } from '../../src/engine/library.ts';
import { FROM_CLI } from '../helpers/cli.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));
let fx: Fixture;
let client: Client;

beforeAll(async () => {
  fx = await makeFixture();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...FROM_CLI, 'mcp', '-c', fx.configFile],
    cwd: repo,
    stderr: 'pipe',
  });
  client = new Client({ name: 'ragsync-test', version: '1.0.0' });
  await client.connect(transport);
});
afterAll(async () => {
  await client.close();
  fx.cleanup();
});

type ToolOut = { isError?: boolean; content: { type: string; text: string }[] };
const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolOut;
const results = (r: ToolOut) => JSON.parse(r.content[0]!.text).results as { path: string; book: string; source: string }[];

describe('ragsync mcp (stdio, real client)', () => {
  it('lists search and related', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['docSearch', 'related', 'search']);
    const search = tools.find((t) => t.name === 'search')!;
    expect(search.inputSchema.required).toEqual(['query']);
  });

  it('search returns ranked results from the real index', async () => {
    const r = await call('search', { query: '甲木寅月用神', book: 'qiongtong', k: 2 });
    expect(r.isError).toBeFalsy();
    expect(results(r)[0]).toMatchObject({ path: 'qiongtong/jiamu.md', book: '穷通宝鉴' });
  });

  it('search takes perDoc from the contract', async () => {
    const paths = async (perDoc: number) => results(await call('search', { query: '甲木', source: 'classics', k: 3, perDoc })).map((x) => x.path);
    expect(new Set(await paths(1)).size).toBe(3);
    expect((await call('search', { query: '甲木', perDoc: -1 })).isError).toBe(true);
  });

  it('related takes path as search prints it, line range and all', async () => {
    const r = await call('related', { path: 'bookmarks:202401/2024-01-05-sqlite.md:1-9', k: 2 });
    expect(r.isError).toBeFalsy();
    expect(results(r).map((x) => x.path)).toHaveLength(2);
  });

  it('related excludes the document itself', async () => {
    const r = await call('related', { source: 'bookmarks', path: '202401/2024-01-05-sqlite.md', k: 2 });
    const paths = results(r).map((x) => x.path);
    expect(paths).toHaveLength(2);
    expect(paths).not.toContain('202401/2024-01-05-sqlite.md');
  });

  it('bad arguments come back as tool errors with a message', async () => {
    const r = await call('search', { query: 'x', source: 'nope' });
    expect(r.isError).toBe(true);
    expect(r.content[0]!.text).toMatch(/unknown source "nope"/);
    const bad = await call('search', { query: 'x', k: 1000 });
    expect(bad.isError).toBe(true);
    const tag = await call('search', { query: 'SQLite', tag: ['nosuchtag'] });
    expect(tag.isError).toBe(true);
    expect(tag.content[0]!.text).toBe('tag "nosuchtag" is not a known value and no indexed chunk has it (known: database|distributed|search|sqlite)');
    const month = await call('search', { query: 'SQLite', month: '1999-01' });
    expect(month.isError).toBe(true);
    expect(month.content[0]!.text).toMatch(/^month "1999-01" is not a known value .*\(known: 2024-01\|2024-03\)$/);
    // Known values matching nothing together are an empty answer, not an error.
    const none = await call('search', { query: 'SQLite', tag: ['distributed'], month: '2024-03' });
    expect(none.isError).toBeFalsy();
  });
});

describe('ragsync mcp answers initialize before loading the server', () => {
  const INIT = (id: number | string, protocolVersion: string) =>
    JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 't', version: '1' } } });

  it("writes what the SDK server itself answers, for every version the SDK knows and for one it does not", async () => {
    expect(PROTOCOL_VERSIONS).toEqual(SUPPORTED_PROTOCOL_VERSIONS);
    const searcher = openSearcher(loadConfig(fx.configFile));
    try {
      for (const v of [...SUPPORTED_PROTOCOL_VERSIONS, '1999-01-01']) {
        const server = createMcpServer(searcher);
        const [a, b] = InMemoryTransport.createLinkedPair();
        const answers: unknown[] = [];
        a.onmessage = (m) => void answers.push(m);
        await server.connect(b);
        await a.start();
        await a.send(JSON.parse(INIT(7, v)));
        await vi.waitFor(() => expect(answers).toHaveLength(1));
        expect(answers[0]).toEqual({ jsonrpc: '2.0', id: 7, result: initializeResult(v) });
        await server.close();
      }
    } finally {
      await searcher.close();
    }
  });

  const run = (lines: string[]) =>
    spawnSync(process.execPath, [...FROM_CLI, 'mcp', '-c', fx.configFile], {
      cwd: repo,
      input: lines.map((l) => l + '\n').join(''),
      encoding: 'utf8',
    });

  it('answers each request once, the early initialize included, and what was piped before the input ended', () => {
    const r = run([
      INIT('a', '2025-06-18'),
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'search', arguments: { query: '甲木寅月用神', book: 'qiongtong', k: 1 } } }),
    ]);
    expect(r.status).toBe(0);
    const out = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: unknown; result: Record<string, unknown> });
    expect(out.map((m) => m.id)).toEqual(['a', 2, 3]);
    expect(out[0]!.result).toEqual(initializeResult('2025-06-18'));
    expect((out[1]!.result.tools as { name: string }[]).map((t) => t.name).sort()).toEqual(['docSearch', 'related', 'search']);
    expect(JSON.parse((out[2]!.result.content as { text: string }[])[0]!.text).results[0].path).toBe('qiongtong/jiamu.md');
  });

  it('a session of initialize alone never opens the config', () => {
    const alone = spawnSync(process.execPath, [...FROM_CLI, 'mcp', '-c', '/nonexistent/ragsync.json'], {
      cwd: repo,
      input: INIT(1, '2025-06-18') + '\n',
      encoding: 'utf8',
    });
    expect(alone.status).toBe(0);
    expect(JSON.parse(alone.stdout)).toMatchObject({ id: 1, result: { serverInfo: { name: 'ragsync' } } });
    expect(alone.stderr).toBe('');
  });

  it('a bad config: the session starts, every tool call answers with the error naming file and field, stderr says it too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ragsync-mcp-bad-'));
    const file = join(dir, 'ragsync.json');
    writeFileSync(file, JSON.stringify({ sources: [{ name: 'notes', kind: 'svn', path: dir }] }));
    const transport = new StdioClientTransport({ command: process.execPath, args: [...FROM_CLI, 'mcp', '-c', file], cwd: repo, stderr: 'pipe' });
    let stderr = '';
    transport.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const c = new Client({ name: 'ragsync-test', version: '1.0.0' });
    try {
      await c.connect(transport);
      const { tools } = await c.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['related', 'search']);
      const expected = `${file}: sources[0].kind: Invalid option: expected one of "git"|"dir"|"web" (got "svn")`;
      for (const [name, args] of [['search', { query: '伤官' }], ['related', { path: 'a.md' }]] as const) {
        const r = (await c.callTool({ name, arguments: args })) as ToolOut;
        expect(r.isError, name).toBe(true);
        expect(r.content[0]!.text, name).toBe(expected);
      }
      expect(stderr).toContain(`ragsync: ${expected}`);
    } finally {
      await c.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('no index yet: tool calls say so, and the session ends with exit 2 as any command with a bad config', () => {
    const r = spawnSync(process.execPath, [...FROM_CLI, 'mcp', '-c', '/nonexistent/ragsync.json'], {
      cwd: repo,
      input: `${INIT(1, '2025-06-18')}\n${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search', arguments: { query: 'x' } } })}\n`,
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    const answers = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: number; result: ToolOut });
    expect(answers[1]).toMatchObject({ id: 2, result: { isError: true } });
    expect(answers[1]!.result.content[0]!.text).toMatch(/config file not found: \/nonexistent\/ragsync\.json/);
    expect(r.stderr).toBe('ragsync: config file not found: /nonexistent/ragsync.json\n');
  });

  it('leaves a malformed initialize to the SDK (an error answer, no early one)', () => {
    const r = run([JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { capabilities: {} } })]);
    const out = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: unknown; error?: unknown });
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ id: 1, error: expect.anything() });
  });
});

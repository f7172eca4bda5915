import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fileURLToPath } from 'node:url';
import { makeFixture, type Fixture } from '../helpers/search-fixture.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));
let fx: Fixture;
let client: Client;

beforeAll(async () => {
  fx = await makeFixture();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'src/cli/run.ts', 'mcp', '-c', fx.configFile],
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
    expect(tools.map((t) => t.name).sort()).toEqual(['related', 'search']);
    const search = tools.find((t) => t.name === 'search')!;
    expect(search.inputSchema.required).toEqual(['query']);
  });

  it('search returns ranked results from the real index', async () => {
    const r = await call('search', { query: '甲木寅月用神', book: 'qiongtong', k: 2 });
    expect(r.isError).toBeFalsy();
    expect(results(r)[0]).toMatchObject({ path: 'qiongtong/jiamu.md', book: '穷通宝鉴' });
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
  });
});

/**
 * An agent managing its own knowledge over MCP (`ragsync mcp --manage-sources`, a real client on
 * stdio): sourceAdd with index, then search finds the new source in the same session; sourceList;
 * sourceRemove takes it out of the index and the config; bad input is a tool error and the config
 * file stays byte for byte.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeProvider } from '../helpers/fake-provider.ts';
import { REPO_ROOT, tempDir } from '../helpers/tmp.ts';
import { FROM_CLI } from '../helpers/cli.ts';

let t: ReturnType<typeof tempDir>;
let cfg: string;
let client: Client;
/** notifications/tools/list_changed the client has received. */
let listChanged = 0;

const CONFIG = `{
  // the agent's own index
  "db": "index.db",
  "embedder": { "provider": "hash", "dims": 256 },
  "sources": [
    { "name": "base", "kind": "dir", "path": "./base" } // always there
  ]
}
`;

type ToolOut = { isError?: boolean; content: { type: string; text: string }[] };
const call = async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as ToolOut;
const body = (r: ToolOut) => JSON.parse(r.content[0]!.text) as Record<string, unknown>;

beforeAll(async () => {
  t = tempDir('ragsync-mcp-sources-');
  mkdirSync(join(t.dir, 'base'));
  writeFileSync(join(t.dir, 'base', 'base.md'), '# Base\n\nThe base notes talk about compilers and parsers.\n');
  mkdirSync(join(t.dir, 'papers'));
  writeFileSync(join(t.dir, 'papers', 'raft.md'), '# Raft\n\nRaft elects a leader with randomized election timeouts.\n');
  cfg = join(t.dir, 'ragsync.jsonc');
  writeFileSync(cfg, CONFIG);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...FROM_CLI, 'mcp', '--manage-sources', '-c', cfg],
    cwd: REPO_ROOT,
    stderr: 'pipe',
  });
  client = new Client({ name: 'ragsync-test', version: '1.0.0' });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    listChanged++;
  });
  await client.connect(transport);
});
afterAll(async () => {
  await client?.close();
  t?.cleanup();
});

describe('ragsync mcp --manage-sources', () => {
  it('lists the source tools with their input schemas', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((x) => x.name);
    expect(names).toEqual(expect.arrayContaining(['search', 'related', 'sourceAdd', 'sourceList', 'sourceRemove']));
    expect(tools.find((x) => x.name === 'sourceAdd')!.inputSchema.required).toEqual(['location']);
    expect(tools.find((x) => x.name === 'sourceRemove')!.annotations?.destructiveHint).toBe(true);
  });

  it('bad input is a tool error naming the field and value; the file is untouched', async () => {
    const before = readFileSync(cfg);
    const bad = await call('sourceAdd', { location: join(t.dir, 'papers'), chunker: 'nope' });
    expect(bad.isError).toBe(true);
    expect(bad.content[0]!.text).toMatch(/sources\[1\]\.chunker: unknown chunker .*\(got "nope"\)/);
    const unknown = await call('sourceRemove', { name: 'nosuch' });
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0]!.text).toBe('unknown source "nosuch" (known: base)');
    expect(readFileSync(cfg).equals(before)).toBe(true);
  });

  it('after sourceAdd and sourceRemove the client is told the tools changed, and lists them as the new config makes them', async () => {
    mkdirSync(join(t.dir, 'lib'));
    writeFileSync(join(t.dir, 'lib', 'retry.ts'), 'export function retryWithBackoff(attempts: number): number {\n  return attempts * 2;\n}\n');
    const sourceField = async () => {
      const { tools } = await client.listTools();
      const search = tools.find((x) => x.name === 'search')!;
      const props = search.inputSchema.properties as Record<string, { description?: string }>;
      return { names: tools.map((x) => x.name), source: props.source!.description, fields: Object.keys(props) };
    };
    const before = await sourceField();
    // No index yet, so no searcher: no profile tools, no sources named.
    expect(before.names.sort()).toEqual(['related', 'search', 'sourceAdd', 'sourceList', 'sourceRemove']);
    expect(before.source).toBe('only this source');
    const seen = listChanged;
    const added = await call('sourceAdd', { location: join(t.dir, 'lib'), chunker: 'code', index: true });
    expect(added.isError, added.content[0]?.text).toBeFalsy();
    // Sent before the answer, on the same stream: here by now, once.
    expect(listChanged).toBe(seen + 1);
    const after = await sourceField();
    expect(after.names.sort()).toEqual(['codeSearch', 'docSearch', 'related', 'search', 'sourceAdd', 'sourceList', 'sourceRemove']);
    expect(after.source).toBe('only this source (base, lib)');
    // The code filters only once a code source is configured, named in camelCase like every field.
    expect(before.fields).not.toContain('symbolType');
    expect(after.fields).toEqual(expect.arrayContaining(['lang', 'symbolType']));
    expect(after.fields).not.toContain('symbol-type');
    const typed = await call('search', { query: 'retryWithBackoff', symbolType: 'function', k: 1 });
    expect(typed.isError, typed.content[0]?.text).toBeFalsy();
    expect((body(typed).results as { path: string }[])[0]).toMatchObject({ path: 'retry.ts' });
    const found = await call('codeSearch', { query: 'retryWithBackoff', k: 1 });
    expect(found.isError, found.content[0]?.text).toBeFalsy();
    expect((body(found).results as { path: string; symbol: string }[])[0]).toMatchObject({ path: 'retry.ts', symbol: 'retryWithBackoff' });

    const removed = await call('sourceRemove', { name: 'lib' });
    expect(removed.isError, removed.content[0]?.text).toBeFalsy();
    expect(listChanged).toBe(seen + 2);
    const gone = await sourceField();
    expect(gone.names.sort()).toEqual(['docSearch', 'related', 'search', 'sourceAdd', 'sourceList', 'sourceRemove']);
    expect(gone.source).toBe('only this source (base)');
    expect(gone.fields).not.toContain('symbolType');
    expect(readFileSync(cfg, 'utf8')).toBe(CONFIG);
  });

  it('sourceAdd with index, then search finds it in the same session; sourceRemove takes it out again', async () => {
    const added = await call('sourceAdd', { location: join(t.dir, 'papers'), index: true });
    expect(added.isError, added.content[0]?.text).toBeFalsy();
    const a = body(added) as { source: { name: string }; index: { status: string; sources: { name: string; written: { added: number } }[] } };
    expect(a.source).toEqual({ name: 'papers', kind: 'dir', path: './papers' });
    expect(a.index.status).toBe('ok');
    expect(a.index.sources).toMatchObject([{ name: 'papers', written: { added: 1 } }]);
    // One-line entries stay one-line; the comments stay.
    expect(readFileSync(cfg, 'utf8')).toBe(
      CONFIG.replace('// always there\n', '// always there\n    { "name": "papers", "kind": "dir", "path": "./papers" }\n').replace('./base" }', './base" },'),
    );

    const hits = await call('search', { query: 'leader election timeouts', source: 'papers', k: 3 });
    expect(hits.isError, hits.content[0]?.text).toBeFalsy();
    expect((body(hits).results as { path: string }[])[0]?.path).toBe('raft.md');

    const listed = body(await call('sourceList')) as { sources: { name: string; documents: number; indexed: boolean }[] };
    expect(listed.sources.map((s) => [s.name, s.indexed, s.documents])).toEqual([
      ['base', false, 0],
      ['papers', true, 1],
    ]);

    const removed = await call('sourceRemove', { name: 'papers' });
    expect(removed.isError, removed.content[0]?.text).toBeFalsy();
    expect(body(removed)).toMatchObject({ name: 'papers', documents: 1, configEdited: true });
    expect(readFileSync(cfg, 'utf8')).toBe(CONFIG);
    const gone = await call('search', { query: 'leader election', source: 'papers' });
    expect(gone.isError).toBe(true);
    expect(gone.content[0]!.text).toMatch(/unknown source "papers"/);
    expect(readFileSync(join(t.dir, 'papers', 'raft.md'), 'utf8')).toContain('Raft');
  });
});

describe('ragsync mcp --manage-sources with a local embedder of unknown size', () => {
  it('sourceAdd with index asks the server for the size once (the run and the new searcher share the answer)', async () => {
    const d = tempDir('ragsync-mcp-dims-');
    const fake = await FakeProvider.start({ dims: 48, wire: 'ollama' });
    let c: Client | undefined;
    try {
      mkdirSync(join(d.dir, 'base'));
      writeFileSync(join(d.dir, 'base', 'base.md'), '# Base\n\nCompilers and parsers.\n');
      mkdirSync(join(d.dir, 'papers'));
      writeFileSync(join(d.dir, 'papers', 'raft.md'), '# Raft\n\nRaft elects a leader with randomized election timeouts.\n');
      const file = join(d.dir, 'ragsync.jsonc');
      writeFileSync(
        file,
        JSON.stringify({ db: 'index.db', embedder: { provider: 'ollama', model: 'nomic-embed-text', baseUrl: fake.baseUrl }, sources: [{ name: 'base', kind: 'dir', path: './base' }] }),
      );
      c = new Client({ name: 'ragsync-test', version: '1.0.0' });
      await c.connect(new StdioClientTransport({ command: process.execPath, args: [...FROM_CLI, 'mcp', '--manage-sources', '-c', file], cwd: REPO_ROOT, stderr: 'pipe' }));
      const probes = () => fake.requests.filter((q) => q.inputs.length === 1 && q.inputs[0] === 'dimensions').length;
      await c.listTools();
      expect(probes()).toBe(1); // the session's searcher
      const added = (await c.callTool({ name: 'sourceAdd', arguments: { location: join(d.dir, 'papers'), index: true } })) as ToolOut;
      expect(added.isError, added.content[0]?.text).toBeFalsy();
      expect(body(added)).toMatchObject({ index: { status: 'ok', sources: [{ name: 'papers', written: { added: 1 } }] } });
      expect(probes()).toBe(2);
      const hits = (await c.callTool({ name: 'search', arguments: { query: 'leader election timeouts', source: 'papers', k: 1 } })) as ToolOut;
      expect(hits.isError, hits.content[0]?.text).toBeFalsy();
      expect((body(hits).results as { path: string }[])[0]?.path).toBe('raft.md');
      expect(probes()).toBe(2);
    } finally {
      await c?.close();
      await fake.close();
      d.cleanup();
    }
  }, 60_000);
});

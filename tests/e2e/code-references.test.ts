import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { parseConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import { sha256 } from '../../src/core/hash.ts';
import { createCodeSearchTool } from '../../src/ai/index.ts';
import { openSearcher } from '../../src/engine/library.ts';
import type { Searcher } from '../../src/search/search.ts';
import { createMcpServer } from '../../src/mcp/server.ts';
import { createHttpServer, listen } from '../../src/server/http.ts';
import { openIndex } from '../../src/storage/open.ts';
import { BACKENDS } from '../helpers/backends.ts';
import { index } from '../helpers/index-fixture.ts';
import { tempDir } from '../helpers/tmp.ts';
import { Upstream } from '../helpers/upstream.ts';

interface Ref { path: string; symbol: string | null; symbols?: string[]; symbolType: string | null; startLine: number; endLine: number; referenceLines: number[] }

const STORE_TS = `/** Opens a store at a path. */
export function createStore(path: string) {
  return { path, items: [] as string[] };
}
`;
const appTs = (stop: string) => `import { createStore } from './store';

export function startApp(name: string) {
  const store = createStore('/tmp/' + name);
  store.items.push(name, 'started', 'and running with every option it was given');
  return store;
}

export function stopApp(name: string) {
${stop}
}
`;
const STOP_BEFORE = `  console.log('stopping', name, 'without touching the store it opened before');
  return name.length;`;
const STOP_AFTER = `  const store = createStore('/tmp/' + name);
  console.log('stopping', name, 'and emptying the store it opened before');
  return store.items.length;`;
const cliTs = (body: string) => `${body.includes('createStore') ? "import { createStore } from './store';\n\n" : ''}export function runCli(args: string[]) {
${body}
}

// A type named like the function, in another case: not a reference.
export class CreateStore {
  open() {
    return 'a class of its own, with nothing to do with the function';
  }
}
`;
const CLI_BEFORE = `  const s = createStore(args[0] ?? '.');
  return s.items.length + args.length;`;
const CLI_AFTER = `  return args.length;`;
const REPORT_PY = `def load_rows(path):
    """Reads a report's rows."""
    return open(path).read().splitlines()


def summarize(path):
    rows = load_rows(path)
    return len(rows)
`;
const EXPORT_PY = `from report import load_rows


def export_all(path):
    return [row.upper() for row in load_rows(path)]
`;

for (const backend of BACKENDS) describe.skipIf(!backend.ok)(backend.title('codeSearch references'), () => {
  const t = tempDir('ragsync-refs-');
  const up = new Upstream(t.dir);
  let config: Config;
  let cleanup: () => Promise<void>;
  beforeAll(() => {
    const fresh = backend.fresh();
    cleanup = fresh.cleanup;
    config = parseConfig({ db: fresh.db, embedder: { provider: 'hash', dims: 64 }, chunking: { targetTokens: 80, overlap: 0 }, checkouts: join(t.dir, 'checkouts'), sources: [{ name: 'app', kind: 'git', url: up.bare, chunker: 'code' }] });
  });
  afterAll(async () => {
    await cleanup();
    t.cleanup();
  });
  const opts = { toolCallId: 'x', messages: [] };

  /** Through a one-shot searcher (as `ragsync search` opens), or the long-lived one given. */
  async function references(symbol: string, extra: Record<string, unknown> = {}, kept?: Searcher): Promise<Ref[]> {
    const searcher = kept ?? openSearcher(config, undefined, null, { oneShot: true });
    try {
      return (await createCodeSearchTool(searcher).execute!({ references: symbol, k: 50, ...extra }, opts)) as Ref[];
    } finally {
      if (!kept) await searcher.close();
    }
  }
  const where = (refs: Ref[]) => refs.map((r) => `${r.path}:${r.symbol ?? r.symbolType}`);

  /** Every stored chunk: path, key and text hash. */
  async function chunks(): Promise<{ path: string; hash: string }[]> {
    const store = openIndex({ db: config.db }, 'admin', { readOnly: true });
    try {
      const out: { path: string; hash: string }[] = [];
      for await (const r of store.exportChunks()) out.push({ path: r.path, hash: r.textHash });
      return out;
    } finally {
      await store.close();
    }
  }

  it('lists the chunks whose code names the symbol, not its definition nor a name in another case', async () => {
    up.write('src/store.ts', STORE_TS).write('src/app.ts', appTs(STOP_BEFORE)).write('src/cli.ts', cliTs(CLI_BEFORE));
    up.write('tools/report.py', REPORT_PY).write('tools/export.py', EXPORT_PY);
    // Documentation naming the function: indexed, but not a reference.
    up.write('README.md', '# App\n\nCall `createStore(path)` to open a store, then `startApp`.\n').commit('start');
    expect((await index(config)).status).toBe('ok');
    expect((await chunks()).some((c) => c.path === 'README.md')).toBe(true);

    const refs = await references('createStore');
    expect(where(refs)).toEqual(['src/app.ts:imports', 'src/app.ts:startApp', 'src/cli.ts:imports', 'src/cli.ts:runCli']);
    const start = refs.find((r) => r.symbol === 'startApp')!;
    expect(start.referenceLines).toEqual([4]);
    expect(start).toMatchObject({ startLine: 3, endLine: 7 });

    // Python, and a filter narrowing the references.
    expect(where(await references('load_rows'))).toEqual(['tools/export.py:imports', 'tools/export.py:export_all', 'tools/report.py:summarize']);
    expect(where(await references('load_rows', { symbolType: 'function', filePatterns: ['tools/export.py'] }))).toEqual(['tools/export.py:export_all']);
    expect(await references('summarize')).toEqual([]);
  }, 60_000);

  it('a commit adding a call in one file and removing one in another updates them, embedding only the changed chunks', async () => {
    const before = await chunks();
    const stored = new Set(before.map((c) => c.hash));
    // A long-lived searcher (serve, mcp) opened before the change sees it after the run.
    const kept = openSearcher(config);
    expect(where(await references('createStore', {}, kept))).toContain('src/cli.ts:runCli');
    up.write('src/app.ts', appTs(STOP_AFTER)).write('src/cli.ts', cliTs(CLI_AFTER)).commit('move the call');
    const r = await index(config);
    expect(r.status).toBe('ok');

    const now = ['src/app.ts:imports', 'src/app.ts:startApp', 'src/app.ts:stopApp'];
    expect(where(await references('createStore'))).toEqual(now);
    expect(where(await references('createStore', {}, kept))).toEqual(now);
    await kept.close();
    // Only the two changed symbols' texts were embedded: the run's count, and the texts themselves.
    const after = await chunks();
    const fresh = [...new Set(after.map((c) => c.hash))].filter((h) => !stored.has(h));
    expect(r.textsEmbedded).toBe(2);
    expect([...new Set(r.sent.map(sha256))].sort()).toEqual(fresh.sort());
    // The definition's file and every unchanged chunk kept their texts.
    const unchanged = after.filter((c) => stored.has(c.hash));
    expect(unchanged.length).toBe(after.length - 2);
    expect(after.filter((c) => c.path === 'src/store.ts')).toEqual(before.filter((c) => c.path === 'src/store.ts'));
  }, 60_000);

  it('HTTP: GET /references answers as codeSearch does; a bad request is a 400 naming it', async () => {
    const searcher = openSearcher(config);
    const server = createHttpServer(searcher);
    const base = await listen(server, 0);
    try {
      const get = async (q: string) => {
        const r = await fetch(`${base}/references?${q}`);
        return { status: r.status, body: (await r.json()) as { results?: Ref[]; error?: string } };
      };
      const ok = await get('symbol=createStore&lang=typescript&path=src/app.ts&symbol-type=function');
      expect(ok.status).toBe(200);
      expect(where(ok.body.results!)).toEqual(['src/app.ts:startApp', 'src/app.ts:stopApp']);
      expect(ok.body.results![1]!.referenceLines).toEqual([10]);
      expect(await get('lang=typescript')).toEqual({ status: 400, body: { error: 'symbol is required' } });
      expect(await get('symbol=a%20b')).toEqual({ status: 400, body: { error: 'references: "a b" is not a symbol name (an identifier, or Parent.name)' } });
      expect(await get('symbol=x&q=y')).toEqual({ status: 400, body: { error: 'unknown parameter "q"' } });
    } finally {
      await new Promise((r) => server.close(r));
      await searcher.close();
    }
  }, 60_000);

  it('MCP: codeSearch takes references; a bad name or no query is a one-line error', async () => {
    const searcher = openSearcher(config);
    const server = createMcpServer(searcher, '0.0.0');
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 't', version: '1' });
    await Promise.all([server.connect(a), client.connect(b)]);
    try {
      const r = (await client.callTool({ name: 'codeSearch', arguments: { references: 'createStore', languages: ['typescript'], k: 2 } })) as { content: { text: string }[] };
      const results = JSON.parse(r.content[0]!.text).results as Ref[];
      expect(where(results)).toEqual(['src/app.ts:imports', 'src/app.ts:startApp']);
      const bad = (await client.callTool({ name: 'codeSearch', arguments: { references: 'create store' } })) as { isError?: boolean; content: { text: string }[] };
      expect(bad.isError).toBe(true);
      expect(bad.content[0]!.text).toBe('references: "create store" is not a symbol name (an identifier, or Parent.name)');
      const none = (await client.callTool({ name: 'codeSearch', arguments: {} })) as { isError?: boolean; content: { text: string }[] };
      expect(none.isError).toBe(true);
      expect(none.content[0]!.text).toMatch(/codeSearch needs a query, or references/);
    } finally {
      await client.close();
      await searcher.close();
    }
  }, 60_000);
});

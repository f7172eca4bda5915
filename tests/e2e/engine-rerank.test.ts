import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { loadConfig } from '../../src/builtin.ts';
import { createSearchTool } from '../../src/ai/index.ts';
import { runIndex } from '../../src/engine/library.ts';
import { FROM_CLI, runCli } from '../helpers/cli.ts';
import { ModelServer } from '../helpers/model-server.ts';
import { startServe } from '../helpers/serve.ts';
import { REPO_ROOT, tempDir } from '../helpers/tmp.ts';

/**
 * Every surface that advertises `rerank` (default true) applies the configured reranker: each takes
 * its searcher from the engine. The loopback reranker puts the one passage holding "zebra" first,
 * which fused ranking puts last.
 */
let t: ReturnType<typeof tempDir>;
let m: ModelServer;
let cfgFile: string;
const reranks = () => m.calls.filter((c) => c.path === '/rerank').length;

beforeAll(async () => {
  t = tempDir('ragsync-engine-rerank-');
  m = await ModelServer.start();
  m.behave = (c, res) => {
    const texts: string[] = c.body.texts;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(texts.map((x, index) => ({ index, score: x.includes('zebra') ? 0.99 : 0.01 }))));
  };
  const docs = join(t.dir, 'docs');
  mkdirSync(docs);
  writeFileSync(join(docs, 'a.md'), '# Alpha one\n\nalpha alpha alpha alpha beta, the alpha of alphas.\n');
  writeFileSync(join(docs, 'b.md'), '# Alpha two\n\nalpha alpha alpha gamma: more alpha here.\n');
  writeFileSync(join(docs, 'c.md'), '# Stripes\n\nA zebra grazes; alpha is mentioned once.\n');
  cfgFile = join(t.dir, 'ragsync.json');
  writeFileSync(
    cfgFile,
    JSON.stringify({
      db: join(t.dir, 'index.db'),
      embedder: { provider: 'hash' },
      rerank: { provider: 'tei', baseUrl: m.url, topN: 10 },
      sources: [{ name: 'docs', kind: 'dir', path: docs }],
    }),
  );
  const r = await runIndex(loadConfig(cfgFile));
  expect(r.status).toBe('ok');
  // Without the reranker the zebra passage is not first: the tests below would prove nothing otherwise.
  const plain = await runCli(['search', 'alpha', '-c', cfgFile, '--json', '--no-rerank']);
  expect((JSON.parse(plain.stdout) as { path: string }[])[0]!.path).not.toBe('c.md');
  expect(reranks()).toBe(0);
}, 60_000);

afterAll(async () => {
  await m.close();
  t.cleanup();
});

describe('the configured reranker on every surface', () => {
  it('CLI search', async () => {
    const before = reranks();
    const r = await runCli(['search', 'alpha', '-c', cfgFile, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { path: string }[])[0]!.path).toBe('c.md');
    expect(reranks()).toBe(before + 1);
  });

  it('CLI eval', async () => {
    const evalFile = join(t.dir, 'cases.jsonl');
    writeFileSync(evalFile, JSON.stringify({ id: 'z', query: 'alpha', source: 'docs', gold: [{ path: 'c.md', evidence: [] }] }) + '\n');
    const before = reranks();
    const r = await runCli(['eval', evalFile, '-c', cfgFile, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { overall: { hit1: number } }).overall.hit1).toBe(1);
    expect(reranks()).toBe(before + 1);
  });

  it('HTTP /search (serve)', async () => {
    const served = await startServe(cfgFile);
    try {
      const before = reranks();
      const res = await fetch(`${served.url}/search?q=alpha`);
      const body = (await res.json()) as { results: { path: string }[]; reranked?: boolean };
      expect(body.results[0]!.path).toBe('c.md');
      expect(body.reranked).toBe(true);
      expect(reranks()).toBe(before + 1);
    } finally {
      await served.stop();
    }
  });

  it('MCP search tool', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [...FROM_CLI, 'mcp', '-c', cfgFile], cwd: REPO_ROOT, stderr: 'pipe' });
    const client = new Client({ name: 'test', version: '0' });
    await client.connect(transport);
    try {
      const before = reranks();
      const r = (await client.callTool({ name: 'search', arguments: { query: 'alpha' } })) as { content: { text: string }[] };
      const out = JSON.parse(r.content[0]!.text) as { results: { path: string }[] } | { path: string }[];
      const results = Array.isArray(out) ? out : out.results;
      expect(results[0]!.path).toBe('c.md');
      expect(reranks()).toBe(before + 1);
    } finally {
      await client.close();
    }
  }, 30_000);

  it('AI SDK search tool over a Config', async () => {
    const before = reranks();
    const tool = createSearchTool(loadConfig(cfgFile));
    const out = (await tool.execute!({ query: 'alpha', k: 3 } as never, { toolCallId: 'x', messages: [] })) as { path: string }[];
    expect(out[0]!.path).toBe('c.md');
    expect(reranks()).toBe(before + 1);
  });
});

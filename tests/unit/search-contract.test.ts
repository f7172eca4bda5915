import { describe, expect, it } from 'vitest';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { searchRequestSchema } from '../../src/search/request.ts';
import { SEARCH_FIELDS } from '../../src/search/contract.ts';
import { createSearchTool } from '../../src/ai/search-tool.ts';
import { createMcpServer } from '../../src/mcp/server.ts';
import { loadConfig } from '../../src/builtin.ts';
import { Searcher } from '../../src/search/search.ts';
import { makeFixture } from '../helpers/search-fixture.ts';
import { openSearcher } from '../../src/engine/library.ts';

const contractKeys = Object.keys(searchRequestSchema.shape).filter((k) => k !== 'filters').sort();

describe('the search contract is written once', () => {
  it('the field list holds every field of the request schema', () => {
    expect(SEARCH_FIELDS.map((f) => f.name).sort()).toEqual(contractKeys);
  });

  it('the MCP tool and the AI SDK tool take every field, filters beside them', async () => {
    const fx = await makeFixture();
    const searcher = openSearcher(loadConfig(fx.configFile));
    try {
      const server = createMcpServer(searcher);
      const [a, b] = InMemoryTransport.createLinkedPair();
      await server.connect(b);
      const client = new Client({ name: 't', version: '1' });
      await client.connect(a);
      const search = (await client.listTools()).tools.find((t) => t.name === 'search')!;
      expect(Object.keys(search.inputSchema.properties!)).toEqual(expect.arrayContaining([...contractKeys, 'book', 'tag']));
      expect(search.inputSchema.required).toEqual(['query']);
      // weights and rerank, once missing from MCP, now reach the search.
      const call = async (weights: object) =>
        JSON.parse(((await client.callTool({ name: 'search', arguments: { query: '伤官配印', weights, rerank: false, k: 2, expand: false } })) as { content: { text: string }[] }).content[0]!.text).results;
      const even = await call({ vector: 1, keyword: 1 });
      const keywordOnly = await call({ vector: 0, keyword: 1 });
      expect(keywordOnly).toHaveLength(2);
      expect(keywordOnly[0].score).toBeCloseTo(1 / 61, 6);
      expect(even[0].score).toBeGreaterThan(keywordOnly[0].score);
      await client.close();
      const tool = createSearchTool(searcher, { sources: ['classics'] });
      const shape = (tool.inputSchema as unknown as { shape: Record<string, unknown> }).shape;
      expect(Object.keys(shape)).toEqual(expect.arrayContaining([...contractKeys, 'source', 'book']));
      const out = await tool.execute!({ query: 'SQLite', sources: ['bookmarks'], halfLifeDays: 30 } as never, { toolCallId: 't', messages: [] });
      expect((out as { source: string }[]).every((x) => x.source === 'classics')).toBe(true);
    } finally {
      await searcher.close();
      fx.cleanup();
    }
  });

  it('Searcher.run goes through named stages, and explain says how long each took', async () => {
    const fx = await makeFixture();
    const searcher = openSearcher(loadConfig(fx.configFile));
    try {
      const r = await searcher.searchDetailed('伤官配印', { explain: true });
      expect(r.stages!.map((x) => x.stage)).toEqual(['analyse', 'retrieve', 'weigh', 'fuse', 'collapse', 'rerank', 'present']);
      expect(r.stages!.every((x) => x.ms >= 0)).toBe(true);
      expect((await searcher.searchDetailed('伤官配印')).stages).toBeUndefined();
    } finally {
      await searcher.close();
      fx.cleanup();
    }
  });
});

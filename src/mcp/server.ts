import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { Searcher, MAX_K, MODES, type SearchResult } from '../search/search.ts';
import { KNOWN_BOOK_KEYS } from '../search/filters.ts';
import { resultJson } from '../search/present.ts';
import { errorMessage } from '../core/errors.ts';

const text = (results: SearchResult[]) => ({
  content: [{ type: 'text' as const, text: JSON.stringify({ results: results.map(resultJson) }) }],
});

/** An error the client sees as a tool error (isError), not a protocol failure. */
const toolError = (err: unknown) => ({ isError: true, content: [{ type: 'text' as const, text: errorMessage(err) }] });

/** An MCP server exposing `search` and `related` over one Searcher. */
export function createMcpServer(searcher: Searcher, version = '0.1.0'): McpServer {
  const server = new McpServer({ name: 'ragsync', version });
  server.registerTool(
    'search',
    {
      description:
        'Search the ragsync index (hybrid keyword + vector). Returns JSON {results:[{source,path,title,heading,content,score,book,chapter,url,tags,date}]}.',
      inputSchema: {
        query: z.string().min(1).describe('what to look for'),
        source: z.string().optional().describe('only this source'),
        k: z.number().int().min(1).max(MAX_K).optional().describe('number of results (default 10)'),
        mode: z.enum(MODES).optional().describe('vector | keyword | hybrid (default)'),
        book: z.string().optional().describe(`classics book key: ${KNOWN_BOOK_KEYS.join('|')}|all`),
        tags: z.array(z.string()).optional().describe('bookmark tags (all must match)'),
      },
    },
    async ({ query, source, k, mode, book, tags }) => {
      try {
        return text(await searcher.search(query, { sources: source ? [source] : undefined, k, mode, book, tags }));
      } catch (err) {
        return toolError(err);
      }
    },
  );
  server.registerTool(
    'related',
    {
      description: 'Documents most similar to a given document (by source + path, or a chunk id), itself excluded.',
      inputSchema: {
        path: z.string().optional().describe('document path within its source'),
        id: z.string().optional().describe('a chunk id from a search result'),
        source: z.string().optional(),
        k: z.number().int().min(1).max(MAX_K).optional(),
      },
    },
    async ({ path, id, source, k }) => {
      try {
        return text(await searcher.related({ path, id, source }, { k }));
      } catch (err) {
        return toolError(err);
      }
    },
  );
  return server;
}

/** Serves MCP on stdin/stdout until the client disconnects. */
export async function serveStdio(searcher: Searcher): Promise<void> {
  const server = createMcpServer(searcher);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close();
}

import { tool } from 'ai';
import { z } from 'zod';
import type { ToolSpec } from '../core/profile.ts';
import { codeSearchTool } from '../profiles/code/tool.ts';
import { docSearchTool } from '../profiles/docs-tool.ts';
import { createQueryClassicsTool as classicsTool } from '../profiles/classics/tool.ts';
import { toolFields } from '../search/filter-fields.ts';
import { lazySearcher, type SearcherLike } from '../search/search.ts';
import { searcherSource } from '../engine/library.ts';
import { runTool } from '../search/tools.ts';

/** An AI SDK tool from a profile's tool description (the MCP server serves the same ones). */
export function createProfileTool(searcher: SearcherLike, spec: ToolSpec) {
  const get = lazySearcher(searcherSource(searcher));
  return tool({
    description: spec.description,
    inputSchema: z.object(toolFields(spec.params)),
    execute: async (args: Record<string, unknown>) => runTool(await get(), spec, args),
  });
}

/** codeSearch(query, languages, filePatterns, symbolType, k) over the sources chunked as code. */
export const createCodeSearchTool = (searcher: SearcherLike) => createProfileTool(searcher, codeSearchTool);
/** docSearch(query, sources, k) over documentation sources (websites, Markdown). */
export const createDocSearchTool = (searcher: SearcherLike) => createProfileTool(searcher, docSearchTool);

/** queryClassics over a Searcher, or a Config whose engine opens on first use (see profiles/classics/tool.ts). */
export const createQueryClassicsTool = (searcher: SearcherLike, opts?: Parameters<typeof classicsTool>[1]) => classicsTool(searcherSource(searcher), opts);

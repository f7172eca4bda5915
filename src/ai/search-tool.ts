/**
 * Vercel AI SDK tools over a ragsync index (`ai` and `zod` are peer dependencies). A tool takes a
 * Searcher — or a Config, opened on first use and kept open — so one index handle serves every call.
 */
import { tool } from 'ai';
import { z } from 'zod';
import { DEFAULT_PER_DOC, MAX_K, MODES } from '../search/request.ts';
import { lazySearcher, Searcher, type SearcherLike } from '../search/search.ts';
import { filterFields, filtersOf } from '../search/filter-fields.ts';


const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/** A generic search tool over any configured source, with the filters of the profiles in force. */
export function createSearchTool(searcher: SearcherLike, opts: { sources?: string[]; description?: string } = {}) {
  const get = lazySearcher(searcher);
  const sources = opts.sources;
  const source = sources?.length
    ? z.enum(sources as [string, ...string[]]).optional().describe('restrict to one source')
    : z.string().optional().describe('restrict to one source');
  const specs = (searcher instanceof Searcher ? searcher.scope : searcher).profiles.filters();
  return tool({
    description: opts.description ?? 'Search the indexed documents; returns passages with path, heading, url and score.',
    inputSchema: z.object({
      query: z.string().min(1),
      source,
      k: z.number().int().min(1).max(MAX_K).optional().default(5),
      mode: z.enum(MODES).optional().default('hybrid'),
      perDoc: z.number().int().min(0).max(MAX_K).optional().describe(`at most this many passages from one document (default ${DEFAULT_PER_DOC} in hybrid mode; 0 = no cap)`),
      ...filterFields(specs),
    }),
    execute: async ({ query, source: s, k, mode, perDoc, ...rest }) => {
      const results = await get().search(query, { k, mode, perDoc, sources: s ? [s] : sources, filters: filtersOf(specs, rest) });
      return results.map((r) => ({
        source: r.source,
        path: r.path,
        title: r.title,
        heading: r.heading,
        url: str(r.fields.url) ?? str(r.metadata.url),
        content: r.content,
        score: Number(r.score.toFixed(6)),
      }));
    },
  });
}

/**
 * Vercel AI SDK tools over a ragsync index (`ai` and `zod` are peer dependencies). A tool takes a
 * Searcher — or a Config, whose engine (its embedder and configured reranker) opens on first use and
 * stays open — so one index handle serves every call.
 */
import { tool } from 'ai';
import { z } from 'zod';
import { MAX_K, parseSearchRequest } from '../search/request.ts';
import { lazySearcher, Searcher, type SearcherLike } from '../search/search.ts';
import { searcherSource } from '../engine/library.ts';
import { configuredFilters, contractArgs, contractFields, filterFields, filtersOf } from '../search/filter-fields.ts';


const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/** A generic search tool over any configured source, with the filters of the profiles in force. */
export function createSearchTool(searcher: SearcherLike, opts: { sources?: string[]; description?: string } = {}) {
  const get = lazySearcher(searcherSource(searcher));
  const sources = opts.sources;
  const source = sources?.length
    ? z.enum(sources as [string, ...string[]]).optional().describe('restrict to one source')
    : z.string().optional().describe('restrict to one source');
  const specs = configuredFilters(searcher instanceof Searcher ? searcher.scope : searcher);
  return tool({
    description: opts.description ?? 'Search the indexed documents; returns passages with path, heading, url and score.',
    inputSchema: z.object({
      ...contractFields(),
      source,
      k: z.number().int().min(1).max(MAX_K).optional().default(5).describe('number of results (default 5)'),
      ...filterFields(specs),
    }),
    execute: async (input) => {
      const args = input as Record<string, unknown>;
      const s = args.source as string | undefined;
      const asked = (args.sources as string[] | undefined) ?? (s ? [s] : undefined);
      // A tool made for some sources searches only those.
      const picked = sources?.length ? (asked ?? []).filter((x) => sources.includes(x)) : asked;
      const scope = sources?.length && !picked?.length ? sources : picked;
      const { results } = await (await get()).run(parseSearchRequest({ ...contractArgs(args), sources: scope, filters: filtersOf(specs, args) }, 'body'));
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

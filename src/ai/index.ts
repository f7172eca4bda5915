/**
 * Vercel AI SDK tools over a ragsync index (the `ragsync/ai` subpath; `ai` and `zod` are peer
 * dependencies). The tools take a Searcher — or a Config, opened on first use and kept open — so
 * one index handle serves every call.
 */
import { tool } from 'ai';
import { z } from 'zod';
import type { Config } from '../config/load.ts';
import { Searcher, MAX_K, MODES } from '../search/search.ts';

export const CLASSICS_SOURCES = ['all', 'ziping', 'ditian', 'qiongtong', 'yuanhai', 'sanming'] as const;

type SearcherLike = Searcher | Config;

function lazy(s: SearcherLike): () => Searcher {
  if (s instanceof Searcher) return () => s;
  let open: Searcher | null = null;
  return () => (open ??= Searcher.open(s));
}

export interface ClassicsHit {
  content: string;
  /** Book title. */
  source: string;
  chapter: string;
  score: number;
}

/** The seed's schema, exactly: query, and an optional book key defaulting to 'all'. */
export const queryClassicsInput = z.object({
  query: z.string().describe('a term or question, e.g. 伤官配印, 甲木寅月用神, 天乙贵人'),
  source: z.enum(CLASSICS_SOURCES).optional().default('all').describe('which classic: all (default) or one book'),
});

/**
 * queryClassics(query, source): the top 3 passages of the classics source, as
 * {content, source (book title), chapter, score}.
 */
export function createQueryClassicsTool(searcher: SearcherLike, opts: { sourceName?: string; k?: number } = {}) {
  const get = lazy(searcher);
  const sourceName = opts.sourceName ?? 'classics';
  return tool({
    description:
      'Search the classical Chinese 八字 texts (穷通宝鉴, 子平真诠, 滴天髓, 渊海子平, 三命通会) for a term or question. ' +
      'Returns the 3 most relevant passages with book title and chapter.',
    inputSchema: queryClassicsInput,
    execute: async ({ query, source }): Promise<ClassicsHit[]> => {
      const results = await get().search(query, { k: opts.k ?? 3, sources: [sourceName], book: source ?? 'all' });
      return results.map((r) => ({
        content: r.content,
        source: r.book ?? r.title ?? r.source,
        chapter: r.chapter,
        score: Number(r.score.toFixed(6)),
      }));
    },
  });
}

/** A generic search tool over any configured source. */
export function createSearchTool(searcher: SearcherLike, opts: { sources?: string[]; description?: string } = {}) {
  const get = lazy(searcher);
  const sources = opts.sources;
  const source = sources?.length
    ? z.enum(sources as [string, ...string[]]).optional().describe('restrict to one source')
    : z.string().optional().describe('restrict to one source');
  return tool({
    description: opts.description ?? 'Search the indexed documents; returns passages with path, heading, url and score.',
    inputSchema: z.object({
      query: z.string().min(1),
      source,
      k: z.number().int().min(1).max(MAX_K).optional().default(5),
      mode: z.enum(MODES).optional().default('hybrid'),
    }),
    execute: async ({ query, source: s, k, mode }) => {
      const results = await get().search(query, { k, mode, sources: s ? [s] : sources });
      return results.map((r) => ({
        source: r.source,
        path: r.path,
        title: r.title,
        heading: r.heading,
        url: r.url,
        content: r.content,
        score: Number(r.score.toFixed(6)),
      }));
    },
  });
}

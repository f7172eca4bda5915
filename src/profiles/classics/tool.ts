/**
 * The agent's queryClassics tool (Vercel AI SDK; `ai` and `zod` are peer dependencies), exported
 * by `ragsync/ai`. Its input schema is the one the agent was written against: keep it as it is.
 */
import { tool } from 'ai';
import { z } from 'zod';
import { lazySearcher, type SearcherSource } from '../../search/search.ts';

export const CLASSICS_SOURCES = ['all', 'ziping', 'ditian', 'qiongtong', 'yuanhai', 'sanming'] as const;

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

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/**
 * queryClassics(query, source): the top 3 passages of the classics source, as
 * {content, source (book title), chapter, score}.
 */
export function createQueryClassicsTool(searcher: SearcherSource, opts: { sourceName?: string; k?: number } = {}) {
  const get = lazySearcher(searcher);
  const sourceName = opts.sourceName ?? 'classics';
  return tool({
    description:
      'Search the classical Chinese 八字 texts (穷通宝鉴, 子平真诠, 滴天髓, 渊海子平, 三命通会) for a term or question. ' +
      'Returns the 3 most relevant passages with book title and chapter.',
    inputSchema: queryClassicsInput,
    execute: async ({ query, source }): Promise<ClassicsHit[]> => {
      const results = await (await get()).search(query, { k: opts.k ?? 3, sources: [sourceName], filters: { book: source ?? 'all' } });
      return results.map((r) => ({
        content: r.content,
        source: str(r.fields.book) ?? r.title ?? r.source,
        chapter: str(r.fields.chapter) ?? r.heading,
        score: Number(r.score.toFixed(6)),
      }));
    },
  });
}

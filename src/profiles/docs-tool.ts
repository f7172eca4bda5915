import type { ToolSpec } from '../core/profile.ts';

const DEFAULT_K = 5;
const MAX_K = 50;
const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/**
 * docSearch(query, sources, k) over documentation: every source not chunked as code (web pages,
 * Markdown in git or folders). A web page's path is its URL.
 */
export const docSearchTool: ToolSpec = {
  name: 'docSearch',
  description:
    'Search the indexed documentation (websites and Markdown). Returns passages with URL or path, title, heading, line range and score.',
  params: [
    { name: 'query', type: 'string', required: true, description: 'a question or the terms to look for' },
    { name: 'sources', type: 'strings', description: 'only these documentation sources (by name)' },
    { name: 'k', type: 'integer', description: `number of results (default ${DEFAULT_K}, at most ${MAX_K})` },
  ],
  appliesTo: (scope) => scope.some((s) => s.chunker !== 'code'),
  async run(search, args, scope) {
    const docs = scope.filter((s) => s.chunker !== 'code').map((s) => s.name);
    const asked = Array.isArray(args.sources) ? args.sources.filter((s): s is string => typeof s === 'string') : [];
    const unknown = asked.filter((s) => !docs.includes(s));
    if (unknown.length) throw new Error(`not a documentation source: ${unknown.join(', ')} (known: ${docs.join(', ') || 'none'})`);
    const sources = asked.length ? asked : docs;
    if (!sources.length) return [];
    const k = Math.min(MAX_K, Math.max(1, Number(args.k) || DEFAULT_K));
    const hits = await search(String(args.query ?? ''), { k, sources });
    return hits.map((h) => {
      const front = (h.metadata.frontMatter ?? {}) as Record<string, unknown>;
      return {
        source: h.source,
        url: str(h.fields.url) ?? str(h.metadata.url) ?? str(front.url) ?? (/^https?:\/\//.test(h.path) ? h.path : null),
        path: h.path,
        title: h.title,
        heading: h.heading,
        startLine: h.startLine ?? null,
        endLine: h.endLine ?? null,
        content: h.content,
        score: Number(h.score.toFixed(6)),
      };
    });
  },
};

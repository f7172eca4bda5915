import { EXIT, RagsyncError } from '../../core/errors.ts';
import type { ToolHit, ToolSpec } from '../../core/profile.ts';
import { linesNaming, referenceTarget, refersTo } from './references.ts';

export const SYMBOL_TYPES = ['function', 'method', 'class', 'interface', 'type', 'enum', 'namespace', 'impl', 'module', 'imports'] as const;
const DEFAULT_K = 8;
const MAX_K = 50;
/** References read before they are put in path order and cut to k (a name used more often is cut here). */
const MAX_REFERENCES = 500;

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.length > 0) : []);

/** One code result: where it is (path and lines), what it is (symbol, signature), and the code. */
export function codeHit(h: ToolHit) {
  const m = h.metadata;
  const lines = h.startLine !== undefined ? `${h.startLine}-${h.endLine}` : null;
  return {
    source: h.source,
    path: h.path,
    startLine: h.startLine ?? null,
    endLine: h.endLine ?? null,
    location: lines ? `${h.path}:${lines}` : h.path,
    symbol: str(m.symbolName),
    // A pack of small neighbours: every symbol it holds.
    ...(strings(m.symbols).length ? { symbols: strings(m.symbols) } : {}),
    symbolType: str(m.symbolType),
    parentSymbol: str(m.parentSymbol),
    signature: str(m.signature),
    docComment: str(m.docComment),
    dependencies: strings(m.dependencies),
    language: str(m.language),
    content: h.content,
    score: Number(h.score.toFixed(6)),
  };
}

/** A chunk using a symbol: a code result with the file's lines that name it. */
export type CodeReference = ReturnType<typeof codeHit> & { referenceLines: number[] };

/**
 * codeSearch(query, languages, filePatterns, symbolType, k) over the sources chunked as code.
 * Several languages are searched one by one and merged by score (a filter holds one value).
 * With `references`, the chunks whose code names that symbol instead (references.ts), in path
 * and line order, each with the lines that name it; the other parameters narrow them.
 */
export const codeSearchTool: ToolSpec = {
  name: 'codeSearch',
  description:
    'Search the indexed source code by what it does or by identifier. Returns functions, methods, classes and types ' +
    'with path, line range (path:start-end), symbol, signature, language and score; or, with references, where a symbol is used.',
  params: [
    { name: 'query', type: 'string', description: 'what the code does, or an identifier (e.g. "retry with backoff", "parseConfig"); required unless references is given' },
    {
      name: 'references',
      type: 'string',
      description: 'a symbol name (e.g. "createStore", or "Store.create" for a method): return the chunks whose code uses it, not its definition, with the lines naming it',
    },
    { name: 'languages', type: 'strings', description: 'only these languages: typescript, javascript, python, go, rust, or another file type' },
    { name: 'filePatterns', type: 'strings', description: 'only paths matching one of these globs (e.g. "src/**/*.ts")' },
    { name: 'symbolType', type: 'string', values: SYMBOL_TYPES, description: 'only this kind of symbol' },
    { name: 'k', type: 'integer', description: `number of results (default ${DEFAULT_K}, at most ${MAX_K})` },
  ],
  appliesTo: (scope) => scope.some((s) => s.chunker === 'code'),
  async run(search, args, scope, mentioning) {
    const sources = scope.filter((s) => s.chunker === 'code').map((s) => s.name);
    if (!sources.length) return [];
    const query = String(args.query ?? '');
    const k = Math.min(MAX_K, Math.max(1, Number(args.k) || DEFAULT_K));
    const patterns = strings(args.filePatterns);
    const path = patterns.length === 0 ? undefined : patterns.length === 1 ? patterns[0] : `{${patterns.join(',')}}`;
    const symbolType = str(args.symbolType);
    const filters: Record<string, string> = symbolType ? { 'symbol-type': symbolType } : {};
    const languages = strings(args.languages).map((l) => l.toLowerCase());
    const symbol = str(args.references);
    if (symbol) {
      const target = referenceTarget(symbol);
      const accept = refersTo(target);
      const runs = languages.length
        ? languages.map((lang) => mentioning(target.name, { sources, path, filters: { ...filters, lang }, limit: MAX_REFERENCES, accept }))
        : [mentioning(target.name, { sources, path, filters, limit: MAX_REFERENCES, accept })];
      const hits = (await Promise.all(runs)).flat().sort(inPathOrder).slice(0, k);
      return hits.map((h): CodeReference => ({ ...codeHit(h), referenceLines: linesNaming(h.content, h.startLine, target.name) }));
    }
    if (!query.trim()) throw new RagsyncError('codeSearch needs a query, or references (a symbol name)', EXIT.usage);
    const runs = languages.length
      ? languages.map((lang) => search(query, { k, sources, path, filters: { ...filters, lang } }))
      : [search(query, { k, sources, path, filters })];
    const hits = (await Promise.all(runs)).flat().sort((a, b) => b.score - a.score).slice(0, k);
    return hits.map(codeHit);
  },
};

const inPathOrder = (a: ToolHit, b: ToolHit) =>
  a.source.localeCompare(b.source) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) || (a.startLine ?? 0) - (b.startLine ?? 0);

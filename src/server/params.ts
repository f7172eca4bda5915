import { MAX_K, MAX_QUERY_CHARS, MODES, type SearchMode, type SearchOptions } from '../search/search.ts';
import { RagsyncError, EXIT } from '../core/errors.ts';
import { parseWeights } from '../search/filters.ts';

/** An invalid request parameter: the HTTP server answers 400 with the message. */
export class BadRequest extends RagsyncError {
  constructor(message: string) {
    super(message, EXIT.usage);
  }
}

const KNOWN_SEARCH = new Set(['q', 'source', 'k', 'mode', 'book', 'tag', 'month', 'since', 'until', 'path', 'minScore',
  'explain', 'format', 'mmr', 'halfLife', 'rerank', 'weights']);
const KNOWN_RELATED = new Set(['source', 'path', 'id', 'k', 'format']);

function intParam(p: URLSearchParams, name: string, def: number, max: number): number {
  const v = p.get(name);
  if (v === null || v === '') return def;
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > max) throw new BadRequest(`${name} must be an integer from 1 to ${max} (got "${v}")`);
  return Number(v);
}

function numParam(p: URLSearchParams, name: string): number | undefined {
  const v = p.get(name);
  if (v === null || v === '') return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new BadRequest(`${name} must be a number (got "${v}")`);
  return n;
}

function checkKnown(p: URLSearchParams, known: Set<string>): void {
  for (const key of p.keys()) if (!known.has(key)) throw new BadRequest(`unknown parameter "${key}"`);
}

export type Format = 'result' | 'sourceItem';

function formatParam(p: URLSearchParams): Format {
  const f = p.get('format') ?? 'result';
  if (f !== 'result' && f !== 'sourceItem') throw new BadRequest(`format must be result|sourceItem (got "${f}")`);
  return f;
}

const list = (p: URLSearchParams, name: string) => {
  const v = p.getAll(name).flatMap((x) => x.split(',')).map((x) => x.trim()).filter(Boolean);
  return v.length ? v : undefined;
};

/** /search?q=&source=&k=&mode=&book=&tag=&month=&since=&until=&path=&minScore=&explain=&format= */
export function searchParams(p: URLSearchParams): { query: string; opts: SearchOptions; format: Format } {
  checkKnown(p, KNOWN_SEARCH);
  const query = (p.get('q') ?? '').trim();
  if (!query) throw new BadRequest('q is required');
  if (query.length > MAX_QUERY_CHARS) throw new BadRequest(`q is longer than ${MAX_QUERY_CHARS} characters`);
  const mode = (p.get('mode') || 'hybrid') as SearchMode;
  if (!MODES.includes(mode)) throw new BadRequest(`mode must be one of ${MODES.join('|')} (got "${mode}")`);
  const explain = p.get('explain');
  return {
    query,
    format: formatParam(p),
    opts: {
      k: intParam(p, 'k', 10, MAX_K),
      mode,
      sources: list(p, 'source'),
      book: p.get('book') || undefined,
      tags: list(p, 'tag'),
      month: p.get('month') || undefined,
      since: p.get('since') || undefined,
      until: p.get('until') || undefined,
      path: p.get('path') || undefined,
      minScore: numParam(p, 'minScore'),
      mmr: numParam(p, 'mmr'),
      halfLifeDays: numParam(p, 'halfLife'),
      weights: p.get('weights') ? parseWeights(p.get('weights')!) : undefined,
      explain: explain === '1' || explain === 'true',
      rerank: !['0', 'false'].includes(p.get('rerank') ?? ''),
    },
  };
}

/** /related?source=&path=&id=&k=&format= */
export function relatedParams(p: URLSearchParams) {
  checkKnown(p, KNOWN_RELATED);
  const path = p.get('path') || undefined;
  const id = p.get('id') || undefined;
  if (!path && !id) throw new BadRequest('path or id is required');
  return { source: p.get('source') || undefined, path, id, k: intParam(p, 'k', 10, MAX_K), format: formatParam(p) };
}

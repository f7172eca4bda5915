import { RagsyncError, EXIT } from '../core/errors.ts';
import type { FilterSpec } from '../core/profile.ts';
import { MAX_K, parseSearchRequest, parseWeights, type SearchRequest } from '../search/request.ts';
import { SEARCH_FIELDS, type ContractField } from '../search/contract.ts';

/** An invalid request parameter: the HTTP server answers 400 with the message. */
export class BadRequest extends RagsyncError {
  constructor(message: string) {
    super(message, EXIT.usage);
  }
}

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

function boolParam(p: URLSearchParams, name: string): boolean | undefined {
  const v = p.get(name);
  if (v === null || v === '') return undefined;
  if (['1', 'true'].includes(v)) return true;
  if (['0', 'false'].includes(v)) return false;
  throw new BadRequest(`${name} must be true|false|1|0 (got "${v}")`);
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

/** A contract field's value from its GET parameter, parsed by kind; undefined when absent. */
function fieldParam(p: URLSearchParams, name: string, f: ContractField): unknown {
  switch (f.kind) {
    case 'int':
      // k's bounds are said here; a field that admits 0 (perDoc) is checked by the schema.
      if ((f.min ?? 1) < 1) return numParam(p, name);
      return p.get(name) ? intParam(p, name, 0, f.max ?? Number.MAX_SAFE_INTEGER) : undefined;
    case 'number':
      return numParam(p, name);
    case 'bool':
      return boolParam(p, name);
    case 'list':
      return list(p, name);
    case 'weights': {
      const v = p.get(name);
      return v ? parseWeights(v) : undefined;
    }
    default:
      return p.get(name) || undefined;
  }
}

/** GET parameter names: each contract field's own, and the older spelling where there is one (q, source, halfLife). */
const PARAMS = new Map(SEARCH_FIELDS.flatMap((f) => [[f.name, f] as const, ...(f.param ? [[f.param, f] as const] : [])]));

/** /search?q=&source=&k=&mode=&… (every field of the search contract), format=, plus one parameter per profile filter. */
export function searchParams(p: URLSearchParams, specs: readonly FilterSpec[]): { request: SearchRequest; format: Format } {
  checkKnown(p, new Set([...PARAMS.keys(), 'format', ...specs.map((s) => s.name)]));
  if (!(p.get('q') ?? p.get('query') ?? '').trim()) throw new BadRequest('q is required');
  const filters: Record<string, string | string[]> = {};
  for (const s of specs) {
    const v = s.kind === 'all-of' ? list(p, s.name) : p.get(s.name) || undefined;
    if (v !== undefined) filters[s.name] = v;
  }
  const input: Record<string, unknown> = { filters };
  for (const [name, f] of PARAMS) {
    const v = fieldParam(p, name, f);
    if (v !== undefined) input[f.name] ??= v;
  }
  try {
    return { request: parseSearchRequest(input), format: formatParam(p) };
  } catch (err) {
    if (err instanceof RagsyncError) {
      // The query's and the half-life's errors name the parameters as GET spells them (q, halfLife).
      const field = SEARCH_FIELDS.find((f) => (f.name === 'query' || f.name === 'halfLifeDays') && err.message.startsWith(f.name));
      const msg = field ? `${field.param}${err.message.slice(field.name.length)}` : err.message;
      throw new BadRequest(msg);
    }
    throw err;
  }
}

const BODY_FIELDS = new Set([...SEARCH_FIELDS.map((f) => f.name), 'q', 'source', 'format', 'filters']);

/**
 * POST /search: a JSON object with the search contract's fields (query up to MAX_BODY_QUERY_CHARS;
 * `q`, `source` and a profile filter at the top level are taken as GET spells them) plus `format`.
 */
export function searchBody(body: unknown, specs: readonly FilterSpec[]): { request: SearchRequest; format: Format } {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new BadRequest('the body must be a JSON object with a "query"');
  const { q, source, format, weights, filters, ...rest } = body as Record<string, unknown>;
  const filterNames = new Set(specs.map((s) => s.name));
  const top: Record<string, unknown> = {};
  for (const key of Object.keys(rest)) {
    if (filterNames.has(key)) {
      top[key] = rest[key];
      delete rest[key];
    } else if (!BODY_FIELDS.has(key)) throw new BadRequest(`unknown field "${key}"`);
  }
  const f = format ?? 'result';
  if (f !== 'result' && f !== 'sourceItem') throw new BadRequest(`format must be result|sourceItem (got ${JSON.stringify(f)})`);
  const request = parseSearchRequest(
    {
      ...rest,
      query: rest.query ?? q,
      sources: rest.sources ?? (typeof source === 'string' ? [source] : source),
      weights: typeof weights === 'string' ? parseWeights(weights) : weights,
      filters: { ...top, ...(filters && typeof filters === 'object' ? filters : {}) },
    },
    'body',
  );
  return { request, format: f };
}

const KNOWN_REFERENCES = new Set(['symbol', 'lang', 'path', 'symbol-type', 'k']);

/** /references?symbol=&lang=&path=&symbol-type=&k= (lang and path repeatable; path a glob): codeSearch's `references` arguments. */
export function referencesParams(p: URLSearchParams): Record<string, unknown> {
  checkKnown(p, KNOWN_REFERENCES);
  const symbol = p.get('symbol')?.trim();
  if (!symbol) throw new BadRequest('symbol is required');
  const symbolType = p.get('symbol-type') || undefined;
  return { references: symbol, languages: list(p, 'lang') ?? [], filePatterns: p.getAll('path').filter(Boolean), symbolType, k: intParam(p, 'k', 8, 50) };
}

/** /related?source=&path=&id=&k=&format= */
export function relatedParams(p: URLSearchParams) {
  checkKnown(p, KNOWN_RELATED);
  const path = p.get('path') || undefined;
  const id = p.get('id') || undefined;
  if (!path && !id) throw new BadRequest('path or id is required');
  return { source: p.get('source') || undefined, path, id, k: intParam(p, 'k', 10, MAX_K), format: formatParam(p) };
}

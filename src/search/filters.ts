import { RagsyncError, EXIT } from '../core/errors.ts';
import type { FilterSpec } from '../core/profile.ts';
import type { ChunkFilter, FieldCondition } from '../core/types.ts';
import type { SearchRequest } from './request.ts';

const usage = (msg: string) => new RagsyncError(msg, EXIT.usage);
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function condition(spec: FilterSpec, raw: string | string[]): FieldCondition | null {
  const values = (Array.isArray(raw) ? raw : [raw]).map((v) => v.trim()).filter(Boolean);
  if (spec.kind === 'all-of') return values.length ? { op: 'has-all', fields: spec.fields, values } : null;
  if (values.length !== 1) throw usage(`${spec.name} takes one value (got ${values.length})`);
  const v = values[0]!;
  switch (spec.kind) {
    case 'equals': {
      if (spec.any !== undefined && v === spec.any) return null;
      const known = spec.values?.includes(v) || spec.pattern?.test(v) || (!spec.values && !spec.pattern);
      if (!known) {
        const names = [...(spec.values ?? []), ...(spec.any ? [spec.any] : [])].join('|');
        throw usage(`${spec.name} must be one of ${names} (got "${v}")`);
      }
      return { op: 'eq', fields: spec.fields, value: v };
    }
    case 'month': {
      const m = /^(\d{4})-?(\d{2})$/.exec(v);
      if (!m || Number(m[2]) < 1 || Number(m[2]) > 12) throw usage(`${spec.name} must be YYYY-MM (got "${v}")`);
      return { op: 'month', fields: spec.fields, value: `${m[1]}-${m[2]}` };
    }
    case 'since':
    case 'until':
      if (!DATE.test(v) || Number.isNaN(Date.parse(v))) throw usage(`${spec.name} must be YYYY-MM-DD (got "${v}")`);
      return { op: spec.kind, fields: spec.fields, value: v };
  }
}

/**
 * A request's filters → the store's ChunkFilter, each profile filter validated by its spec (an
 * unknown name or value is a usage error naming what is known). Filtering itself happens in the
 * store, so the vector and keyword lists are filtered alike before fusion.
 */
export function toChunkFilter(
  req: Pick<SearchRequest, 'filters' | 'path' | 'includeBroken'> & { sources?: string[] },
  specs: readonly FilterSpec[],
): ChunkFilter {
  const f: ChunkFilter = {};
  if (req.sources?.length) f.sources = req.sources;
  if (req.path !== undefined) f.path = req.path;
  if (req.includeBroken) f.includeBroken = true;
  const where: FieldCondition[] = [];
  for (const [name, value] of Object.entries(req.filters ?? {})) {
    const spec = specs.find((s) => s.name === name);
    if (!spec) {
      throw usage(`unknown filter "${name}" (known: ${specs.map((s) => s.name).join(', ') || 'none'})`);
    }
    const c = condition(spec, value);
    if (c) where.push(c);
  }
  if (where.length) f.where = where;
  return f;
}

/**
 * Values of `equals` filters admitted only by their spec's pattern (not among its listed values):
 * such a value is real only if the index holds it, which the searcher checks when nothing matched.
 */
export function unlistedValues(
  filters: Record<string, string | string[]> | undefined,
  specs: readonly FilterSpec[],
): { spec: FilterSpec; value: string; condition: FieldCondition }[] {
  const out: { spec: FilterSpec; value: string; condition: FieldCondition }[] = [];
  for (const [name, raw] of Object.entries(filters ?? {})) {
    const spec = specs.find((s) => s.name === name);
    if (!spec || spec.kind !== 'equals' || !spec.pattern || !spec.values) continue;
    for (const value of (Array.isArray(raw) ? raw : [raw]).map((v) => v.trim())) {
      if (!value || value === spec.any || spec.values.includes(value)) continue;
      out.push({ spec, value, condition: { op: 'eq', fields: spec.fields, value } });
    }
  }
  return out;
}

/** "book: no indexed chunk has "foo" (known: qiongtong|ziping|…|all)". */
export function unknownValueError(spec: FilterSpec, value: string): RagsyncError {
  const names = [...(spec.values ?? []), ...(spec.any ? [spec.any] : [])].join('|');
  return usage(`${spec.name} "${value}" is not a known value and no indexed chunk has it (known: ${names})`);
}

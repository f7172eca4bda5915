import { RagsyncError, EXIT } from '../core/errors.ts';
import type { FilterSpec } from '../core/profile.ts';
import type { ChunkFilter, FieldCondition, FieldValueShape } from '../core/types.ts';
import { closestValues } from './closest.ts';
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

/** A filter value to look for in the index when a search found nothing, and the condition that finds it. */
export interface ValueToCheck {
  spec: FilterSpec;
  value: string;
  condition: FieldCondition;
}

/** How a filter's known values are listed from the index, by its kind (since/until are ranges: none). */
export function knownShape(spec: FilterSpec): FieldValueShape | null {
  return spec.kind === 'equals' ? 'value' : spec.kind === 'all-of' ? 'element' : spec.kind === 'month' ? 'month' : null;
}

/**
 * The filter values that are real only if the index holds them: those of filters whose known values
 * come from the index, and values of `equals` filters admitted by their pattern but not among
 * their listed values. Checked only when a search found nothing, so a valid value costs nothing.
 */
export function valuesToCheck(filters: Record<string, string | string[]> | undefined, specs: readonly FilterSpec[]): ValueToCheck[] {
  const out: ValueToCheck[] = [];
  for (const [name, raw] of Object.entries(filters ?? {})) {
    const spec = specs.find((s) => s.name === name);
    if (!spec || !knownShape(spec)) continue;
    if (!spec.knownFromIndex && !(spec.kind === 'equals' && spec.pattern && spec.values)) continue;
    for (const value of (Array.isArray(raw) ? raw : [raw]).map((v) => v.trim())) {
      if (!value || value === spec.any || spec.values?.includes(value)) continue;
      const c = condition(spec, value);
      if (c) out.push({ spec, value, condition: c });
    }
  }
  return out;
}

/** Known values listed in full up to this many; beyond, the closest few. */
const LIST_ALL = 40;
const CLOSEST = 8;

/**
 * "tag "nosuchtag" is not a known value and no indexed chunk has it (closest known: …, of 412)"; a
 * short list is named in full ("book "foo" … (known: qiongtong|ziping|…|all)").
 */
export function unknownValueError(spec: FilterSpec, value: string, known: readonly string[] = spec.values ?? []): RagsyncError {
  const all = [...new Set(known)];
  const any = spec.any ? [spec.any] : [];
  const what =
    all.length <= LIST_ALL
      ? `known: ${[...all, ...any].join('|') || 'none'}`
      : `closest known: ${closestValues(value, all, CLOSEST, spec.kind === 'month').join('|')}, of ${all.length}${spec.any ? `; any: ${spec.any}` : ''}`;
  return usage(`${spec.name} "${value}" is not a known value and no indexed chunk has it (${what})`);
}

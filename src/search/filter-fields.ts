import { z } from 'zod';
import type { FilterSpec, ProfileRegistry, ToolParam } from '../core/profile.ts';
import { MAX_BODY_QUERY_CHARS, MAX_LIST, MODES } from './request.ts';
import { SEARCH_FIELDS, type ContractField } from './contract.ts';

function contractField(f: ContractField): z.ZodType {
  switch (f.kind) {
    case 'int':
      return z.number().int().min(f.min ?? Number.MIN_SAFE_INTEGER).max(f.max ?? Number.MAX_SAFE_INTEGER);
    case 'number':
      return z.number();
    case 'bool':
      return z.boolean();
    case 'mode':
      return z.enum(MODES);
    case 'list':
      return z.array(z.string()).max(MAX_LIST);
    case 'weights':
      return z.object({ vector: z.number().min(0), keyword: z.number().min(0) });
    default:
      return f.name === 'query' ? z.string().min(1).max(MAX_BODY_QUERY_CHARS) : z.string();
  }
}

/**
 * Tool-input fields (MCP, AI SDK) for every field of the search contract (search/contract.ts):
 * `query` required, the rest optional; the request schema then checks and defaults them.
 */
export function contractFields(): Record<string, z.ZodType> {
  return Object.fromEntries(SEARCH_FIELDS.map((f) => [f.name, (f.name === 'query' ? contractField(f) : contractField(f).optional()).describe(f.description)]));
}

/** The contract's fields among a tool call's arguments (filters and tool-only fields left out). */
export function contractArgs(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(SEARCH_FIELDS.filter((f) => args[f.name] !== undefined).map((f) => [f.name, args[f.name]]));
}

/** A filter's name as a tool-input field: camelCase like the contract's fields (symbol-type → symbolType). */
export const fieldName = (filter: string): string => filter.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** The filters of the profiles the configured sources use: a tool offers no code filter to a config without code. */
export function configuredFilters(scope: { profiles: ProfileRegistry; sources: readonly { profile: string }[] }): FilterSpec[] {
  const used = new Set(scope.sources.map((s) => s.profile));
  const names = new Set(scope.profiles.profiles.filter((p) => used.has(p.name)).flatMap((p) => (p.filters ?? []).map((f) => f.name)));
  return scope.profiles.filters().filter((f) => names.has(f.name));
}

/**
 * Tool-input fields (MCP, AI SDK) for the profiles' filters: one optional field per filter, a list
 * for repeatable ones. Values are checked by search/filters.ts, which names the known ones.
 */
export function filterFields(specs: readonly FilterSpec[]): Record<string, z.ZodOptional<z.ZodString | z.ZodArray<z.ZodString>>> {
  const out: Record<string, z.ZodOptional<z.ZodString | z.ZodArray<z.ZodString>>> = {};
  for (const f of specs) {
    const known = f.values?.length ? ` (${[...f.values, ...(f.any ? [f.any] : [])].join('|')})` : '';
    out[fieldName(f.name)] = (f.kind === 'all-of' ? z.array(z.string()).max(MAX_LIST) : z.string()).optional().describe(f.description + known);
  }
  return out;
}

/** The filter values among a tool call's arguments. */
export function filtersOf(specs: readonly FilterSpec[], args: Record<string, unknown>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const f of specs) {
    const v = args[fieldName(f.name)];
    if (typeof v === 'string' || Array.isArray(v)) out[f.name] = v as string | string[];
  }
  return out;
}

/** Tool-input fields (MCP, AI SDK) for a profile tool's parameters. */
export function toolFields(params: readonly ToolParam[]): Record<string, z.ZodType> {
  const out: Record<string, z.ZodType> = {};
  for (const p of params) {
    const base =
      p.type === 'integer'
        ? z.number().int().min(1)
        : p.type === 'strings'
          ? z.array(z.string().min(1)).max(MAX_LIST)
          : p.values?.length
            ? z.enum(p.values as [string, ...string[]])
            : z.string().min(1);
    const described = base.describe(p.description);
    out[p.name] = p.required ? described : described.optional();
  }
  return out;
}

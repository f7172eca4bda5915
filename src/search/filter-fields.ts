import { z } from 'zod';
import type { FilterSpec, ToolParam } from '../core/profile.ts';
import { MAX_LIST } from './request.ts';

/**
 * Tool-input fields (MCP, AI SDK) for the profiles' filters: one optional field per filter, a list
 * for repeatable ones. Values are checked by search/filters.ts, which names the known ones.
 */
export function filterFields(specs: readonly FilterSpec[]): Record<string, z.ZodOptional<z.ZodString | z.ZodArray<z.ZodString>>> {
  const out: Record<string, z.ZodOptional<z.ZodString | z.ZodArray<z.ZodString>>> = {};
  for (const f of specs) {
    const known = f.values?.length ? ` (${[...f.values, ...(f.any ? [f.any] : [])].join('|')})` : '';
    out[f.name] = (f.kind === 'all-of' ? z.array(z.string()).max(MAX_LIST) : z.string()).optional().describe(f.description + known);
  }
  return out;
}

/** The filter values among a tool call's arguments. */
export function filtersOf(specs: readonly FilterSpec[], args: Record<string, unknown>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const f of specs) {
    const v = args[f.name];
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

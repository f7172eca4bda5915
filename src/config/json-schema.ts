/**
 * The config file's JSON Schema, made from the zod schema that validates it, published as
 * config/schema.json so editors complete and check a config (a test keeps the file equal to this).
 */
import * as z from 'zod/mini';
import { configSchema, embedderInputSchema, embedderSchema, sourceKindField } from './schema.ts';
import type { SourceKindRegistry } from './source-kinds.ts';

export { SCHEMA_FILE } from './schema-file.ts';

/** `kinds`: the source-kind registry whose names a source's `kind` offers. */
export function configJsonSchema(kinds: SourceKindRegistry): Record<string, unknown> {
  const opts = { io: 'input', unrepresentable: 'any' } as const;
  const embedder = z.toJSONSchema(embedderInputSchema, opts) as { $schema?: string; oneOf: Variant[] };
  delete embedder.$schema;
  for (const v of embedder.oneOf) sizeKeys(v);
  const schema = z.toJSONSchema(configSchema, {
    ...opts,
    // The embedder is read through a step that fills in the provider and the size key's other
    // name, which JSON Schema cannot say: its variants are described as written.
    override: (ctx) => {
      if (ctx.zodSchema === (embedderSchema as unknown)) Object.assign(ctx.jsonSchema, embedder);
      // The kinds are the registry's, not the schema's: offered as a list with the default.
      if (ctx.zodSchema === (sourceKindField as unknown)) {
        for (const k of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[k];
        Object.assign(ctx.jsonSchema, { type: 'string', default: kinds.defaultKind, enum: [...kinds.names], description: kinds.kinds.map((k) => `${k.name}: ${k.description}`).join('; ') });
      }
    },
  }) as Record<string, unknown>;
  return {
    $schema: schema.$schema,
    title: 'ragsync config',
    description: 'See docs/configuration.md. "dims" and "dimensions" name the same thing: the embedder\'s vector size.',
    ...schema,
  };
}

type Variant = { properties: Record<string, Record<string, unknown>>; required?: string[] };

/**
 * In config, "dims" is the vector size for every provider and "dimensions" another name for it;
 * the zod schema holds it under one of them and refuses the other beside it, which reads in JSON
 * Schema as "never". The file offers both, described as what they are.
 */
function sizeKeys(v: Variant): void {
  const p = v.properties;
  const size = p.dims && !('not' in p.dims) ? p.dims : p.dimensions!;
  p.dims = { description: "the embedder's vector size", ...size };
  p.dimensions = { description: 'another name for "dims" (give one of them)', ...size };
  // No provider is the hash embedder.
  if (p.provider?.const === 'hash') v.required = v.required?.filter((k) => k !== 'provider');
  if (!v.required?.length) delete v.required;
}

/** The file's text: two-space JSON and a final line break. */
export const configJsonSchemaText = (kinds: SourceKindRegistry): string => `${JSON.stringify(configJsonSchema(kinds), null, 2)}\n`;

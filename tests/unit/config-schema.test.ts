import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCHEMA_FILE, configJsonSchemaText } from '../../src/config/json-schema.ts';
import { builtinSourceKinds } from '../../src/sources/registry.ts';
import { REPO_ROOT } from '../helpers/tmp.ts';

describe('config/schema.json', () => {
  it('is what the zod schema makes (run `npm run schema` after changing src/config/schema.ts)', () => {
    expect(readFileSync(join(REPO_ROOT, SCHEMA_FILE), 'utf8')).toBe(configJsonSchemaText(builtinSourceKinds));
  });

  it('offers dims and dimensions for every provider, and the keys a source takes', () => {
    const s = JSON.parse(configJsonSchemaText(builtinSourceKinds)) as {
      properties: { embedder: { oneOf: { properties: Record<string, unknown> }[] }; sources: { items: { properties: Record<string, unknown> } } };
    };
    const variants = s.properties.embedder.oneOf;
    expect(variants.length).toBe(11);
    for (const v of variants) expect(Object.keys(v.properties)).toEqual(expect.arrayContaining(['provider', 'dims', 'dimensions']));
    expect(Object.keys(s.properties.sources.items.properties)).toEqual(expect.arrayContaining(['name', 'kind', 'url', 'path', 'chunker', 'profile']));
  });

  it('is what the shipped example config names', () => {
    const example = JSON.parse(readFileSync(join(REPO_ROOT, 'config', 'example.json'), 'utf8')) as { $schema: string };
    expect(join(REPO_ROOT, 'config', example.$schema)).toBe(join(REPO_ROOT, SCHEMA_FILE));
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinProfiles } from '../../src/builtin.ts';
import { parseConfig } from '../../src/config/load.ts';
import { createProfileRegistry, type Profile } from '../../src/core/profile.ts';
import { defaultAnalyzer } from '../../src/core/text/analyzer.ts';
import type { ChunkerFactory } from '../../src/core/types.ts';
import { Searcher } from '../../src/search/search.ts';

import { tempDir } from '../helpers/tmp.ts';
import { builtinSourceKinds } from '../../src/sources/registry.ts';
import { openSearcher, runIndex } from '../../src/engine/library.ts';

// A profile the engine has never heard of, defined here and nowhere in src/: the seam is the
// Profile interface, a registry, and a config naming the chunker.
const recipesChunker: ChunkerFactory = () => ({
  fingerprint: 'recipes@1',
  chunk: ({ text }) => ({
    title: null,
    metadata: {},
    chunks: text
      .split(/^Recipe: /m)
      .filter((p) => p.trim())
      .map((p) => {
        const [head, ...body] = p.trim().split('\n');
        const [dish, cuisine] = head!.split(' / ');
        const content = body.join('\n').trim();
        return { key: dish!.toLowerCase().replace(/\W+/g, '-'), heading: dish!, content, text: `${dish}\n${content}`, metadata: { cuisine, dish } };
      }),
  }),
});

const recipes: Profile = {
  name: 'recipes',
  description: 'one file of recipes, "Recipe: dish / cuisine" each',
  chunkers: { recipes: recipesChunker },
  analyzer: { id: 'recipes@1', normalize: defaultAnalyzer.normalize, queryStopWords: ['please'] },
  filters: [
    { name: 'cuisine', description: 'cuisine', kind: 'equals', fields: ['cuisine'], values: ['thai', 'italian'] },
    // Any dish the index holds; the engine lists them to name the closest to one nobody has.
    { name: 'dish', description: 'dish', kind: 'equals', fields: ['dish'], knownFromIndex: true },
  ],
  resultFields: (h) => ({ dish: h.metadata.dish }),
};

let t: ReturnType<typeof tempDir>;
let searcher: Searcher;
beforeAll(async () => {
  t = tempDir();
  mkdirSync(join(t.dir, 'book'));
  writeFileSync(
    join(t.dir, 'book', 'all.md'),
    'Recipe: Green curry / thai\ncoconut milk, basil, chicken\n\nRecipe: Pad thai / thai\nrice noodles, tamarind, peanuts\n\n' +
      'Recipe: Risotto / italian\narborio rice, parmesan, basil\n',
  );
  const registry = createProfileRegistry([...builtinProfiles.profiles, recipes]);
  const config = parseConfig(registry, builtinSourceKinds, {
    db: join(t.dir, 'i.db'),
    sources: [{ name: 'kitchen', kind: 'dir', path: join(t.dir, 'book'), chunker: 'recipes' }],
  });
  expect(config.sources[0]!.profile).toBe('recipes');
  expect((await runIndex(config)).status).toBe('ok');
  searcher = openSearcher(config);
});
afterAll(async () => {
  await searcher.close();
  t.cleanup();
});

describe('a third profile, added without touching the engine', () => {
  it('its chunker indexes, its filter filters, its fields show', async () => {
    const basil = await searcher.search('basil', { mode: 'keyword' });
    expect(basil.map((r) => r.fields.dish).sort()).toEqual(['Green curry', 'Risotto']);
    const thai = await searcher.search('basil', { mode: 'keyword', filters: { cuisine: 'thai' } });
    expect(thai.map((r) => r.fields.dish)).toEqual(['Green curry']);
    const rice = await searcher.search('rice', { filters: { cuisine: 'italian' } });
    expect(rice.map((r) => r.fields.dish)).toEqual(['Risotto']);
  });

  it('its stop words leave queries; its values and names are checked', async () => {
    const polite = await searcher.search('please tamarind', { mode: 'keyword' });
    expect(polite.map((r) => r.fields.dish)).toEqual(['Pad thai']);
    expect(polite[0]!.explain).toBeUndefined();
    await expect(searcher.search('rice', { filters: { cuisine: 'french' } })).rejects.toThrow(/cuisine must be one of thai\|italian \(got "french"\)/);
    await expect(searcher.search('rice', { filters: { book: 'No pe!' } })).rejects.toThrow(/book must be one of/);
    await expect(searcher.search('rice', { filters: { spice: 'hot' } })).rejects.toThrow(/unknown filter "spice" \(known: .*cuisine/);
  });

  it('a filter whose known values come from the index names them when a value matches no chunk', async () => {
    expect((await searcher.search('rice', { filters: { dish: 'Risotto' } })).map((r) => r.fields.dish)).toEqual(['Risotto']);
    await expect(searcher.search('rice', { filters: { dish: 'Risoto' } })).rejects.toThrow(
      'dish "Risoto" is not a known value and no indexed chunk has it (known: Green curry|Pad thai|Risotto)',
    );
    // Two real values that never meet: nothing, and no error.
    expect(await searcher.search('rice', { filters: { dish: 'Risotto', cuisine: 'thai' } })).toEqual([]);
  });
});

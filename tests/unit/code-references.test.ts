import { describe, expect, it } from 'vitest';
import type { ToolHit } from '../../src/core/profile.ts';
import { defines, linesNaming, referenceTarget, refersTo } from '../../src/profiles/code/references.ts';

const hit = (content: string, metadata: Record<string, unknown> = {}): ToolHit =>
  ({ source: 's', path: 'a.ts', heading: '', content, metadata: { language: 'typescript', ...metadata }, score: 0, fields: {} }) as unknown as ToolHit;

describe('code references', () => {
  it('reads a name, a Parent.name or Parent::name, and refuses anything else naming it', () => {
    expect(referenceTarget(' createStore ')).toEqual({ name: 'createStore', parent: null });
    expect(referenceTarget('Store.create')).toEqual({ name: 'create', parent: 'Store' });
    expect(referenceTarget('Store::new')).toEqual({ name: 'new', parent: 'Store' });
    expect(referenceTarget('$scope')).toEqual({ name: '$scope', parent: null });
    for (const bad of ['', 'a b', 'a.b.c', '1x', 'x()']) expect(() => referenceTarget(bad)).toThrow(`references: ${JSON.stringify(bad)} is not a symbol name`);
  });

  it('matches the name as a whole word, case as written, and gives the file lines naming it', () => {
    const is = refersTo(referenceTarget('store'));
    expect(is(hit('const s = store.get();'))).toBe(true);
    for (const other of ['createStore()', 'store_path', 'Store.open()', 'const $store = 1', 'storeX']) expect(is(hit(other)), other).toBe(false);
    expect(refersTo(referenceTarget('$scope'))(hit('fn($scope)'))).toBe(true);
    expect(linesNaming('a\nstore(1)\nb\nx = store', 10, 'store')).toEqual([11, 13]);
  });

  it('leaves out the definition (its parts, a pack holding it; a method only under its parent) and Markdown', () => {
    const t = referenceTarget('create');
    expect(defines(hit('function create() { create() }', { symbolName: 'create' }), t)).toBe(true);
    expect(defines(hit('…', { symbolName: 'open', symbols: ['open', 'create'] }), t)).toBe(true);
    const method = referenceTarget('Store.create');
    expect(defines(hit('create() {}', { symbolName: 'create', parentSymbol: 'Store' }), method)).toBe(true);
    expect(defines(hit('create() {}', { symbolName: 'create', parentSymbol: 'Queue' }), method)).toBe(false);
    expect(refersTo(t)(hit('call create() here', { language: 'markdown' }))).toBe(false);
    expect(refersTo(t)(hit('create();', { symbolName: 'main' }))).toBe(true);
  });
});

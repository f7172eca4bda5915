import { describe, expect, it } from 'vitest';
import { queryTerms } from '../../src/core/text/analyzer.ts';
import { codeProfile } from '../../src/profiles/code/index.ts';
import { codePrior, CODE_PRIOR, queryIdentifiers } from '../../src/profiles/code/prior.ts';
import { reverseTechGlossary } from '../../src/profiles/code/glossary.ts';

const fn = (name: string) => `export function ${name}(key: string): string | null {\n  return lookup(key);\n}`;

describe('code prior', () => {
  it('reads identifiers from a query: code-shaped tokens, or a lone word', () => {
    expect(queryIdentifiers('createStore StoreOptions configPath')).toEqual(['createStore', 'StoreOptions', 'configPath']);
    expect(queryIdentifiers('acquire_lease')).toEqual(['acquire_lease']);
    expect(queryIdentifiers('rerank')).toEqual(['rerank']);
    expect(queryIdentifiers('how are results merged')).toEqual([]);
    expect(queryIdentifiers('合并 mergeResults')).toEqual([]);
  });

  it('the chunk declaring the name beats a test and an import that mention it, and a later part of it', () => {
    const prior = codePrior('getCachedResult')!;
    const defines = prior({ heading: 'src/store.ts › getCacheKey, getCachedResult', content: `${fn('getCacheKey')}\n\n${fn('getCachedResult')}` });
    const test = prior({ heading: 'test/store.test.ts', content: 'expect(getCachedResult(db, "k")).toBe(null);' });
    const imports = prior({ heading: 'src/cli/qmd.ts › (imports)', content: 'import { getCachedResult } from "../store.js";' });
    const tail = prior({ heading: 'src/store.ts › getCachedResult', content: '  return row?.result ?? null;\n}' });
    expect(defines).toBe(CODE_PRIOR.defines);
    expect(test).toBe(CODE_PRIOR.test);
    expect(imports).toBe(CODE_PRIOR.imports);
    expect(tail).toBe(1);
    // Method forms and Python.
    expect(codePrior('LlamaCpp embedBatch')!({ heading: 'src/llm.ts › LlamaCpp › embedBatch', content: '  async embedBatch(texts: string[]) {\n  }' })).toBeGreaterThan(CODE_PRIOR.defines);
    expect(codePrior('acquire_lease')!({ heading: 'pool.py › Pool › __init__, acquire_lease', content: '    def __init__(self):\n        pass\n\n    def acquire_lease(self):\n        pass' })).toBe(CODE_PRIOR.defines);
  });

  it('with several names, the chunk declaring the first and using the rest beats the declaration of a later one', () => {
    const prior = codePrior('inspectGgufFile GgufFileInspection')!;
    const fnChunk = prior({
      heading: 'src/llm.ts › inspectGgufFile',
      content: 'export function inspectGgufFile(filePath: string): GgufFileInspection {\n  return read(filePath);\n}',
    });
    const typeChunk = prior({ heading: 'src/llm.ts › GgufFileInspection', content: 'export type GgufFileInspection = {\n  exists: boolean;\n};' });
    // Fusion can hand the type twice the function's score (its vector rank); the prior must outweigh that.
    expect(fnChunk / typeChunk).toBeGreaterThan(2);
    // A later name declared alone still beats a chunk that only mentions the names.
    expect(typeChunk).toBeGreaterThan(prior({ heading: 'src/cli/qmd.ts › doctor', content: 'const r: GgufFileInspection = inspectGgufFile(p);' }));
    // A method under its class: the class named in the heading is the first name, held.
    const method = codePrior('LlamaCpp embedBatch')!({ heading: 'src/llm.ts › LlamaCpp › embedBatch', content: '  async embedBatch(texts: string[]) {\n  }' });
    const cls = codePrior('LlamaCpp embedBatch')!({ heading: 'src/llm.ts › LlamaCpp', content: 'export class LlamaCpp implements LLM {\n  private ctx = null;\n}' });
    expect(method).toBeGreaterThan(cls);
  });

  it('a Markdown section of a code source (its heading starts with the title, not a path) counts as documentation', () => {
    const prior = codePrior('suggest file names close to a mistyped path')!;
    expect(prior({ heading: 'QMD Query Expansion Scoring › Scoring Criteria', content: '| Criterion | Points |' })).toBe(CODE_PRIOR.docs);
    expect(prior({ heading: 'Changelog › [2.8.3] › Security', content: '- Fixed a path check.' })).toBe(CODE_PRIOR.docs);
    expect(prior({ heading: 'src/store.ts › findSimilarFiles', content: fn('findSimilarFiles') })).toBe(1);
    expect(prior({ heading: 'finetune/Justfile › (module)', content: 'train:\n  uv run train.py' })).toBe(CODE_PRIOR.module);
  });

  it('a question in words still ranks tests and imports lower, and nothing else moves', () => {
    const prior = codePrior('where are cached results read')!;
    expect(prior({ heading: 'src/store.ts › getCachedResult', content: fn('getCachedResult') })).toBe(1);
    expect(prior({ heading: 'test/store.test.ts', content: 'it("reads")' })).toBe(CODE_PRIOR.test);
  });
});

describe('code query analysis', () => {
  it('English stop words are dropped from queries as whole words only', () => {
    const a = codeProfile.analyzer!;
    expect(queryTerms(a, 'how is the theme stored')).toEqual(['theme', 'store']);
    expect(queryTerms(a, 'getCachedResult')).toEqual(['getcachedresult', 'cach', 'result']);
    // snake_case is split into its parts (the tokenizer's word boundary), in the index and in queries alike.
    expect(queryTerms(a, 'detect_only_mode')).toEqual(['detect', 'mode']);
  });

  it('a Chinese question gets the glossary\'s English words', () => {
    const terms = reverseTechGlossary().expand('从缓存读取数据库配置').map((e) => `${e.from}:${e.term}`);
    expect(terms).toEqual(expect.arrayContaining(['缓存:cache', '数据库:database']));
    expect(reverseTechGlossary().expand('read the cache')).toEqual([]);
    expect(codeProfile.expandQuery!('缓存').length).toBeGreaterThan(0);
  });
});

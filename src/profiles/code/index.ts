import type { Profile } from '../../core/profile.ts';
import { defaultAnalyzer } from '../../core/text/analyzer.ts';
import type { ChunkHit } from '../../core/types.ts';
import { CODE_EXCLUDES, CODE_INCLUDE, codeChunker } from '../../chunking/code/index.ts';
import { codeSearchTool, SYMBOL_TYPES } from './tool.ts';


/** An identifier in camelCase or PascalCase, kept whole and followed by its words: searchVectors → searchVectors search Vectors. */
const IDENTIFIER = /\b[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*\b/g;
const words = (id: string) => id.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2');

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/** What a code result carries besides the engine's fields: the symbol and where it is. */
function codeFields(h: ChunkHit) {
  const m = h.metadata;
  return {
    language: str(m.language),
    symbol: str(m.symbolName),
    symbolType: str(m.symbolType),
    parentSymbol: str(m.parentSymbol),
    signature: str(m.signature),
    lines: h.startLine !== undefined ? `${h.startLine}-${h.endLine}` : null,
  };
}

/** Source code in git repositories and folders: a chunk per symbol, filters by language and symbol type. */
export const codeProfile: Profile = {
  name: 'code',
  description: 'source code: a chunk per function, method, class or type (tree-sitter), line windows for other text',
  chunkers: { code: codeChunker },
  analyzer: { id: 'code@1', normalize: defaultAnalyzer.normalize, beforeFold: (t) => t.replace(IDENTIFIER, (id) => `${id} ${words(id)}`) },
  sourceDefaults: { include: CODE_INCLUDE, exclude: CODE_EXCLUDES },
  filters: [
    { name: 'lang', description: 'language (typescript, javascript, python, go, rust, or another file type)', kind: 'equals', fields: ['language'], pattern: /^[a-z][a-z0-9+#-]*$/ },
    { name: 'symbol-type', description: `symbol type (${SYMBOL_TYPES.join(', ')})`, kind: 'equals', fields: ['symbolType'], values: SYMBOL_TYPES },
  ],
  resultFields: codeFields,
  tools: [codeSearchTool],
};

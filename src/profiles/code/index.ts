import type { Profile } from '../../core/profile.ts';
import { defaultAnalyzer } from '../../core/text/analyzer.ts';
import type { ChunkHit } from '../../core/types.ts';
import { CODE_EXCLUDES, CODE_INCLUDE, codeChunker, LANGUAGE_NAMES } from '../../chunking/code/index.ts';
import { ENGLISH_STOP_WORDS } from '../../core/text/english-keys.ts';
import { ZH_QUESTION_WORDS } from '../common.ts';
import { reverseTechGlossary } from './glossary.ts';
import { codePrior } from './prior.ts';
import { codeSearchTool, SYMBOL_TYPES } from './tool.ts';

/** An identifier in camelCase or PascalCase, kept whole and followed by its words: searchVectors → searchVectors search Vectors. */
const IDENTIFIER = /\b[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*\b/g;
const words = (id: string) => id.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2');

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
const strings = (v: unknown): string[] | null => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : null);

/**
 * Dropped from queries: English function words (a question's "how", "the", "of" otherwise match
 * every comment and stop-word list in the code) and Chinese question words.
 */
const QUERY_STOP_WORDS = [...ZH_QUESTION_WORDS, ...[...ENGLISH_STOP_WORDS].filter((w) => /^[a-z]+$/.test(w))];

/** What a code result carries besides the engine's fields: the symbol and where it is. */
function codeFields(h: ChunkHit) {
  const m = h.metadata;
  return {
    language: str(m.language),
    symbol: str(m.symbolName),
    // A pack of small neighbours: every symbol it holds.
    symbols: strings(m.symbols),
    symbolType: str(m.symbolType),
    parentSymbol: str(m.parentSymbol),
    signature: str(m.signature),
    docComment: str(m.docComment),
    dependencies: strings(m.dependencies),
    lines: h.startLine !== undefined ? `${h.startLine}-${h.endLine}` : null,
  };
}

/** Source code in git repositories and folders: a chunk per symbol, filters by language and symbol type. */
export const codeProfile: Profile = {
  name: 'code',
  description: 'source code: a chunk per function, method, class or type (tree-sitter), line windows for other text',
  chunkers: { code: codeChunker },
  analyzer: {
    id: 'code@2',
    normalize: defaultAnalyzer.normalize,
    beforeFold: (t) => t.replace(IDENTIFIER, (id) => `${id} ${words(id)}`),
    queryStopWords: QUERY_STOP_WORDS,
  },
  // Chinese questions about English code: the tech glossary's English for their Chinese words.
  expandQuery: (query) => reverseTechGlossary().expand(query),
  candidatePrior: codePrior,
  sourceDefaults: { include: CODE_INCLUDE, exclude: CODE_EXCLUDES },
  filters: [
    { name: 'lang', description: 'language (typescript, javascript, python, go, rust, or another file type)', kind: 'equals', fields: ['language'], pattern: /^[a-z][a-z0-9+#-]*$/, values: LANGUAGE_NAMES },
    { name: 'symbol-type', description: `symbol type (${SYMBOL_TYPES.join(', ')})`, kind: 'equals', fields: ['symbolType'], values: SYMBOL_TYPES },
  ],
  resultFields: codeFields,
  tools: [codeSearchTool],
};

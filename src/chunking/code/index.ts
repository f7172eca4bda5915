import type { Chunk, ChunkedDocument, ChunkerFactory, ChunkInput, ChunkingSettings } from '../../core/types.ts';
import { chunkMarkdown, HEADING_SEPARATOR } from '../markdown.ts';
import { skipReason } from './excludes.ts';
import { loadGrammars, parserFor } from './grammars.ts';
import { grammarsFor, languageOf } from './languages.ts';
import { piecesOf, windowsOf, type Piece } from './pieces.ts';
import { Rows } from './rows.ts';
import { dependenciesOf, type ImportBinding } from './imports.ts';
import { outlineOf } from './symbols.ts';

export { CODE_EXCLUDES } from './excludes.ts';
export { CODE_INCLUDE, LANGUAGE_NAMES } from './languages.ts';

/** Bump when the output of the same input changes: every document is then re-chunked. */
const VERSION = 3;
const SEPARATOR = HEADING_SEPARATOR;

/**
 * Source code, one chunk per symbol: tree-sitter parses TypeScript/TSX, JavaScript, Python, Go and
 * Rust; other text files (and a file whose grammar failed) are cut into line windows.
 *
 * The embedded text is the parent's and the symbol's signature, then the code as written (doc
 * comment, decorators, body). The file's path is in the heading (the keyword index's weighted
 * column, and what results show), not in the embedded text: a file renamed or a function moved to
 * another file keeps its texts, and so its vectors.
 */
export function chunkCode(input: ChunkInput, settings: ChunkingSettings): ChunkedDocument {
  const lang = languageOf(input.path, input.text);
  const metadata: Record<string, unknown> = { language: lang.name };
  const skipped = skipReason(input.path, input.text);
  if (skipped) return { title: input.path, metadata: { ...metadata, skipped }, chunks: [] };
  // A repository's READMEs and docs: chunked by heading, as any Markdown.
  if (lang.name === 'markdown') {
    const doc = chunkMarkdown(input, settings);
    return { ...doc, metadata: { ...doc.metadata, ...metadata }, chunks: doc.chunks.map((c) => ({ ...c, metadata: { ...c.metadata, language: lang.name } })) };
  }
  const rows = new Rows(input.text.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n'));
  let pieces: Piece[] | null = null;
  let imports: ImportBinding[] = [];
  if (lang.grammar) {
    const parser = parserFor(lang.grammar);
    if (typeof parser === 'string') metadata.fallback = parser;
    else {
      let tree: ReturnType<typeof parser.parse> = null;
      try {
        tree = parser.parse(rows.lines.join('\n'));
        if (!tree) throw new Error('the parser returned no tree');
        const outline = outlineOf(tree.rootNode, lang.grammar, rows.lines.join('\n'));
        imports = outline.imports;
        pieces = piecesOf(outline, rows, settings.targetTokens);
        if (tree.rootNode.hasError) metadata.parseErrors = true;
      } catch (err) {
        metadata.fallback = `tree-sitter ${lang.grammar}: ${err instanceof Error ? err.message : String(err)}`;
        pieces = null;
        imports = [];
      } finally {
        tree?.delete();
      }
    }
  }
  const chunks = (pieces ?? windowsOf(rows, settings.targetTokens)).map((p) => toChunk(input.path, lang.name, p, imports));
  dedupeKeys(chunks);
  return { title: input.path, metadata, chunks };
}

function toChunk(path: string, language: string, p: Piece, imports: readonly ImportBinding[]): Chunk {
  const sym = p.symbols[0];
  const startLine = p.start + 1;
  const endLine = p.end + 1;
  // The modules whose imported names this code uses (an import chunk is the imports themselves).
  const deps = p.kind === 'imports' ? [] : dependenciesOf(p.content, imports);
  const lines = { startLine, endLine };
  const dependencies = deps.length ? { dependencies: deps } : {};
  if (!sym) {
    const symbolType = p.kind === 'lines' ? null : p.kind;
    return {
      key: `${path}#L${startLine}`,
      heading: [path, ...(symbolType ? [`(${symbolType})`] : [])].join(SEPARATOR),
      content: p.content,
      text: p.content,
      metadata: { language, ...(symbolType ? { symbolType } : {}), ...lines, ...dependencies },
      ...lines,
    };
  }
  const parent = sym.parent;
  const names = p.symbols.map((s) => s.name);
  // A pack's members each show their own signature in the code, and every name's words lead the
  // text; one symbol's signature leads its text, its name's words only its head part's (a later
  // part is the same symbol's body, not what its name is about).
  const tail = !!p.part && p.part[0] > 1;
  // The doc comment of the one symbol a chunk opens with (a pack's members keep theirs in the code).
  const docComment = p.symbols.length === 1 && !tail ? sym.docComment : undefined;
  const header = [
    parent?.signature,
    ...(p.symbols.length === 1 ? [sym.signature, tail ? null : nameWords(sym.name)] : p.symbols.map((s) => nameWords(s.name))),
  ].filter((h): h is string => !!h);
  const qualified = parent ? `${parent.name}.${sym.name}` : sym.name;
  return {
    key: `${path}#${qualified}${p.part && p.part[0] > 1 ? `~p${p.part[0]}` : ''}`,
    heading: [path, ...(parent ? [parent.name] : []), names.join(', ')].join(SEPARATOR),
    content: p.content,
    text: header.length ? `${header.join('\n')}\n\n${p.content}` : p.content,
    metadata: {
      language,
      symbolName: sym.name,
      symbolType: sym.type,
      parentSymbol: parent?.name ?? null,
      signature: sym.signature,
      ...(docComment ? { docComment } : {}),
      ...dependencies,
      ...lines,
      ...(p.symbols.length > 1 ? { symbols: names } : {}),
      ...(p.part ? { part: p.part[0], parts: p.part[1] } : {}),
    },
    ...lines,
  };
}

/** A name's words when it has several (locateLines → "locate lines"): what a question in words says. */
function nameWords(name: string): string | null {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2').replace(/[_$]+/g, ' ').trim().toLowerCase();
  return words.includes(' ') ? words : null;
}

/** Overloads and same-named symbols get ~2, ~3 … so every key of a document is its own. */
function dedupeKeys(chunks: Chunk[]): void {
  const seen = new Map<string, number>();
  for (const c of chunks) {
    const n = seen.get(c.key) ?? 0;
    seen.set(c.key, n + 1);
    if (n) c.key = `${c.key}~${n + 1}`;
  }
}

export const codeChunker: ChunkerFactory = (settings) => ({
  fingerprint: `code@${VERSION}:t${settings.targetTokens}`,
  prepare: (paths) => loadGrammars(grammarsFor(paths)),
  chunk: (input) => chunkCode(input, settings),
  // Source files are chunked as written: an HTML template is code here, not a page to convert.
  takesAsWritten: true,
  expects: (path) => languageOf(path, '').grammar !== undefined,
});

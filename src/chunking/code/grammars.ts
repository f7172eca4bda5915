import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Grammar } from './languages.ts';

type TreeSitter = typeof import('web-tree-sitter');
export type Parser = import('web-tree-sitter').Parser;
export type SyntaxNode = import('web-tree-sitter').Node;

/**
 * The tree-sitter parsers, loaded once per process: web-tree-sitter's runtime and the grammars of
 * @vscode/tree-sitter-wasm (maintained together with it; the older per-language grammar packages
 * are built for runtimes before 0.26 and fail to load). Loading is asynchronous (WASM), parsing is
 * not: a parser that loaded is handed out synchronously, one that failed stays a recorded reason.
 */
let runtime: Promise<TreeSitter> | null = null;
const loading = new Map<Grammar, Promise<void>>();
const parsers = new Map<Grammar, Parser>();
const failures = new Map<Grammar, string>();

// Required, not imported: the bundled CLI runs from a code cache that has no dynamic import, and
// the package finds its runtime's .wasm beside its own CommonJS entry (the bundle leaves it in node_modules).
// Made on first use: a run that parses no code (the hourly no-op) makes none.
let required: NodeJS.Require | undefined;
const requireHere = (): NodeJS.Require => (required ??= createRequire(import.meta.url));

function loadRuntime(): Promise<TreeSitter> {
  runtime ??= (async () => {
    const ts = requireHere()('web-tree-sitter') as TreeSitter;
    await ts.Parser.init();
    return ts;
  })();
  return runtime;
}

const wasmDir = () => join(dirname(requireHere().resolve('@vscode/tree-sitter-wasm/package.json')), 'wasm');

/** Loads the grammars not yet loaded; a failure is kept as the reason its files fall back to line windows. */
export async function loadGrammars(grammars: Iterable<Grammar>): Promise<void> {
  await Promise.all(
    [...grammars].map((g) => {
      let p = loading.get(g);
      if (!p) {
        p = (async () => {
          try {
            const ts = await loadRuntime();
            const language = await ts.Language.load(join(wasmDir(), `tree-sitter-${g}.wasm`));
            const parser = new ts.Parser();
            parser.setLanguage(language);
            parsers.set(g, parser);
          } catch (err) {
            failures.set(g, `tree-sitter grammar ${g} did not load: ${err instanceof Error ? err.message : String(err)}`);
          }
        })();
        loading.set(g, p);
      }
      return p;
    }),
  );
}

/** The loaded parser of a grammar, or why there is none. */
export function parserFor(g: Grammar): Parser | string {
  return parsers.get(g) ?? failures.get(g) ?? `tree-sitter grammar ${g} was not loaded before chunking`;
}

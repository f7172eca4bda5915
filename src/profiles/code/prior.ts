import type { CandidatePrior } from '../../core/profile.ts';
import { HEADING_SEPARATOR } from '../../chunking/markdown.ts';

/**
 * The code profile's opinion of a query's candidates, from what a chunk is (its heading path:
 * file › parent › symbols, and its code): grep's rule that the line declaring a name is where to
 * look, not the tests and imports that use it.
 *
 * - A chunk that declares an identifier the query names (the symbol's head: a split symbol's later
 *   parts hold no declaration) is worth DEFINES more, and more again per further name of the query
 *   it holds, in its heading (`LlamaCpp embedBatch`: the method under its class) or its code
 *   (`inspectGgufFile GgufFileInspection`: the function returning that type).
 * - A query's first name is what it looks for; the names after it narrow it down (a type, a
 *   parameter). A chunk whose heading does not hold the first name (the type, declared alone)
 *   gets LATER of the declaration's weight.
 * - Test files and import-only chunks count less: they mention every name they exercise; so do
 *   documentation and configuration (READMEs, changelogs, YAML): a question to a code index is
 *   answered by the code first, the prose about it after. Module-level code between symbols (a
 *   file's constants, its header comment) counts a little less than a symbol.
 *
 * Factors chosen on eval/tune/code.jsonl (BENCHMARKS.md, "Code search"); results were flat around them.
 */
export const CODE_PRIOR = { defines: 3, alsoNamed: 0.5, later: 0.5, test: 0.5, imports: 0.5, docs: 0.5, module: 0.7 };

/** A token that can only be a name in code: camelCase, PascalCase with a lower letter, snake_case, a digit inside. */
const IDENTIFIER = /^(?:[A-Za-z$][a-z0-9$]*[A-Z][\w$]*|_*[A-Za-z][A-Za-z0-9]*(?:_+[A-Za-z0-9]+)+_*|_+[A-Za-z][\w$]*|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+)$/;
const TOKEN = /[A-Za-z_$][\w$]*/g;

/** Paths of tests and their helpers: test/, tests/, __tests__/, spec/, *.test.*, *.spec.*, test_*.py, *_test.go|py. */
const TEST_PATH = /(?:^|\/)(?:tests?|__tests__|spec|specs)\/|\.(?:test|spec)\.[cm]?[jt]sx?$|(?:^|\/)test_[^/]*\.py$|_test\.(?:go|py)$/;

/** Documentation, configuration and data beside the code: READMEs, changelogs, YAML, JSON … */
const DOCS_PATH = /\.(?:md|mdx|markdown|rst|adoc|txt|json|jsonc|ya?ml|toml|ini|cfg|conf|nix|csv|lock|xml|html?)$|(?:^|\/)(?:CHANGELOG|CHANGES|HISTORY|NEWS|LICENSE|COPYING|AUTHORS)[^/]*$/i;

/**
 * A heading that starts with a title, not a path: the code chunker heads its chunks with the file's
 * path, and hands Markdown to the Markdown chunker, whose headings start with the document's title.
 */
const PROSE_TITLE = /\s/;

const escape = (s: string) => s.replace(/[$]/g, '\\$&');

/** The identifiers a query names: code-shaped tokens, or every token of a short query of one or two bare words. */
export function queryIdentifiers(query: string): string[] {
  if (/[^\x00-\x7f]/.test(query)) return [];
  const tokens = query.match(TOKEN) ?? [];
  const named = tokens.filter((t) => IDENTIFIER.test(t));
  if (named.length) return [...new Set(named)];
  // "rerank", "LlamaCpp": a lone word is looked up as a name.
  return tokens.length === 1 && tokens[0]!.length > 2 && !/\s/.test(query.trim()) ? tokens : [];
}

/** `name` as a whole word, as written. */
function mention(name: string): RegExp {
  return new RegExp(`(?<![\\w$])${escape(name)}(?![\\w$])`);
}

/** A line declaring `name`: a keyword form (function, class, def, fn …) or a method's head. */
function declaration(name: string): RegExp {
  const n = escape(name);
  return new RegExp(
    `(?:^|[^\\w$])(?:function\\*?|class|interface|type|enum|def|struct|trait|fn|func(?:\\s*\\([^)]*\\))?|namespace|module|const|let|var)\\s+${n}(?![\\w$])` +
      `|^[ \\t]*(?:(?:export|default|public|private|protected|static|async|readonly|override|abstract|get|set|pub|declare)\\s+)*\\*?${n}\\s*[(<]`,
    'mi',
  );
}

/** The code prior for one query (Profile.candidatePrior). */
export function codePrior(query: string): CandidatePrior | null {
  const ids = queryIdentifiers(query);
  const lower = ids.map((i) => i.toLowerCase());
  const declares = ids.map(declaration);
  const mentions = ids.map(mention);
  return (c) => {
    const parts = c.heading.split(HEADING_SEPARATOR);
    const path = parts[0] ?? '';
    let f = 1;
    if (TEST_PATH.test(path)) f *= CODE_PRIOR.test;
    else if (DOCS_PATH.test(path) || PROSE_TITLE.test(path)) f *= CODE_PRIOR.docs;
    const last = parts[parts.length - 1];
    if (last === '(imports)') f *= CODE_PRIOR.imports;
    else if (last === '(module)') f *= CODE_PRIOR.module;
    if (!ids.length || parts.length < 2) return f;
    const names = new Set(parts.slice(1).flatMap((p) => p.split(', ')).map((n) => n.toLowerCase()));
    let defined = false;
    for (let i = 0; i < ids.length && !defined; i++) defined = names.has(lower[i]!) && declares[i]!.test(c.content);
    if (!defined) return f;
    let held = 0;
    for (let i = 0; i < ids.length; i++) if (names.has(lower[i]!) || mentions[i]!.test(c.content)) held++;
    const subject = names.has(lower[0]!) ? 1 : CODE_PRIOR.later;
    return f * CODE_PRIOR.defines * subject * (1 + CODE_PRIOR.alsoNamed * (held - 1));
  };
}

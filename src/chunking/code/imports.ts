import type { Grammar } from './languages.ts';

/** What one import statement brings into a file: the module it names and the local names it binds. */
export interface ImportBinding {
  module: string;
  /** Names the file's code uses the import by (none for a side-effect import). */
  names: string[];
}

const NAME = /^[A-Za-z_$][\w$]*$/;
const lastName = (s: string) => s.trim().split(/\s+as\s+/).pop()!.trim();
const names = (list: string) =>
  list
    .split(',')
    .map((n) => lastName(n.replace(/^\s*type\s+/, '')))
    .filter((n) => NAME.test(n));

function jsImports(text: string): ImportBinding[] {
  const from = /\bfrom\s*['"]([^'"]+)['"]/.exec(text)?.[1] ?? /^\s*import\s*['"]([^'"]+)['"]/.exec(text)?.[1] ?? /require\(\s*['"]([^'"]+)['"]\s*\)/.exec(text)?.[1];
  if (!from) return [];
  const clause = text.replace(/\bfrom\s*['"][^'"]+['"][\s\S]*$/, '').replace(/^\s*import\s+(?:type\s+)?/, '');
  const out: string[] = [];
  const named = /\{([^}]*)\}/.exec(clause)?.[1];
  if (named) out.push(...names(named));
  const ns = /\*\s*as\s+([A-Za-z_$][\w$]*)/.exec(clause)?.[1];
  if (ns) out.push(ns);
  const def = /^([A-Za-z_$][\w$]*)\s*(?:,|$)/.exec(clause.trim())?.[1];
  if (def) out.push(def);
  // import x = require('m')
  const alias = /^([A-Za-z_$][\w$]*)\s*=/.exec(clause.trim())?.[1];
  if (alias) out.push(alias);
  return [{ module: from, names: out }];
}

function pythonImports(text: string): ImportBinding[] {
  const flat = text.replace(/[()\\\n]/g, ' ');
  const from = /^\s*from\s+(\S+)\s+import\s+(.+)$/.exec(flat);
  if (from) return [{ module: from[1]!, names: from[2]!.trim() === '*' ? [] : names(from[2]!) }];
  const imp = /^\s*import\s+(.+)$/.exec(flat);
  if (!imp) return [];
  return imp[1]!.split(',').map((part) => {
    const [mod, alias] = part.trim().split(/\s+as\s+/);
    return { module: mod!.trim(), names: [alias?.trim() || mod!.trim().split('.')[0]!] };
  });
}

function goImports(text: string): ImportBinding[] {
  const out: ImportBinding[] = [];
  for (const m of text.matchAll(/(?:^|[\s(])([A-Za-z_.][\w]*\s+)?"([^"]+)"/g)) {
    const alias = m[1]?.trim();
    const module = m[2]!;
    if (alias === '_' || alias === '.') {
      out.push({ module, names: [] });
      continue;
    }
    out.push({ module, names: [alias || module.split('/').pop()!.replace(/[^\w]/g, '_')] });
  }
  return out;
}

function rustImports(text: string): ImportBinding[] {
  const body = /^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+([\s\S]+?);?\s*$/.exec(text)?.[1] ?? /^\s*extern\s+crate\s+(\w+)/.exec(text)?.[1];
  if (!body) return [];
  const brace = body.indexOf('{');
  if (brace < 0) {
    const [path, alias] = body.split(/\s+as\s+/);
    const module = path!.trim();
    return [{ module, names: [alias?.trim() || module.split('::').pop()!] }];
  }
  const module = body.slice(0, brace).replace(/::\s*$/, '').trim();
  const inner = body.slice(brace + 1, body.lastIndexOf('}'));
  return [{ module, names: inner.split(',').map((p) => lastName(p.split('::').pop()!)).filter((n) => NAME.test(n) && n !== 'self') }];
}

const PARSERS: Record<Grammar, (text: string) => ImportBinding[]> = {
  typescript: jsImports,
  tsx: jsImports,
  javascript: jsImports,
  python: pythonImports,
  go: goImports,
  rust: rustImports,
};

/** The bindings of one import statement, as written (a form this does not read gives none). */
export function importsOf(grammar: Grammar, statement: string): ImportBinding[] {
  return PARSERS[grammar](statement);
}

const IDENT = /[A-Za-z_$][\w$]*/g;

/** The modules whose imported names a piece of code uses, in import order, each once. */
export function dependenciesOf(code: string, imports: readonly ImportBinding[]): string[] {
  if (!imports.length) return [];
  const used = new Set(code.match(IDENT));
  const out: string[] = [];
  for (const i of imports) if (i.names.some((n) => used.has(n)) && !out.includes(i.module)) out.push(i.module);
  return out;
}

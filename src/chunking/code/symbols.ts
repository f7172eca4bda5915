import type { SyntaxNode } from './grammars.ts';
import { importsOf, type ImportBinding } from './imports.ts';
import type { Grammar } from './languages.ts';

/** What a chunk is about; containers (class, impl) also get an outline chunk of their own. */
export type SymbolType = 'function' | 'method' | 'class' | 'interface' | 'type' | 'enum' | 'namespace' | 'impl';

/** A symbol of a file. Rows are 0-based and inclusive. */
export interface CodeSymbol {
  name: string;
  type: SymbolType;
  /** First row, with the doc comment, decorators and `export` that belong to it. */
  start: number;
  /** Row where the declaration itself begins (after its doc comment and attributes). */
  declStart: number;
  end: number;
  /** The declaration up to its body, on one line. */
  signature: string;
  /** Rows after which the symbol may be cut when it is too large: ends of its body's statements. */
  cuts: number[];
  /** Members chunked on their own (a class's methods); empty for most. */
  members: CodeSymbol[];
  parent?: { name: string; signature: string };
  /** The comment directly above it, or a Python docstring, without its comment markers. */
  docComment?: string;
}

/** Top-level nodes that are not symbols: imports and other module code, in runs. */
export interface ModuleRun {
  start: number;
  end: number;
  imports: boolean;
}

export interface Outline {
  symbols: CodeSymbol[];
  module: ModuleRun[];
  /** What the file's import statements bind, in order. */
  imports: ImportBinding[];
}

interface Resolved {
  /** The node whose range is the symbol's (export statement, decorated definition). */
  outer: SyntaxNode;
  /** The declaration itself. */
  decl: SyntaxNode;
  type: SymbolType;
  name: string;
  /** Members that are symbols of their own, for containers. */
  body: SyntaxNode | null;
  container: boolean;
  /** A parent named by the declaration itself (a Go method's receiver type). */
  parent?: string;
}

interface Rules {
  resolve(node: SyntaxNode, inContainer: boolean): Resolved | null;
  /** Nodes that belong to the symbol after them when adjacent: comments, decorators, attributes. */
  leading: ReadonlySet<string>;
  imports: ReadonlySet<string>;
}

const field = (n: SyntaxNode, f: string) => n.childForFieldName(f);
const nameOf = (n: SyntaxNode, f = 'name') => field(n, f)?.text ?? '';

function decl(outer: SyntaxNode, d: SyntaxNode, type: SymbolType, name: string, body: SyntaxNode | null = field(d, 'body'), container = false): Resolved {
  return { outer, decl: d, type, name: name || '(anonymous)', body, container };
}

const JS_FUNCTION_VALUES = new Set(['arrow_function', 'function_expression', 'function', 'generator_function']);
const JS_CLASS_VALUES = new Set(['class', 'class_expression']);

function resolveJs(node: SyntaxNode, inContainer: boolean, outer: SyntaxNode = node): Resolved | null {
  switch (node.type) {
    case 'export_statement': {
      const inner = field(node, 'declaration') ?? field(node, 'value');
      if (!inner) return null;
      const r = resolveJs(inner, inContainer, node);
      if (r) return r;
      // export default <function or class expression>
      if (JS_FUNCTION_VALUES.has(inner.type)) return decl(node, inner, 'function', nameOf(inner) || 'default');
      if (JS_CLASS_VALUES.has(inner.type)) return decl(node, inner, 'class', nameOf(inner) || 'default', field(inner, 'body'), true);
      return null;
    }
    case 'ambient_declaration': {
      const inner = node.namedChildren.find((c) => c !== null && c.type !== 'comment');
      return inner ? resolveJs(inner, inContainer, outer) : null;
    }
    case 'function_declaration':
    case 'generator_function_declaration':
    case 'function_signature':
      return decl(outer, node, 'function', nameOf(node));
    case 'class_declaration':
    case 'abstract_class_declaration':
    case 'class':
      return decl(outer, node, 'class', nameOf(node), field(node, 'body'), true);
    case 'interface_declaration':
      return decl(outer, node, 'interface', nameOf(node));
    case 'type_alias_declaration':
      return decl(outer, node, 'type', nameOf(node), null);
    case 'enum_declaration':
      return decl(outer, node, 'enum', nameOf(node));
    case 'internal_module':
    case 'module':
      return decl(outer, node, 'namespace', nameOf(node));
    case 'method_definition':
    case 'abstract_method_signature':
    case 'method_signature':
      return inContainer ? decl(outer, node, 'method', nameOf(node)) : null;
    case 'lexical_declaration':
    case 'variable_declaration': {
      // const f = (…) => …: a function by any other syntax.
      const declarators = node.namedChildren.filter((c) => c !== null && c.type === 'variable_declarator');
      if (declarators.length !== 1) return null;
      const d = declarators[0]!;
      const value = field(d, 'value');
      if (!value) return null;
      if (JS_FUNCTION_VALUES.has(value.type)) return decl(outer, node, 'function', nameOf(d), field(value, 'body'));
      if (JS_CLASS_VALUES.has(value.type)) return decl(outer, node, 'class', nameOf(d), field(value, 'body'), true);
      return null;
    }
    default:
      return null;
  }
}

function resolvePython(node: SyntaxNode, inContainer: boolean, outer: SyntaxNode = node): Resolved | null {
  switch (node.type) {
    case 'decorated_definition': {
      const inner = field(node, 'definition');
      return inner ? resolvePython(inner, inContainer, node) : null;
    }
    case 'function_definition':
      return decl(outer, node, inContainer ? 'method' : 'function', nameOf(node));
    case 'class_definition':
      return decl(outer, node, 'class', nameOf(node), field(node, 'body'), true);
    default:
      return null;
  }
}

/** The type a Go method is declared on: `(s *Store)` → Store. */
const goReceiver = (n: SyntaxNode) => /([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*\)\s*$/.exec(field(n, 'receiver')?.text ?? '')?.[1] ?? '';

function resolveGo(node: SyntaxNode): Resolved | null {
  switch (node.type) {
    case 'function_declaration':
      return decl(node, node, 'function', nameOf(node));
    case 'method_declaration': {
      const r = decl(node, node, 'method', nameOf(node));
      const recv = goReceiver(node);
      return recv ? { ...r, parent: recv } : r;
    }
    case 'type_declaration': {
      const specs = node.namedChildren.filter((c) => c !== null && (c.type === 'type_spec' || c.type === 'type_alias'));
      if (!specs.length) return null;
      const t = field(specs[0]!, 'type')?.type;
      const type: SymbolType = specs.length > 1 ? 'type' : t === 'struct_type' ? 'class' : t === 'interface_type' ? 'interface' : 'type';
      return decl(node, node, type, specs.map((s) => nameOf(s)).join(', '), null);
    }
    default:
      return null;
  }
}

function resolveRust(node: SyntaxNode, inContainer: boolean): Resolved | null {
  switch (node.type) {
    case 'function_item':
    case 'function_signature_item':
      return decl(node, node, inContainer ? 'method' : 'function', nameOf(node));
    case 'struct_item':
    case 'union_item':
      return decl(node, node, 'class', nameOf(node));
    case 'enum_item':
      return decl(node, node, 'enum', nameOf(node));
    case 'trait_item':
      return decl(node, node, 'interface', nameOf(node));
    case 'type_item':
      return decl(node, node, 'type', nameOf(node), null);
    case 'mod_item':
      return field(node, 'body') ? decl(node, node, 'namespace', nameOf(node)) : null;
    case 'impl_item': {
      const trait = field(node, 'trait')?.text;
      const type = field(node, 'type')?.text ?? '';
      return decl(node, node, 'impl', trait ? `${trait} for ${type}` : type, field(node, 'body'), true);
    }
    default:
      return null;
  }
}

const C_COMMENTS = ['comment'];
const RULES: Record<Grammar, Rules> = {
  typescript: { resolve: resolveJs, leading: new Set([...C_COMMENTS, 'decorator']), imports: new Set(['import_statement', 'import_alias']) },
  tsx: { resolve: resolveJs, leading: new Set([...C_COMMENTS, 'decorator']), imports: new Set(['import_statement', 'import_alias']) },
  javascript: { resolve: resolveJs, leading: new Set([...C_COMMENTS, 'decorator']), imports: new Set(['import_statement']) },
  python: {
    resolve: resolvePython,
    leading: new Set(['comment']),
    imports: new Set(['import_statement', 'import_from_statement', 'future_import_statement']),
  },
  go: { resolve: (n) => resolveGo(n), leading: new Set(['comment']), imports: new Set(['import_declaration', 'package_clause']) },
  rust: {
    resolve: resolveRust,
    leading: new Set(['line_comment', 'block_comment', 'attribute_item', 'inner_attribute_item']),
    imports: new Set(['use_declaration', 'extern_crate_declaration']),
  },
};

const MAX_SIGNATURE = 240;

/** The declaration from its first row up to where its body begins, on one line. */
function signatureOf(r: Resolved, source: string): string {
  const from = r.decl.startIndex;
  const to = r.body && r.body.startIndex > from ? r.body.startIndex : r.decl.endIndex;
  let sig = source.slice(from, to).replace(/\s+/g, ' ').trim();
  if (!r.body) sig = sig.split(/\s*[{=]\s*/, 1)[0]!.trim() || sig;
  if (r.outer !== r.decl && r.outer.type === 'export_statement') sig = `export ${sig.replace(/^export\s+/, '')}`;
  return sig.length > MAX_SIGNATURE ? `${sig.slice(0, MAX_SIGNATURE - 1)}…` : sig;
}

/** Statements of a body, looking through one wrapping list (Go's statement_list). */
function statementsOf(body: SyntaxNode | null): SyntaxNode[] {
  if (!body) return [];
  let kids = body.namedChildren.filter((c): c is SyntaxNode => c !== null);
  if (kids.length === 1 && /list$/.test(kids[0]!.type) && kids[0]!.namedChildCount > 1) kids = kids[0]!.namedChildren.filter((c): c is SyntaxNode => c !== null);
  return kids;
}

/**
 * The symbols of a parsed file and the module code between them. Node types are read directly
 * (no query files to drift from their grammar): a type this does not know is module code, never an error.
 */
export function outlineOf(root: SyntaxNode, grammar: Grammar, source: string): Outline {
  const rules = RULES[grammar];
  const walk = (nodes: SyntaxNode[], parent: CodeSymbol | null): { symbols: CodeSymbol[]; rest: SyntaxNode[][] } => {
    const symbols: CodeSymbol[] = [];
    const rest: SyntaxNode[][] = [[]];
    let pending: SyntaxNode[] = [];
    const flushPending = () => {
      rest[rest.length - 1]!.push(...pending);
      pending = [];
    };
    for (const node of nodes) {
      if (rules.leading.has(node.type)) {
        // A leading node separated from the one before it by a blank line starts a new group.
        const prev = pending[pending.length - 1];
        if (prev && node.startPosition.row > prev.endPosition.row + 1) flushPending();
        pending.push(node);
        continue;
      }
      const r = rules.resolve(node, parent !== null && parent.type !== 'namespace');
      if (!r) {
        flushPending();
        rest[rest.length - 1]!.push(node);
        continue;
      }
      // Comments and decorators directly above (no blank line between) belong to the symbol.
      let start = r.outer.startPosition.row;
      const lead = pending;
      pending = [];
      let attached = lead.length;
      while (attached > 0 && lead[attached - 1]!.endPosition.row >= start - 1) start = lead[--attached]!.startPosition.row;
      rest[rest.length - 1]!.push(...lead.slice(0, attached));
      rest.push([]);
      const docComment = commentText(lead.slice(attached).filter((n) => /comment/.test(n.type))) ?? docstringOf(r, grammar);
      const sym: CodeSymbol = {
        name: r.name,
        type: r.type,
        start,
        declStart: r.outer.startPosition.row,
        end: r.outer.endPosition.row,
        signature: signatureOf(r, source),
        cuts: [],
        members: [],
        ...(docComment ? { docComment } : {}),
        ...(parent
          ? { parent: { name: parent.name, signature: parent.signature } }
          : r.parent
            ? { parent: { name: r.parent, signature: `type ${r.parent}` } }
            : {}),
      };
      const statements = statementsOf(r.body);
      if (r.container) sym.members = walk(statements, sym).symbols;
      sym.cuts = statements.map((s) => s.endPosition.row).filter((row) => row >= sym.start && row < sym.end);
      symbols.push(sym);
    }
    flushPending();
    return { symbols, rest };
  };
  const top = walk(root.namedChildren.filter((c): c is SyntaxNode => c !== null), null);
  // Imports are a chunk of their own: a run is cut where it turns from imports to other code.
  const module: ModuleRun[] = [];
  const imports: ImportBinding[] = [];
  for (const run of top.rest) {
    let group: SyntaxNode[] = [];
    let kind: boolean | null = null;
    const close = () => {
      if (group.length) module.push({ start: group[0]!.startPosition.row, end: group[group.length - 1]!.endPosition.row, imports: kind === true });
      group = [];
      kind = null;
    };
    let comments: SyntaxNode[] = [];
    for (const n of run) {
      if (rules.leading.has(n.type)) {
        comments.push(n);
        continue;
      }
      const isImport = rules.imports.has(n.type);
      if (isImport) imports.push(...importsOf(grammar, n.text));
      if (kind !== null && kind !== isImport) close();
      group.push(...comments, n);
      comments = [];
      kind = isImport;
    }
    group.push(...comments);
    close();
  }
  return { symbols: top.symbols, module, imports };
}

const MAX_DOC = 1000;

/** Comment nodes' text without their markers (/** … *\/, //, #, ///), lines joined by newlines. */
function commentText(nodes: SyntaxNode[]): string | undefined {
  if (!nodes.length) return undefined;
  const text = nodes
    .map((n) => n.text)
    .join('\n')
    .replace(/^\s*\/\*+!?|\*+\/\s*$/gm, '')
    .split('\n')
    .map((l) => l.replace(/^\s*(?:\/\/[/!]?|#|\*(?!\/))\s?/, '').trimEnd())
    .join('\n')
    .trim();
  return text ? text.slice(0, MAX_DOC) : undefined;
}

/** A Python function's or class's docstring: the string its body opens with. */
function docstringOf(r: Resolved, grammar: Grammar): string | undefined {
  if (grammar !== 'python' || !r.body) return undefined;
  const first = r.body.namedChildren.find((c) => c !== null && c.type !== 'comment');
  const str = first?.type === 'expression_statement' ? first.namedChildren[0] : null;
  if (!str || str.type !== 'string') return undefined;
  const text = str.text.replace(/^[rRuUbBfF]*("""|'''|"|')/, '').replace(/("""|'''|"|')$/, '').trim();
  return text ? text.slice(0, MAX_DOC) : undefined;
}

/** The languages the code chunker parses, by the name of their grammar in @vscode/tree-sitter-wasm. */
export type Grammar = 'typescript' | 'tsx' | 'javascript' | 'python' | 'go' | 'rust';

export interface LanguageOf {
  /** As results and the --lang filter show it (a .tsx file is typescript). */
  name: string;
  /** The grammar that parses it; absent: the file is cut into line windows. */
  grammar?: Grammar;
}

const PARSED: Record<string, LanguageOf> = {
  ts: { name: 'typescript', grammar: 'typescript' },
  mts: { name: 'typescript', grammar: 'typescript' },
  cts: { name: 'typescript', grammar: 'typescript' },
  tsx: { name: 'typescript', grammar: 'tsx' },
  js: { name: 'javascript', grammar: 'javascript' },
  mjs: { name: 'javascript', grammar: 'javascript' },
  cjs: { name: 'javascript', grammar: 'javascript' },
  jsx: { name: 'javascript', grammar: 'javascript' },
  py: { name: 'python', grammar: 'python' },
  pyi: { name: 'python', grammar: 'python' },
  go: { name: 'go', grammar: 'go' },
  rs: { name: 'rust', grammar: 'rust' },
};

/** Languages cut into line windows, named for the --lang filter. */
const WINDOWED: Record<string, string> = {
  sh: 'shell', bash: 'shell', zsh: 'shell', fish: 'shell', ps1: 'powershell',
  c: 'c', h: 'c', cc: 'cpp', cpp: 'cpp', cxx: 'cpp', hpp: 'cpp', hh: 'cpp', cs: 'csharp', java: 'java', kt: 'kotlin',
  kts: 'kotlin', scala: 'scala', swift: 'swift', m: 'objective-c', rb: 'ruby', php: 'php', pl: 'perl', lua: 'lua',
  r: 'r', jl: 'julia', ex: 'elixir', exs: 'elixir', erl: 'erlang', hs: 'haskell', ml: 'ocaml', clj: 'clojure',
  dart: 'dart', zig: 'zig', nim: 'nim', sql: 'sql', css: 'css', scss: 'scss', less: 'less', html: 'html', htm: 'html',
  vue: 'vue', svelte: 'svelte', md: 'markdown', mdx: 'markdown', rst: 'rst', txt: 'text', json: 'json', jsonc: 'json',
  yaml: 'yaml', yml: 'yaml', toml: 'toml', ini: 'ini', xml: 'xml', graphql: 'graphql', proto: 'protobuf', tf: 'terraform',
  nix: 'nix', cmake: 'cmake', gradle: 'gradle',
};

const NAMED: Record<string, string> = { Dockerfile: 'dockerfile', Makefile: 'make', Justfile: 'just', Rakefile: 'ruby', Gemfile: 'ruby' };

const SHEBANG: [RegExp, LanguageOf][] = [
  [/\b(node|nodejs)\b/, { name: 'javascript', grammar: 'javascript' }],
  [/\b(tsx|ts-node|deno|bun)\b/, { name: 'typescript', grammar: 'typescript' }],
  [/\bpython[0-9.]*\b/, { name: 'python', grammar: 'python' }],
  [/\b(bash|sh|zsh|dash|ksh)\b/, { name: 'shell' }],
  [/\bruby\b/, { name: 'ruby' }],
  [/\bperl\b/, { name: 'perl' }],
];

/** The language of a file: its extension, else its `#!` line, else its name; "text" when none tells. */
export function languageOf(path: string, text: string): LanguageOf {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
  if (PARSED[ext]) return PARSED[ext];
  if (WINDOWED[ext]) return { name: WINDOWED[ext] };
  if (text.startsWith('#!')) {
    const line = text.slice(0, text.indexOf('\n') >>> 0);
    for (const [re, lang] of SHEBANG) if (re.test(line)) return lang;
  }
  return { name: NAMED[base] ?? (ext || 'text') };
}

/** The language a file's name tells, or null when its name is not one of the tables above. */
export function namedLanguage(path: string): string | null {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
  return PARSED[ext]?.name ?? WINDOWED[ext] ?? NAMED[base] ?? null;
}

/** The grammars the given paths need (by extension only: a shebang is read when the file is). */
export function grammarsFor(paths: readonly string[]): Set<Grammar> {
  const out = new Set<Grammar>();
  for (const p of paths) {
    const g = languageOf(p, '').grammar;
    if (g) out.add(g);
  }
  return out;
}

/** Every language name the chunker gives a file (what the --lang filter knows), sorted. */
export const LANGUAGE_NAMES: readonly string[] = [
  ...new Set([...Object.values(PARSED).map((l) => l.name), ...Object.values(WINDOWED), ...Object.values(NAMED), 'text']),
].sort();

/** The files a code source reads by default: every extension and file name above. */
export const CODE_INCLUDE: readonly string[] = [
  `**/*.{${[...Object.keys(PARSED), ...Object.keys(WINDOWED)].join(',')}}`,
  `**/{${Object.keys(NAMED).join(',')}}`,
];

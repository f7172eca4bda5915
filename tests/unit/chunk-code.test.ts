import { beforeAll, describe, expect, it } from 'vitest';
import { codeChunker } from '../../src/chunking/code/index.ts';
import { CODE_EXCLUDES } from '../../src/chunking/code/excludes.ts';
import { pathMatcher } from '../../src/sources/match.ts';
import type { Chunk } from '../../src/core/types.ts';

const settings = { targetTokens: 200, overlap: 0.15 };
const chunker = codeChunker(settings);
const chunk = (path: string, text: string) => chunker.chunk({ path, text });
const bySymbol = (chunks: Chunk[], name: string) => chunks.find((c) => c.metadata.symbolName === name);
const lines = (text: string, c: Chunk) => text.split('\n').slice(c.startLine! - 1, c.endLine!).join('\n');

const TS = `import { readFileSync } from 'node:fs';
import type { Thing } from './thing.ts';

const LIMIT = 10;

/** Reads a config file and returns its lines. */
export function readLines(path: string): string[] {
  return readFileSync(path, 'utf8').split('\\n');
}

@Injectable()
export class Store {
  private readonly rows = new Map<string, number>();

  /** Adds one row, replacing any before it. */
  @Logged('debug')
  add(key: string, value: number): void {
    this.rows.set(key, value);
  }

  remove(key: string): boolean {
    return this.rows.delete(key);
  }
}

export interface Options {
  limit: number;
}

export type Mode = 'fast' | 'slow';

export enum Color {
  Red,
  Green,
}

export const sumOf = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
`;

describe('code chunker: files whose grammar is not loaded yet', () => {
  // First in this file: the grammars load once per process, so this runs before any prepare.
  it('falls back to line windows with the reason, never fails', () => {
    const doc = chunk('main.go', 'package main\n\nfunc main() {\n}\n');
    expect(doc.metadata.fallback).toMatch(/tree-sitter grammar go was not loaded/);
    expect(doc.chunks.map((c) => c.content).join('\n')).toContain('func main()');
    expect(doc.chunks[0]!.metadata).toMatchObject({ language: 'go', startLine: 1 });
  });
});

describe('code chunker', () => {
  it('loads the grammars the paths need', async () => {
    await chunker.prepare!(['a.ts', 'b.tsx', 'c.js', 'd.py', 'e.go', 'f.rs', 'README.md']);
  });

  it('TypeScript: a chunk per symbol, methods under their class, decorators, doc comments and export in range', () => {
    const { chunks, metadata } = chunk('src/store.ts', TS);
    expect(metadata).toEqual({ language: 'typescript' });
    const read = bySymbol(chunks, 'readLines')!;
    expect(read.metadata).toMatchObject({ symbolType: 'function', parentSymbol: null, startLine: 6, endLine: 9, language: 'typescript' });
    expect(read.content.startsWith('/** Reads a config file')).toBe(true);
    expect(read.metadata.signature).toBe('export function readLines(path: string): string[]');
    // The embedded text: signature and the name's words first, then doc comment and body; the path is in the heading.
    expect(read.text.startsWith('export function readLines(path: string): string[]\nread lines\n\n/** Reads')).toBe(true);
    expect(read.text).not.toContain('src/store.ts');
    expect(read.heading).toBe('src/store.ts › readLines');

    const cls = chunks.find((c) => c.metadata.symbolName === 'Store' && c.metadata.symbolType === 'class')!;
    expect(cls.startLine).toBe(11); // the decorator line
    expect(cls.content).toContain('@Injectable()');
    expect(cls.content).toContain('private readonly rows');
    const add = bySymbol(chunks, 'add')!;
    expect(add.metadata).toMatchObject({ symbolType: 'method', parentSymbol: 'Store' });
    expect(add.content).toContain("@Logged('debug')");
    expect(add.content).toContain('/** Adds one row');
    expect(add.text.startsWith('export class Store\n')).toBe(true);
    expect(add.key).toBe('src/store.ts#Store.add');

    expect(bySymbol(chunks, 'Options')!.metadata.symbolType).toBe('interface');
    expect(bySymbol(chunks, 'Mode')!.metadata.symbolType).toBe('type');
    expect(bySymbol(chunks, 'Color')!.metadata.symbolType).toBe('enum');
    expect(bySymbol(chunks, 'sumOf')!.metadata.symbolType).toBe('function');
    const imports = chunks.find((c) => c.metadata.symbolType === 'imports')!;
    expect(imports).toMatchObject({ startLine: 1, endLine: 2 });
    expect(chunks.find((c) => c.metadata.symbolType === 'module')!.content).toContain('const LIMIT = 10;');
    // The class's own chunk is its outline: header, fields, each method's first line.
    expect(cls.content).toContain('  add(key: string, value: number): void …');
    expect(cls.content).not.toContain('this.rows.set');
  });

  it('every chunk but a class outline is the exact lines it names', () => {
    for (const c of chunk('src/store.ts', TS).chunks) if (c.metadata.symbolType !== 'class') expect(c.content).toBe(lines(TS, c));
  });

  it('a large function is cut at statement ends with its signature repeated (its name\'s words in the head part only), and no line is dropped', () => {
    const body = Array.from({ length: 60 }, (_, i) => `  const v${i} = compute(${i}, 'some argument text to make the line longer');`).join('\n');
    const text = `export async function bigOne(a: number, b: string): Promise<void> {\n${body}\n}\n`;
    const { chunks } = chunk('big.ts', text);
    expect(chunks.length).toBeGreaterThan(2);
    chunks.forEach((c, i) => {
      expect(c.metadata).toMatchObject({ symbolName: 'bigOne', part: i + 1, parts: chunks.length });
      const header = `export async function bigOne(a: number, b: string): Promise<void>\n${i === 0 ? 'big one\n' : ''}\n`;
      expect(c.text.startsWith(header)).toBe(true);
    });
    // Contiguous, covering every line, each cut after a whole statement.
    expect(chunks[0]!.startLine).toBe(1);
    for (let i = 1; i < chunks.length; i++) expect(chunks[i]!.startLine).toBe(chunks[i - 1]!.endLine! + 1);
    expect(chunks.at(-1)!.endLine).toBe(62);
    expect(chunks.map((c) => c.content).join('\n')).toBe(text.trimEnd());
    for (const c of chunks.slice(0, -1)) expect(c.content.endsWith(';')).toBe(true);
  });

  it('small neighbours are packed; a pack never mixes symbol kinds', () => {
    const text = Array.from({ length: 12 }, (_, i) => `export function f${i}(): number {\n  return ${i};\n}\n`).join('\n');
    const { chunks } = chunk('small.ts', text);
    expect(chunks.length).toBeLessThan(12);
    expect(chunks.some((c) => (c.metadata.symbols as string[] | undefined)?.length)).toBe(true);
    expect(chunks.flatMap((c) => (c.metadata.symbols as string[] | undefined) ?? [c.metadata.symbolName])).toEqual(
      Array.from({ length: 12 }, (_, i) => `f${i}`),
    );
  });

  it('a pack names every symbol it holds: its heading, and its text leads with each name\'s words', () => {
    const text = ['getCachedResult', 'setCachedResult', 'clearCache'].map((n) => `export function ${n}(): void {\n  run();\n}\n`).join('\n');
    const packs = chunk('cache.ts', text).chunks.filter((c) => ((c.metadata.symbols as string[] | undefined)?.length ?? 0) > 1);
    expect(packs.length).toBeGreaterThan(0);
    for (const p of packs) {
      const names = p.metadata.symbols as string[];
      expect(p.heading).toBe(`cache.ts › ${names.join(', ')}`);
      for (const n of names) expect(p.text.split('\n\n')[0]).toContain(n.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase());
    }
  });

  it('Python: decorated classes and methods, docstrings', () => {
    const py = `import os\n\n\n@dataclass\nclass Index:\n    """An index of files."""\n\n    root: str\n\n    @staticmethod\n    def scan(path):\n        """Lists the files under path."""\n        return os.listdir(path)\n\n\ndef main():\n    print(Index.scan("."))\n`;
    const { chunks } = chunk('tool/index.py', py);
    const cls = chunks.find((c) => c.metadata.symbolType === 'class')!;
    expect(cls).toMatchObject({ startLine: 4, metadata: { symbolName: 'Index', language: 'python' } });
    const scan = bySymbol(chunks, 'scan')!;
    expect(scan.metadata).toMatchObject({ symbolType: 'method', parentSymbol: 'Index', startLine: 10, endLine: 13 });
    expect(scan.content).toContain('@staticmethod');
    expect(bySymbol(chunks, 'main')!.metadata.symbolType).toBe('function');
  });

  it('Go: methods belong to their receiver type; structs and interfaces', () => {
    const go = `package store\n\nimport "fmt"\n\n// Store keeps rows.\ntype Store struct {\n\trows map[string]int\n}\n\ntype Reader interface {\n\tRead() int\n}\n\n// Add adds a row.\nfunc (s *Store) Add(k string, v int) {\n\ts.rows[k] = v\n\tfmt.Println(k)\n}\n`;
    const { chunks } = chunk('store.go', go);
    expect(bySymbol(chunks, 'Store')!.metadata).toMatchObject({ symbolType: 'class', startLine: 5 });
    expect(bySymbol(chunks, 'Reader')!.metadata.symbolType).toBe('interface');
    expect(bySymbol(chunks, 'Add')!.metadata).toMatchObject({ symbolType: 'method', parentSymbol: 'Store', startLine: 14, endLine: 18 });
  });

  it('Rust: impl blocks as parents, attributes and doc comments in range', () => {
    const rs = `use std::fmt;\n\n/// A point.\n#[derive(Debug)]\npub struct Point {\n    x: i32,\n}\n\nimpl Point {\n    /// Makes one.\n    pub fn new(x: i32) -> Self {\n        Point { x }\n    }\n}\n\nfn main() {\n    println!("{:?}", Point::new(1));\n}\n`;
    const { chunks } = chunk('src/main.rs', rs);
    expect(bySymbol(chunks, 'Point')!.metadata).toMatchObject({ symbolType: 'class', startLine: 3, endLine: 7 });
    expect(bySymbol(chunks, 'new')!.metadata).toMatchObject({ symbolType: 'method', parentSymbol: 'Point', startLine: 10, endLine: 13 });
    expect(bySymbol(chunks, 'main')!.metadata.symbolType).toBe('function');
  });

  it('JavaScript, TSX, and a shebang script without extension', () => {
    expect(bySymbol(chunk('a.mjs', 'export default function handler(req) {\n  return req;\n}\n').chunks, 'handler')!.metadata.language).toBe('javascript');
    const tsx = chunk('App.tsx', 'export function App(): JSX.Element {\n  return <div className="x">hi</div>;\n}\n');
    expect(bySymbol(tsx.chunks, 'App')!.metadata).toMatchObject({ language: 'typescript', symbolType: 'function' });
    const script = chunk('bin/tool', '#!/usr/bin/env node\nfunction run() {\n  return 1;\n}\nrun();\n');
    expect(script.metadata.language).toBe('javascript');
    expect(bySymbol(script.chunks, 'run')).toBeDefined();
  });

  it('other text files: line windows cut at blank lines, with line ranges', () => {
    const text = Array.from({ length: 40 }, (_, i) => `key${i}: ${'value '.repeat(8)}\n${i % 5 === 4 ? '\n' : ''}`).join('');
    const { chunks, metadata } = chunk('conf/app.yaml', text);
    expect(metadata.language).toBe('yaml');
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) expect(c.content).toBe(lines(text, c));
    const nonBlank = (t: string) => t.split('\n').filter((l) => l.trim());
    expect(nonBlank(chunks.map((c) => c.content).join('\n'))).toEqual(nonBlank(text));
  });

  it('a file the grammar cannot make sense of still gives every line', () => {
    const junk = 'function (((( {{{ \n'.repeat(30);
    const doc = chunk('broken.ts', junk);
    expect(doc.chunks.length).toBeGreaterThan(0);
    expect(doc.chunks.map((c) => c.content).join('\n')).toBe(junk.replace(/\n$/, ''));
  });

  it('skips lock files, minified bundles, source maps, dependency folders and generated files, each with its reason', () => {
    expect(chunk('package-lock.json', '{}').metadata.skipped).toMatch(/lock file/);
    expect(chunk('node_modules/x/index.js', 'x').metadata.skipped).toMatch(/node_modules/);
    expect(chunk('web/app.min.js', 'x').metadata.skipped).toMatch(/minified/);
    expect(chunk('web/app.js.map', '{}').metadata.skipped).toMatch(/source map/);
    expect(chunk('gen/api.ts', '// Code generated by protoc. DO NOT EDIT.\nexport const x = 1;\n')).toMatchObject({ chunks: [], metadata: { skipped: 'generated: a "do not edit" header' } });
    expect(chunk('web/bundle.js', `var a=${'1+'.repeat(3000)}1;`).metadata.skipped).toMatch(/minified/);
    // A comment that mentions generation in passing is not a header.
    expect(chunk('src/gen.ts', 'export const tokensGenerated = 1; // auto-generated ids are fine\n').chunks.length).toBe(1);
    const listed = pathMatcher(['**/*'], [...CODE_EXCLUDES]);
    expect(['src/a.ts', 'lib/build.ts'].filter(listed)).toEqual(['src/a.ts', 'lib/build.ts']);
    expect(['node_modules/a/b.js', 'dist/a.js', 'pkg/vendor/x.go', 'yarn.lock', 'a.min.js', 'coverage/lcov.info', 'app.js.map'].filter(listed)).toEqual([]);
  });
});

describe('a code source run', () => {
  it('logs each file it does not chunk, with the reason, and indexes the rest', async () => {
    const { mkdirSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { default: pino } = await import('pino');
    const { parseConfig } = await import('../../src/builtin.ts');
    const { runIndex } = await import('../../src/engine/library.ts');
    const { tempDir } = await import('../helpers/tmp.ts');
    const t = tempDir('ragsync-code-log-');
    try {
      mkdirSync(join(t.dir, 'repo', 'gen'), { recursive: true });
      mkdirSync(join(t.dir, 'repo', 'node_modules', 'x'), { recursive: true });
      writeFileSync(join(t.dir, 'repo', 'main.ts'), 'export function main(): number {\n  return 1;\n}\n');
      writeFileSync(join(t.dir, 'repo', 'gen', 'api.ts'), '// Code generated by a tool. DO NOT EDIT.\nexport const x = 1;\n');
      writeFileSync(join(t.dir, 'repo', 'node_modules', 'x', 'index.js'), 'module.exports = 1;\n');
      writeFileSync(join(t.dir, 'repo', 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0]));
      const lines: { msg: string; path?: string }[] = [];
      const log = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
      const config = parseConfig({ db: join(t.dir, 'index.db'), embedder: { provider: 'hash', dims: 64 }, sources: [{ name: 'repo', kind: 'dir', path: join(t.dir, 'repo'), chunker: 'code' }] });
      const r = await runIndex(config, { log });
      expect(r.status).toBe('ok');
      expect(r.sources[0]!.planned.documents.added).toBe(2); // main.ts and the generated file (recorded, no chunks); node_modules and the image are not listed
      expect(lines.find((l) => l.path === 'gen/api.ts')?.msg).toBe('not chunked: generated: a "do not edit" header');
      expect(r.sources[0]!.planned.chunks).toBe(1);
    } finally {
      t.cleanup();
    }
  });
});

describe('code chunker: Markdown in a repository', () => {
  it('is chunked by heading, as the markdown chunker does, with its language', () => {
    const md = '# Guide\n\n## Install\n\nRun npm install.\n\n## Use\n\nRun the CLI.\n';
    const doc = codeChunker(settings).chunk({ path: 'docs/guide.md', text: md });
    expect(doc.title).toBe('Guide');
    expect(doc.chunks.map((c) => c.heading)).toEqual(['Guide › Install', 'Guide › Use']);
    expect(doc.chunks.every((c) => c.metadata.language === 'markdown')).toBe(true);
  });
});

describe('code chunks: doc comments and dependencies', () => {
  beforeAll(() => chunker.prepare!(['a.ts', 'a.py', 'a.go', 'a.rs']));

  it('TypeScript: the doc comment above a symbol without its markers; the modules whose imported names a chunk uses', () => {
    const ts = [
      "import { readFileSync } from 'node:fs';",
      "import * as path from 'node:path';",
      "import type { Store } from './store.js';",
      "import './side-effect.js';",
      '',
      '/**',
      ' * Reads a config file.',
      ' * Returns null when missing.',
      ' */',
      'export function readConfig(p: string): string {',
      '  return readFileSync(path.resolve(p), "utf8");',
      '}',
      '',
      '// Opens the store.',
      'export function open(s: Store): Store {',
      '  return s;',
      '}',
    ].join('\n');
    const { chunks } = chunk('a.ts', ts);
    const read = chunks.find((c) => c.metadata.symbolName === 'readConfig')!;
    expect(read.metadata.docComment).toBe('Reads a config file.\nReturns null when missing.');
    expect(read.metadata.dependencies).toEqual(['node:fs', 'node:path']);
    const open = chunks.find((c) => c.metadata.symbolName === 'open')!;
    expect(open.metadata.docComment).toBe('Opens the store.');
    expect(open.metadata.dependencies).toEqual(['./store.js']);
    // The imports chunk is the imports themselves; the embedded text is unchanged by either field.
    expect(chunks.find((c) => c.metadata.symbolType === 'imports')!.metadata.dependencies).toBeUndefined();
    expect(read.text).not.toContain('dependencies');
  });

  it('Python: a docstring, a leading comment, and from/import forms', () => {
    const py = 'import os.path as osp\nfrom typing import (List,\n  Optional as Opt)\nimport json\n\n\ndef load(p) -> Opt[List[str]]:\n    """Loads the list."""\n    return json.loads(open(osp.join(p)).read())\n';
    const load = chunk('a.py', py).chunks.find((c) => c.metadata.symbolName === 'load')!;
    expect(load.metadata.docComment).toBe('Loads the list.');
    expect(load.metadata.dependencies).toEqual(['os.path', 'typing', 'json']);
    const hello = chunk('b.py', 'import json\n\n# Says hello.\ndef hello():\n    print("hi")\n').chunks.find((c) => c.metadata.symbolName === 'hello')!;
    expect(hello.metadata.docComment).toBe('Says hello.');
    expect(hello.metadata.dependencies).toBeUndefined();
  });

  it('Go and Rust imports', () => {
    const go = 'package main\n\nimport (\n\t"fmt"\n\tstr "strings"\n)\n\n// Shout prints loudly.\nfunc Shout(s string) {\n\tfmt.Println(str.ToUpper(s))\n}\n';
    const shout = chunk('a.go', go).chunks.find((c) => c.metadata.symbolName === 'Shout')!;
    expect(shout.metadata).toMatchObject({ docComment: 'Shout prints loudly.', dependencies: ['fmt', 'strings'] });
    const rs = 'use std::collections::{HashMap, HashSet};\nuse std::fmt;\n\n/// Counts words.\nfn count(s: &str) -> HashMap<String, usize> {\n    HashMap::new()\n}\n';
    const count = chunk('a.rs', rs).chunks.find((c) => c.metadata.symbolName === 'count')!;
    expect(count.metadata).toMatchObject({ docComment: 'Counts words.', dependencies: ['std::collections'] });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { parseConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import { sha256 } from '../../src/core/hash.ts';
import { Searcher } from '../../src/search/search.ts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMcpServer } from '../../src/mcp/server.ts';
import { createCodeSearchTool, createDocSearchTool } from '../../src/ai/index.ts';
import { needCorpora } from '../helpers/corpora.ts';
import { index, snapshotDb } from '../helpers/index-fixture.ts';
import { CORPORA, REPO_ROOT, tempDir } from '../helpers/tmp.ts';
import { openSearcher } from '../../src/engine/library.ts';

const corpora = needCorpora('code.bundle');
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

interface Row { path: string; key: string; content: string; hash: string; symbolType: string | null; symbols: string | null; part: number | null; startLine: number | null; endLine: number | null }
function rows(db: string): Row[] {
  const d = new BetterSqlite3(db, { readonly: true });
  try {
    return d
      .prepare(
        `SELECT d.path, c.key, c.content, c.text_hash AS hash, json_extract(c.metadata, '$.symbolType') AS symbolType,
           json_extract(c.metadata, '$.symbols') AS symbols, json_extract(c.metadata, '$.part') AS part,
           c.start_line AS startLine, c.end_line AS endLine
         FROM chunks c JOIN documents d ON d.id = c.document_id ORDER BY d.path, c.ordinal`,
      )
      .all() as Row[];
  } finally {
    d.close();
  }
}

// qmd's history (first parent, oldest first): 85a6403 → 40fb36f (7 files) → e04b1a9 (src/store.ts and a test).
const START = '85a6403';
const STEPS = ['40fb36f', 'e04b1a9'];

describe.runIf(corpora.ok)(corpora.title('code source over code.bundle (tobi/qmd)'), () => {
  const t = tempDir('ragsync-code-');
  let bare: string;
  let work: string;
  let config: Config;
  beforeAll(() => {
    bare = join(t.dir, 'qmd.git');
    work = join(t.dir, 'work');
    git(t.dir, 'clone', '--quiet', '--bare', join(CORPORA, 'code.bundle'), bare);
    git(bare, 'update-ref', 'refs/heads/main', START);
    config = parseConfig({
      db: join(t.dir, 'index.db'),
      embedder: { provider: 'hash', dims: 256 },
      sources: [{ name: 'qmd', kind: 'git', url: bare, chunker: 'code' }],
    });
  });
  afterAll(t.cleanup);

  it('indexes an older commit: symbols with line ranges, build output and lock files left out', async () => {
    const r = await index(config);
    expect(r.status).toBe('ok');
    const all = rows(config.db);
    const paths = new Set(all.map((c) => c.path));
    expect([...paths].some((p) => p.endsWith('.ts'))).toBe(true);
    expect([...paths].some((p) => p.endsWith('.py'))).toBe(true);
    expect([...paths].filter((p) => /(^|\/)(node_modules|dist)\/|\.lock$|package-lock\.json$/.test(p))).toEqual([]);
    const types = new Set(all.map((c) => c.symbolType));
    for (const ty of ['function', 'method', 'class', 'interface', 'type', 'imports']) expect(types, ty).toContain(ty);
    for (const c of all) {
      expect(c.startLine, c.key).toBeGreaterThan(0);
      expect(c.endLine!).toBeGreaterThanOrEqual(c.startLine!);
    }
  }, 120_000);

  it('advancing commit by commit embeds only the texts of symbols that changed', async () => {
    for (const commit of STEPS) {
      const before = rows(config.db);
      const vectorsBefore = snapshotDb(config.db).vectorHashes;
      git(bare, 'update-ref', 'refs/heads/main', commit);
      const r = await index(config);
      expect(r.status).toBe('ok');
      const after = rows(config.db);
      const sent = new Set(r.sent.map(sha256));
      // Exactly the new distinct texts, nothing else.
      expect([...sent].sort()).toEqual([...new Set(after.map((c) => c.hash))].filter((h) => !vectorsBefore.has(h)).sort());
      const changed = new Set(r.sources[0]!.plan!.write.map((w) => w.doc.path));
      const inChanged = after.filter((c) => changed.has(c.path));
      // A symbol whose code is as it was keeps its text: its key and content give the same hash.
      const old = new Map(before.map((c) => [`${c.path}\u0000${c.key}\u0000${c.content}`, c.hash]));
      let kept = 0;
      for (const c of inChanged) {
        const h = old.get(`${c.path}\u0000${c.key}\u0000${c.content}`);
        if (h !== undefined) {
          expect(c.hash, c.key).toBe(h);
          expect(sent.has(c.hash)).toBe(false);
          kept++;
        }
      }
      // Far fewer texts than a file-level re-index of the changed files would embed.
      expect(kept).toBeGreaterThan(0);
      expect(sent.size).toBeLessThan(inChanged.length / 2);
      console.log(`${commit}: ${changed.size} files changed, ${inChanged.length} chunks in them, ${sent.size} texts embedded`);
    }
  }, 120_000);

  it('a renamed file and a function moved to another file cost no embedding', async () => {
    git(t.dir, 'clone', '--quiet', '--branch', 'main', bare, work);
    git(work, 'config', 'user.email', 't@example.com');
    git(work, 'config', 'user.name', 't');
    const all = rows(config.db);
    const fileOf = (p: string) => all.filter((c) => c.path === p);
    // Rename: a TypeScript file with several symbols, moved to another folder under another name.
    const renamed = [...new Set(all.map((c) => c.path))].find((p) => p.startsWith('src/') && p.endsWith('.ts') && fileOf(p).length > 5)!;
    mkdirSync(join(work, 'moved'));
    git(work, 'mv', renamed, 'moved/renamed-file.ts');
    git(work, 'commit', '--quiet', '-m', 'rename');
    git(work, 'push', '--quiet', 'origin', 'main');
    let r = await index(config);
    expect(r.status).toBe('ok');
    expect(r.sources[0]!.written.documents.renamed).toBe(1);
    expect(r.sent).toEqual([]);
    expect(fileOf(renamed).map((c) => c.hash)).toEqual(rows(config.db).filter((c) => c.path === 'moved/renamed-file.ts').map((c) => c.hash));

    // Move: a whole function (its own chunk) cut from one file and appended to another.
    const fn = all.find((c) => c.symbolType === 'function' && !c.symbols && !c.part && c.path.endsWith('.ts') && c.path !== renamed && c.content.length > 600)!;
    const target = [...new Set(all.map((c) => c.path))].find((p) => p.endsWith('.ts') && p !== fn.path && p !== renamed)!;
    const src = readFileSync(join(work, fn.path), 'utf8').split('\n');
    const moved = src.splice(fn.startLine! - 1, fn.endLine! - fn.startLine! + 1);
    writeFileSync(join(work, fn.path), src.join('\n'));
    writeFileSync(join(work, target), `${readFileSync(join(work, target), 'utf8').trimEnd()}\n\n${moved.join('\n')}\n`);
    git(work, 'commit', '--quiet', '-am', 'move a function');
    git(work, 'push', '--quiet', 'origin', 'main');
    r = await index(config);
    expect(r.status).toBe('ok');
    const now = rows(config.db).filter((c) => c.path === target && c.content === fn.content);
    expect(now).toHaveLength(1);
    expect(now[0]!.hash).toBe(fn.hash);
    expect(r.sent.map(sha256)).not.toContain(fn.hash);
    // What changed around it (the module code it separated, a neighbour pack) is all that is embedded.
    expect(r.sent.length).toBeLessThanOrEqual(4);
  }, 120_000);
});

describe('this repository indexed as a code source', () => {
  const t = tempDir('ragsync-self-');
  let config: Config;
  beforeAll(async () => {
    config = parseConfig({
      db: join(t.dir, 'index.db'),
      embedder: { provider: 'hash', dims: 512 },
      sources: [{ name: 'ragsync', kind: 'dir', path: join(REPO_ROOT, 'src'), chunker: 'code' }],
    });
    expect((await index(config)).status).toBe('ok');
  }, 120_000);
  afterAll(t.cleanup);

  const QUESTIONS: [query: string, path: string, symbol: string][] = [
    ['locate line ranges for chunks', 'core/text/lines.ts', 'locateLines'],
    ['cut rows into ranges at statement ends', 'chunking/code/rows.ts', 'cut'],
    ['language of a file from its extension or shebang', 'chunking/code/languages.ts', 'languageOf'],
    ['load the tree-sitter grammars', 'chunking/code/grammars.ts', 'loadGrammars'],
    ['split camelCase identifiers into words', 'chunking/code/index.ts', 'nameWords'],
  ];
  it.each(QUESTIONS)('"%s" finds %s', async (query, path, symbol) => {
    const s = openSearcher(config);
    try {
      const hits = await s.search(query, { k: 5 });
      const hit = hits.find((h) => h.path === path && h.metadata.symbolName === symbol);
      expect(hit, hits.map((h) => `${h.path}:${h.startLine}-${h.endLine} ${h.metadata.symbolName}`).join('\n')).toBeDefined();
      expect(hit!.startLine).toBeGreaterThan(0);
      expect(hit!.fields).toMatchObject({ symbol, language: 'typescript', lines: `${hit!.startLine}-${hit!.endLine}` });
    } finally {
      await s.close();
    }
  });

  it('filters by language, symbol type and path glob', async () => {
    const s = openSearcher(config);
    try {
      const hits = await s.search('open the index database', { k: 10, filters: { lang: 'typescript', 'symbol-type': 'function' }, path: 'storage/**' });
      expect(hits.length).toBeGreaterThan(0);
      for (const h of hits) {
        expect(h.path.startsWith('storage/')).toBe(true);
        expect(h.metadata).toMatchObject({ language: 'typescript', symbolType: 'function' });
      }
    } finally {
      await s.close();
    }
  });
});

describe('codeSearch and docSearch tools (AI SDK and MCP)', () => {
  const t = tempDir('ragsync-tools-');
  let config: Config;
  let searcher: Searcher;
  beforeAll(async () => {
    config = parseConfig({
      db: join(t.dir, 'index.db'),
      embedder: { provider: 'hash', dims: 256 },
      sources: [
        { name: 'ragsync', kind: 'dir', path: join(REPO_ROOT, 'src', 'chunking'), chunker: 'code' },
        { name: 'notes', kind: 'dir', path: join(REPO_ROOT, 'eval') },
      ],
    });
    expect((await index(config)).status).toBe('ok');
    searcher = openSearcher(config);
  }, 60_000);
  afterAll(async () => {
    await searcher.close();
    t.cleanup();
  });
  const opts = { toolCallId: 'x', messages: [] };

  it('AI SDK: codeSearch returns path:start-end, symbol and signature; filters by language, symbol type and path', async () => {
    const code = createCodeSearchTool(searcher);
    const hits = (await code.execute!({ query: 'load the tree-sitter grammars', symbolType: 'function', filePatterns: ['code/**'], languages: ['typescript'], k: 5 }, opts)) as {
      location: string; symbol: string; symbolType: string; path: string; language: string; signature: string; startLine: number;
    }[];
    const hit = hits.find((h) => h.symbol === 'loadGrammars')!;
    expect(hit).toMatchObject({ path: 'code/grammars.ts', symbolType: 'function', language: 'typescript' });
    expect(hit.location).toBe(`code/grammars.ts:${hit.startLine}-${(hit as unknown as { endLine: number }).endLine}`);
    expect(hit.signature).toMatch(/^export async function loadGrammars\(/);
    for (const h of hits) expect(h).toMatchObject({ symbolType: 'function', language: 'typescript' });
    expect((await code.execute!({ query: 'grammars', languages: ['python'] }, opts)) as unknown[]).toEqual([]);
  });

  it('AI SDK: docSearch covers the other sources and names unknown ones', async () => {
    const docs = createDocSearchTool(searcher);
    const hits = (await docs.execute!({ query: 'hit@1 and MRR@10 per kind', k: 3 }, opts)) as { source: string; path: string }[];
    expect(hits[0]).toMatchObject({ source: 'notes', path: 'README.md' });
    await expect(docs.execute!({ query: 'x', sources: ['ragsync'] }, opts)).rejects.toThrow(/not a documentation source: ragsync/);
  });

  it('MCP: the same tools, listed beside search and related', async () => {
    const server = createMcpServer(searcher, '0.0.0');
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 't', version: '1' });
    await Promise.all([server.connect(a), client.connect(b)]);
    try {
      expect((await client.listTools()).tools.map((x) => x.name).sort()).toEqual(['codeSearch', 'docSearch', 'related', 'search']);
      const r = (await client.callTool({ name: 'codeSearch', arguments: { query: 'cut rows into ranges at statement ends', k: 3 } })) as { content: { text: string }[] };
      const results = JSON.parse(r.content[0]!.text).results as { symbol: string; location: string }[];
      expect(results.some((x) => x.symbol === 'cut' && /^code\/rows\.ts:\d+-\d+$/.test(x.location))).toBe(true);
    } finally {
      await client.close();
    }
  });
});

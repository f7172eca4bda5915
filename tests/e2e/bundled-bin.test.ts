// The installed command, `node bin/ragsync.js` (the bundle and code caches `npm run build` writes
// to dist/bundle/), against the same command lines run from the sources: the same stdout, byte for
// byte, and the same exit code. Every other CLI test runs the sources, so this file is what catches
// a bundle that differs from them (a module the bundler resolved otherwise, a vendor file that does
// not load, a code cache that runs code the bundle no longer holds). There must be a build: without
// one every case fails saying to run `npm run build` (CI's `npm ci` builds through `prepare`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeProvider } from '../helpers/fake-provider.ts';
import { Upstream } from '../helpers/upstream.ts';
import { REPO_ROOT, tempDir } from '../helpers/tmp.ts';
import { assertBuilt, BUNDLE_DIR, FROM_BIN, FROM_SOURCES, runBin, runCli, runNode, type CliResult } from '../helpers/cli.ts';

let t: ReturnType<typeof tempDir>;
let up: Upstream;
/** One index, made by the bin's `index`, that every later command reads. */
let cfg: string;

const KEY = 'sk-bin-test-0123456789abcdef';
const DIMS = 16;
let fake: FakeProvider;

function writeConfig(name: string, db: string, embedder?: Record<string, unknown>): string {
  const file = join(t.dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ db, ...(embedder && { embedder }), sources: [{ name: 'docs', kind: 'git', url: up.bare, include: ['**/*.md'] }] }));
  return file;
}

beforeAll(async () => {
  assertBuilt();
  t = tempDir('ragsync-bin-');
  up = new Upstream(join(t.dir, 'up'));
  up.write('guide/甲木.md', '# 甲木\n\n## 正月\n\n正月甲木，初春尚有余寒，得丙火温暖，癸水滋润。\n\n## 二月\n\n二月甲木，阳刃架杀，先用庚金。\n')
    .write('notes/retry.md', '# Retry\n\nRetry with exponential backoff and jitter; honour Retry-After.\n\n## Budgets\n\nA retry budget caps the extra load, "quoted", with commas.\n')
    .write('notes/sqlite.md', '# SQLite\n\nSQLite with WAL mode gives concurrent readers; FTS5 gives full text search.\n')
    .commit('init');
  cfg = writeConfig('hash', join(t.dir, 'bin.db'));
  fake = await FakeProvider.start({ dims: DIMS, apiKey: KEY });
});
afterAll(async () => {
  await fake?.close();
  t?.cleanup();
});

/** The same command line from the sources and through the bin, at once. */
const both = (args: string[], env: Record<string, string> = {}) => Promise.all([runCli(args, env), runBin(args, env)]);

function expectSame([src, bin]: CliResult[], opts: { stderr?: boolean; normalise?: (stdout: string) => string } = {}): void {
  expect(src!.code, src!.stderr).toBe(bin!.code);
  const n = opts.normalise ?? ((s: string) => s);
  expect(n(bin!.stdout)).toBe(n(src!.stdout));
  if (opts.stderr) expect(bin!.stderr).toBe(src!.stderr);
}

describe('the bundled bin prints what the sources print', () => {
  it('--version, --help, search --help', async () => {
    for (const args of [['--version'], ['--help'], ['search', '--help']]) {
      const r = await both(args);
      expect(r[1]!.code, args.join(' ')).toBe(0);
      expect(r[1]!.stdout.length).toBeGreaterThan(0);
      expectSame(r, { stderr: true });
    }
  });

  it('an unknown command and a bad option: exit 2 and the same error on stderr', async () => {
    for (const args of [['frobnicate'], ['search', 'x', '--frob']]) {
      const r = await both(args);
      expect(r[1]!.code, args.join(' ')).toBe(2);
      expect(r[1]!.stderr).toMatch(/^error: unknown (command 'frobnicate'|option '--frob')/);
      expectSame(r, { stderr: true });
    }
  });

  it('index of a git repository (the same summary but for durationMs, a time) and the same index', async () => {
    const srcCfg = writeConfig('hash-src', join(t.dir, 'src.db'));
    const [src, bin] = await Promise.all([runCli(['index', '-c', srcCfg, '--json']), runBin(['index', '-c', cfg, '--json'])]);
    expect(bin.code, bin.stderr).toBe(0);
    expect(src.code, src.stderr).toBe(0);
    const strip = (s: string) => {
      const o = JSON.parse(s) as Record<string, unknown>;
      expect(typeof o.durationMs).toBe('number');
      delete o.durationMs;
      return o;
    };
    expect(strip(bin.stdout)).toEqual(strip(src.stdout));
    expect(JSON.parse(bin.stdout)).toMatchObject({ status: 'ok', embedded: 5 });
    // Both indexes hold the same chunks: the bin's writes are the sources' writes.
    const [a, b] = await Promise.all([runBin(['export', '-c', srcCfg]), runBin(['export', '-c', cfg])]);
    expect(a.stdout.trim().split('\n')).toHaveLength(5);
    expect(b.stdout).toBe(a.stdout);
  });

  it('search in the three modes as JSON (with --explain) and as text; related', async () => {
    const runs = [
      ...['hybrid', 'vector', 'keyword'].map((mode) => ['search', 'retry backoff', '-c', cfg, '--mode', mode, '--json', '--explain']),
      ['search', '甲木 丙火', '-c', cfg, '--explain'],
      ['related', 'notes/retry.md', '-c', cfg, '--json'],
    ];
    const results = await Promise.all(runs.map((args) => both(args)));
    results.forEach((r, i) => {
      expect(r[1]!.code, `${runs[i]!.join(' ')}\n${r[1]!.stderr}`).toBe(0);
      expect(r[1]!.stdout.length).toBeGreaterThan(0);
      // --explain's stage times differ from run to run; what each stage did does not.
      expectSame(r, { normalise: (s) => s.replace(/^(stage \S+) +\d+\.\d\d ms/gm, '$1 # ms') });
    });
    for (const r of results.slice(0, 3)) expect(JSON.parse(r[1]!.stdout)[0]).toMatchObject({ path: 'notes/retry.md' });
  });

  it('status, as text and as JSON, but for the age of the last run (a time: "#1 4s ago", lastSuccessAgeMs)', async () => {
    const age = (s: string) => s.replace(/(#\d+\)? (was )?)[\dsmhd ]+ ago/g, '$1<age> ago').replace(/"lastSuccessAgeMs":\d+/g, '"lastSuccessAgeMs":0');
    for (const args of [['status', '-c', cfg], ['status', '-c', cfg, '--json']]) {
      const r = await both(args);
      expect(r[1]!.code, r[1]!.stderr).toBe(0);
      expect(age(r[1]!.stdout)).toContain('#1 <age> ago');
      expectSame(r, { normalise: age });
    }
  });

  it('export as JSON lines and CSV (vendor/csv-stringify.cjs) on stdout, Parquet (vendor/hyparquet-writer.cjs) read back', async () => {
    // NODE_DEBUG=module: Node names each CommonJS file it loads: each format loads its vendor file, and only it.
    const vendorFiles = (stderr: string) => [...new Set(stderr.match(/vendor[\\/][\w-]+\.cjs/g) ?? [])].map((f) => f.slice(7));
    const cases: [string[], string[]][] = [
      [['export', '-c', cfg, '--vectors'], []],
      [['export', '-c', cfg, '--format', 'csv', '--vectors'], ['csv-stringify.cjs']],
    ];
    for (const [args, vendor] of cases) {
      const r = await Promise.all([runCli(args), runBin(args, { NODE_DEBUG: 'module' })]);
      expect(r[1]!.code, r[1]!.stderr).toBe(0);
      expect(r[1]!.stdout.trim().split('\n').length).toBeGreaterThan(4);
      expect(vendorFiles(r[1]!.stderr)).toEqual(vendor);
      expectSame(r);
    }
    const out = (who: string) => join(t.dir, `${who}.parquet`);
    const r = await Promise.all([
      runCli(['export', '-c', cfg, '--format', 'parquet', '--vectors', '--out', out('src')]),
      runBin(['export', '-c', cfg, '--format', 'parquet', '--vectors', '--out', out('bin')], { NODE_DEBUG: 'module' }),
    ]);
    expectSame(r);
    expect(r[1]!.code, r[1]!.stderr).toBe(0);
    expect(vendorFiles(r[1]!.stderr)).toEqual(['hyparquet-writer.cjs']);
    const read = async (file: string) => {
      const bytes = readFileSync(file);
      const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
      return { meta: parquetMetadata(ab).key_value_metadata, rows: (await parquetReadObjects({ file: ab })) as Record<string, unknown>[] };
    };
    const [src, bin] = await Promise.all([read(out('src')), read(out('bin'))]);
    expect(bin.rows).toHaveLength(5);
    expect(Object.keys(bin.rows[0]!).sort()).toEqual(['content', 'heading', 'id', 'metadata', 'path', 'source', 'textHash', 'vector']);
    expect(bin.rows).toEqual(src.rows);
    expect(bin.meta).toEqual(src.meta);
  });

  it('eval, its report and its ranked results file', async () => {
    const file = join(t.dir, 'eval.jsonl');
    writeFileSync(
      file,
      [
        { id: 'q1', query: '甲木 丙火', kind: 'term', gold: [{ path: 'guide/甲木.md', evidence: ['丙火'] }] },
        { id: 'q2', query: 'retry budget', kind: 'question', gold: [{ path: 'notes/retry.md', evidence: [] }] },
        { id: 'q3', query: 'WAL readers', kind: 'question', gold: [{ path: 'notes/sqlite.md', evidence: ['nowhere'] }] },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    );
    const res = (who: string) => join(t.dir, `eval-${who}.jsonl`);
    const r = await Promise.all([
      runCli(['eval', file, '-c', cfg, '--json', '--results', res('src')]),
      runBin(['eval', file, '-c', cfg, '--json', '--results', res('bin')]),
    ]);
    expect(r[1]!.code, r[1]!.stderr).toBe(0);
    expectSame(r);
    expect(JSON.parse(r[1]!.stdout).overall.queries).toBe(3);
    expect(readFileSync(res('bin'), 'utf8')).toBe(readFileSync(res('src'), 'utf8'));
  });

  it('a remote embedder (vendor/undici.cjs) against a provider on 127.0.0.1: index and search', async () => {
    const embedder = { provider: 'openai-compatible', baseUrl: fake.baseUrl, model: 'fake-model', dimensions: DIMS, apiKeyEnv: 'RAGSYNC_FAKE_KEY', timeoutMs: 5000 };
    const env = { RAGSYNC_FAKE_KEY: KEY };
    const binCfg = writeConfig('remote-bin', join(t.dir, 'remote-bin.db'), embedder);
    const srcCfg = writeConfig('remote-src', join(t.dir, 'remote-src.db'), embedder);
    // NODE_DEBUG=module: Node names each CommonJS file it loads, so the bin shows it loaded the vendor file.
    const [src, bin] = await Promise.all([runCli(['index', '-c', srcCfg, '--json'], env), runBin(['index', '-c', binCfg, '--json'], { ...env, NODE_DEBUG: 'module' })]);
    expect(bin.code, bin.stderr).toBe(0);
    expect(src.code, src.stderr).toBe(0);
    expect(bin.stderr).toMatch(/dist[\\/]bundle[\\/]vendor[\\/]undici\.cjs/);
    expect(bin.stderr).not.toMatch(/vendor[\\/](csv-stringify|hyparquet-writer)\.cjs/);
    const strip = (s: string) => ({ ...(JSON.parse(s) as object), durationMs: 0 });
    expect(strip(bin.stdout)).toEqual(strip(src.stdout));
    expect(JSON.parse(bin.stdout)).toMatchObject({ status: 'ok', fingerprint: `openai-compatible:fake-model:${DIMS}`, embedded: 5 });
    const seen = fake.requests.length;
    const r = await both(['search', 'retry backoff', '-c', binCfg, '--json', '--mode', 'vector'], env);
    expect(r[1]!.code, r[1]!.stderr).toBe(0);
    expect(JSON.parse(r[1]!.stdout)).toHaveLength(5);
    expectSame(r);
    // Each search embedded its query at the provider.
    expect(fake.requests.length - seen).toBe(2);
    expect(fake.requests.every((q) => q.status === 200)).toBe(true);
  });

  it('mcp over stdio: initialize, tools/list and a search call answer as from the sources', async () => {
    const connect = async (nodeArgs: readonly string[]) => {
      const client = new Client({ name: 'ragsync-bin-test', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [...nodeArgs, 'mcp', '-c', cfg], cwd: REPO_ROOT, stderr: 'pipe' }));
      return client;
    };
    const [src, bin] = await Promise.all([connect(FROM_SOURCES), connect(FROM_BIN)]);
    try {
      expect(bin.getServerVersion()).toEqual(src.getServerVersion());
      expect(bin.getServerCapabilities()).toEqual(src.getServerCapabilities());
      const [srcTools, binTools] = await Promise.all([src.listTools(), bin.listTools()]);
      expect(binTools.tools.map((x) => x.name).sort()).toEqual(['docSearch', 'related', 'search']);
      expect(binTools).toEqual(srcTools);
      const call = { name: 'search', arguments: { query: 'retry backoff', k: 2 } };
      const [a, b] = await Promise.all([src.callTool(call), bin.callTool(call)]);
      expect(b.isError).toBeFalsy();
      expect((JSON.parse((b.content as { text: string }[])[0]!.text) as { results: { path: string }[] }).results[0]!.path).toBe('notes/retry.md');
      expect(b).toEqual(a);
    } finally {
      await Promise.all([src.close(), bin.close()]);
    }
  });
});

describe('the code cache', () => {
  it('is used by the built bin (RAGSYNC_DEBUG=1 says so on stderr)', async () => {
    const r = await runBin(['search', 'retry', '-c', cfg, '--json'], { RAGSYNC_DEBUG: '1' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('ragsync: code cache for search: used\n');
  });

  /**
   * Runs `check` on a copy of dist/bundle, with the node arguments that boot it. The copy stays
   * inside the package, so that it finds better-sqlite3 and ragsync's package.json as the installed
   * bundle does; in node_modules/.cache, so that a run cut short leaves nothing that `npm pack`
   * would ship (dist/ is in package.json "files").
   */
  async function withBundleCopy(check: (copy: string, boot: string[]) => Promise<void>): Promise<void> {
    const scratch = join(REPO_ROOT, 'node_modules', '.cache');
    mkdirSync(scratch, { recursive: true });
    const copy = mkdtempSync(join(scratch, 'ragsync-bin-test-'));
    try {
      // cp -a keeps the modification time to the nanosecond (fs.cpSync rounds it to the millisecond).
      execFileSync('cp', ['-a', `${BUNDLE_DIR}/.`, copy]);
      await check(copy, [`-e`, `require(${JSON.stringify(join(copy, 'boot.cjs'))}).boot(process.argv.slice(1))`]);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }

  it('never meets a bundle it was not made from: a changed copy of the bundle compiles without it, and works', async () => {
    await withBundleCopy(async (copy, boot) => {
      const bundle = join(copy, 'ragsync.cjs');
      const debug = { RAGSYNC_DEBUG: '1' };

      // Unchanged (same size and modification time), the copy uses its caches: the checks below do
      // not pass for want of one.
      const same = await runNode(boot, ['search', '--help'], debug);
      expect(same.stderr).toBe('ragsync: code cache for search: used\n');

      appendFileSync(bundle, '// a line the cache was not made from\n');
      const args = ['search', 'retry backoff', '-c', cfg, '--json'];
      const [installed, appended] = await Promise.all([runBin(args), runNode(boot, args, debug)]);
      expect(appended.stderr).toContain('ragsync: code cache for search: none\n');
      expectSame([installed, appended]);

      // An edit that keeps the file's length: V8 checks no more than the length of the source
      // a cache was made from, so a cache found for it would run the old code.
      const text = readFileSync(join(BUNDLE_DIR, 'ragsync.cjs'), 'utf8');
      const words = '.argument("<query>","what to look for")';
      expect(text.includes(words), `the bundle no longer holds ${words}`).toBe(true);
      writeFileSync(bundle, text.replace(words, words.replace('what to look for', 'WHAT TO LOOK FOR')));
      const edited = await runNode(boot, ['search', '--help'], debug);
      expect(edited.stderr).toBe('ragsync: code cache for search: none\n');
      expect(edited.stdout).toContain('WHAT TO LOOK FOR');
    });
  });

  it('is used by the no-op index, which tunes V8 (V8 refuses a cache made under other flags)', async () => {
    const own = writeConfig('noop-cache', join(t.dir, 'noop-cache.db'));
    expect((await runBin(['index', '-c', own])).code).toBe(0);
    const r = await runBin(['index', '-c', own, '--json'], { RAGSYNC_DEBUG: '1' });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'ok', embedded: 0 });
    expect(r.stderr).toContain('ragsync: code cache for index: used\n');
  });

  it('a damaged cache is refused and the command runs without it: bytes changed at the same length, cut short, or not a cache', async () => {
    await withBundleCopy(async (copy, boot) => {
      const cacheDir = join(copy, 'code-cache', readdirSync(join(copy, 'code-cache')).find((d) => d.startsWith('ragsync.cjs-'))!);
      const cache = join(cacheDir, 'search.bin');
      const good = readFileSync(cache);
      const args = ['search', 'retry backoff', '-c', cfg, '--json'];
      const installed = await runBin(args);
      expect(installed.code, installed.stderr).toBe(0);
      const damages: [string, Buffer][] = [
        // Past V8's header (version, source length, flags): without checksums V8 ran these bytes and crashed.
        ['flipped', Buffer.from(good.map((b, i) => (i >= 64 && i % 997 === 0 ? b ^ 0x5a : b)))],
        ['cut short', good.subarray(0, good.length >> 1)],
        ['not a cache', Buffer.from('not a code cache\n')],
      ];
      for (const [how, bytes] of damages) {
        writeFileSync(cache, bytes);
        const r = await runNode(boot, args, { RAGSYNC_DEBUG: '1' });
        expect(r.stderr, how).toContain('ragsync: code cache for search: rejected by V8\n');
        expectSame([installed, r]);
      }
    });
  });
});

describe('what a run loads', () => {
  it('the hourly no-op of a git source loads no HTML parser, robots parser, Postgres client or chat and remote libraries', async () => {
    const lazyCfg = writeConfig('lazy', join(t.dir, 'lazy.db'));
    expect((await runBin(['index', '-c', lazyCfg])).code).toBe(0);
    // A preload that records every module the process asks node for (the bundle's own modules are inside it).
    const probe = join(t.dir, 'loads.cjs');
    const out = join(t.dir, 'loads.txt');
    writeFileSync(
      probe,
      `const M = require('node:module'); const load = M._load; const seen = [];
M._load = function (id) { seen.push(id); return load.apply(this, arguments); };
process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, seen.join('\\n')));`,
    );
    const r = await runBin(['index', '-c', lazyCfg, '--json'], { NODE_OPTIONS: `--require ${probe}` });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'ok', embedded: 0 });
    const loaded = readFileSync(out, 'utf8').split('\n');
    expect(loaded.some((id) => id.endsWith('better_sqlite3.node'))).toBe(true); // the probe sees the bundle's requires
    expect(loaded.filter((id) => /domino|turndown|robots-parser|web-tree-sitter|tree-sitter-wasm|vendor\/(pg|ai|undici|mcp)\.cjs/.test(id))).toEqual([]);
  });
});

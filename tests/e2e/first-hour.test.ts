/**
 * What a new user meets in the first hour, run as they would run it: `init` and `config check` on a
 * folder of their own, the sample's filters and fields, `related` named the way `search` prints a
 * result, one summary per `index`, one line per mistake, and shell completion.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/builtin.ts';
import { colorsOn, painter } from '../../src/cli/color.ts';

import { FROM_CLI_ANYWHERE, FROM_SOURCES, runCli, runNode } from '../helpers/cli.ts';
import { REPO_ROOT, tempDir } from '../helpers/tmp.ts';
import { Upstream } from '../helpers/upstream.ts';
import { CODE_INCLUDE } from '../../src/chunking/code/index.ts';
import { runIndex } from '../../src/engine/library.ts';

let t: ReturnType<typeof tempDir>;
let sample: string;

/** The shipped example config over the shipped sample, its database in the temp folder. */
function sampleConfig(dir: string): string {
  const example = JSON.parse(readFileSync(join(REPO_ROOT, 'config', 'example.json'), 'utf8')) as { sources: { path: string }[] };
  const file = join(dir, 'example.json');
  writeFileSync(file, JSON.stringify({ ...example, $schema: undefined, db: join(dir, 'example.db'), sources: example.sources.map((s) => ({ ...s, path: join(REPO_ROOT, 'config', s.path) })) }));
  return file;
}

/** The CLI runnable from any folder. */
const ANYWHERE = FROM_CLI_ANYWHERE;

/** The CLI run from `cwd` (init and the default config lookup read the working directory), no $RAGSYNC_CONFIG. */
function cliAt(cwd: string, args: string[], extra: Record<string, string> = {}) {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.RAGSYNC_CONFIG;
  const r = spawnSync(process.execPath, [...ANYWHERE, ...args], { cwd, env, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(async () => {
  t = tempDir('ragsync-first-hour-');
  sample = sampleConfig(t.dir);
  expect((await runIndex(loadConfig(sample))).status).toBe('ok');
});
afterAll(() => t?.cleanup());

describe('the sample shows what ragsync knows of its sources', () => {
  it('book and chapter for the classics, URL, tags and date for a bookmark; the filters narrow', async () => {
    const book = await runCli(['search', '甲木', '-c', sample, '--book', 'qiongtong', '--json']);
    expect(book.code, book.stderr).toBe(0);
    const hits = JSON.parse(book.stdout) as { path: string; book: string; chapter: string }[];
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((h) => h.path === '穷通宝鉴.md' && h.book === '穷通宝鉴')).toBe(true);
    const tag = await runCli(['search', 'queue', '-c', sample, '--tag', 'database', '--json']);
    const bm = JSON.parse(tag.stdout) as { url: string; tags: string[]; date: string }[];
    expect(bm[0]).toMatchObject({ url: 'https://example.com/postgres-job-queue', tags: ['database', 'postgres', 'queue'] });
    const month = await runCli(['search', 'retries', '-c', sample, '--month', '2024-01']);
    expect(month.stdout).toContain('https://example.com/backoff-and-jitter · #api #reliability · 2024-01-18');
    expect(month.stdout).not.toContain('202402/');
  });
});

describe('related takes a document as search names it', () => {
  it('source:path (the text output), a path, a chunk id and source:id give the same documents', async () => {
    const ids = JSON.parse((await runCli(['search', '伤官', '-c', sample, '--book', 'all', '--json', '-k', '1'])).stdout) as { id: string; source: string; path: string }[];
    const { id, source, path } = ids[0]!;
    const answers = await Promise.all(
      [`${source}:${path}`, path, id, `${source}:${id}`].map((ref) => runCli(['related', ref, '-c', sample, '--json', '-k', '3'])),
    );
    for (const a of answers) expect(a.code, a.stderr).toBe(0);
    const docs = answers.map((a) => (JSON.parse(a.stdout) as { source: string; path: string }[]).map((r) => `${r.source}:${r.path}`));
    expect(docs[0]!.length).toBeGreaterThan(0);
    expect(docs[0]).not.toContain(`${source}:${path}`);
    for (const d of docs) expect(d).toEqual(docs[0]);
    const none = await runCli(['related', 'classics:nope.md', '-c', sample]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^ragsync: not in the index: classics:nope\.md \(did you mean classics:\S+\.md\?\)\n$/);
  });

  it('the name search prints, line range and all, as printed; a near miss gets "did you mean"', async () => {
    const text = await runCli(['search', '伤官', '-c', sample, '--book', 'all', '-k', '1']);
    const printed = /^1\. \[[0-9.]+\] (\S+:\d+-\d+)$/m.exec(text.stdout)?.[1];
    expect(printed, text.stdout).toBeTruthy();
    const withLines = await runCli(['related', printed!, '-c', sample, '--json', '-k', '3']);
    expect(withLines.code, withLines.stderr).toBe(0);
    const bare = await runCli(['related', printed!.replace(/:\d+-\d+$/, ''), '-c', sample, '--json', '-k', '3']);
    expect(JSON.parse(withLines.stdout)).toEqual(JSON.parse(bare.stdout));
    const miss = await runCli(['related', '穷通宝鉴', '-c', sample]);
    expect(miss.code).toBe(2);
    expect(miss.stderr).toBe('ragsync: not in the index: 穷通宝鉴 (did you mean classics:穷通宝鉴.md?)\n');
  });
});

describe('index reports once', () => {
  it('piped: one JSON line on stdout and nothing on stderr; -v: the text summary and the steps', async () => {
    const piped = await runCli(['index', '-c', sample], { RAGSYNC_LOG_LEVEL: '' });
    expect(piped.code).toBe(0);
    expect(piped.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(piped.stdout)).toMatchObject({ status: 'ok', embedded: 0 });
    expect(piped.stderr).toBe('');
    const verbose = await runCli(['index', '-c', sample, '-v'], { RAGSYNC_LOG_LEVEL: '', RAGSYNC_LOG_FORMAT: 'json' });
    expect(verbose.stdout).toMatch(/^classics +ok +@- +docs \+0 ~0 -0 >0 =3/m);
    expect(verbose.stdout).toMatch(/^ok: embedded 0 texts in /m);
    expect(verbose.stderr).toMatch(/"msg":"run ok"/);
  });

  it('colour only for a terminal, never with NO_COLOR or TERM=dumb', () => {
    expect(colorsOn({ isTTY: true }, {})).toBe(true);
    expect(colorsOn({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colorsOn({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
    expect(colorsOn({ isTTY: false }, {})).toBe(false);
    expect(colorsOn({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(painter(true)('failed')).toBe('\x1b[31mfailed\x1b[39m');
    expect(painter(false)('failed')).toBe('failed');
  });
});

describe('mistakes are one line', () => {
  it('an unknown command names the nearest one; without one, where the list is', async () => {
    const typo = await runCli(['serach', 'x']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe("error: unknown command 'serach' (did you mean search?)\n");
    const far = await runCli(['frobnicate']);
    expect(far.stderr).toBe("error: unknown command 'frobnicate' (ragsync --help lists the commands)\n");
  });

  it('the `--` hint only for an argument that starts with "-"', async () => {
    const dash = await runCli(['search', '-c', sample, '-x']);
    expect(dash.code).toBe(2);
    expect(dash.stderr).toBe(`error: unknown option '-x' (a query that starts with "-" goes after --: ragsync search -- "-x")\n`);
    const bad = await runCli(['search', 'x', '-c', sample, '-k', 'abc']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).not.toContain('--:');
    const near = await runCli(['search', 'x', '--boook', 'qiongtong']);
    expect(near.stderr).toBe("error: unknown option '--boook' (did you mean --book?)\n");
  });
});

describe('init and config check', () => {
  it('init writes a commented config for a folder, asks nothing off a terminal, and refuses to overwrite', () => {
    const dir = join(t.dir, 'mine');
    mkdirSync(join(dir, 'notes'), { recursive: true });
    writeFileSync(join(dir, 'notes', 'retry.md'), '# Retries\n\nRetry with backoff and jitter.\n');
    const r = cliAt(dir, ['init', '--dir', 'notes']);
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(join(dir, 'ragsync.jsonc'), 'utf8');
    expect(text).toMatch(/^ {2}\/\/ /m);
    expect(text).toContain('"$schema": "');
    const schema = /"\$schema": "([^"]+)"/.exec(text)![1]!;
    expect(existsSync(join(dir, schema))).toBe(true);
    // The default lookup finds it: check, index and search with no -c.
    const check = cliAt(dir, ['config', 'check', '--json']);
    expect(check.code, check.stderr).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ ok: true, config: { db: join(dir, '.ragsync', 'index.db'), sources: [{ name: 'notes', kind: 'dir', root: join(dir, 'notes') }] } });
    expect(cliAt(dir, ['index']).code).toBe(0);
    expect(cliAt(dir, ['search', 'jitter']).stdout).toMatch(/^1\. \[[\d.]+\] notes:retry\.md(:\d+-\d+)?$/m);
    const again = cliAt(dir, ['init', '--dir', 'notes']);
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(`ragsync: ${join(dir, 'ragsync.jsonc')} already exists: not overwritten (edit it, or init another folder)\n`);
    expect(readFileSync(join(dir, 'ragsync.jsonc'), 'utf8')).toBe(text);
  });

  it('init --git names the repository; no flag off a terminal: the folder itself', () => {
    const dir = join(t.dir, 'git');
    const r = cliAt(t.dir, ['init', 'git', '--git', 'https://github.com/you/my-notes.git', '--branch', 'trunk']);
    expect(r.code, r.stderr).toBe(0);
    const cfg = loadConfig(join(dir, 'ragsync.jsonc'));
    expect(cfg.sources[0]).toMatchObject({ name: 'my-notes', kind: 'git', url: 'https://github.com/you/my-notes.git', branch: 'trunk', chunker: 'markdown' });
    expect(cfg.checkouts).toBe(join(dir, '.ragsync', 'checkouts'));
    const bare = join(t.dir, 'bare-folder');
    const b = cliAt(t.dir, ['init', 'bare-folder']);
    expect(b.code, b.stderr).toBe(0);
    expect(loadConfig(join(bare, 'ragsync.jsonc')).sources[0]).toMatchObject({ name: 'bare-folder', kind: 'dir', root: bare });
  });

  it('init --git … --chunker code writes globs the code chunker reads, and index then indexes the code', () => {
    const up = new Upstream(join(t.dir, 'code-up'));
    up.write('src/queue.ts', 'export function enqueue(job: string): number {\n  return job.length;\n}\n')
      .write('tools/fetch.py', 'def fetch(url):\n    return url\n')
      .write('README.md', '# app\n\nA small app.\n')
      .commit('code');
    const dir = join(t.dir, 'code');
    const r = cliAt(t.dir, ['init', 'code', '--git', up.bare, '--name', 'app', '--chunker', 'code']);
    expect(r.code, r.stderr).toBe(0);
    expect(loadConfig(join(dir, 'ragsync.jsonc')).sources[0]!.include).toEqual([...CODE_INCLUDE]);
    const run = cliAt(dir, ['index', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).sources[0].documents.added).toBe(3);
    const found = cliAt(dir, ['search', 'enqueue', '--lang', 'typescript', '--json']);
    expect(found.code, found.stderr).toBe(0);
    expect(JSON.parse(found.stdout)[0]).toMatchObject({ path: 'src/queue.ts', symbol: 'enqueue' });
    expect(run.stderr).not.toContain('no file of the kind');
    // A language the code chunker does not know is an error naming the closest it knows, as an
    // unknown tag is; one it knows but nothing is written in is no results.
    const cobol = cliAt(dir, ['search', 'enqueue', '--lang', 'cobol']);
    expect(cobol.code).toBe(2);
    expect(cobol.stderr).toMatch(/^ragsync: lang "cobol" is not a known value and no indexed chunk has it \(closest known: c\|.*\bcpp\b.*, of \d+\)\n$/);
    const go = cliAt(dir, ['search', 'enqueue', '--lang', 'go']);
    expect(go.code, go.stderr).toBe(0);
    // An unknown chunker is refused, naming the known ones.
    const bad = cliAt(t.dir, ['init', 'bad', '--dir', '.', '--chunker', 'cobol']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown chunker "cobol" (known: markdown, classics, bookmarks, code)');
  });

  it('a run whose files are none of the kind its chunker reads says so, naming the source and its globs', () => {
    const dir = join(t.dir, 'md-as-code');
    mkdirSync(join(dir, 'notes'), { recursive: true });
    writeFileSync(join(dir, 'notes', 'a.md'), '# A\n\ntext\n');
    writeFileSync(join(dir, 'ragsync.jsonc'), JSON.stringify({ db: '.ragsync/index.db', sources: [{ name: 'notes', kind: 'dir', path: 'notes', include: ['**/*.md'], chunker: 'code' }] }));
    const run = cliAt(dir, ['index', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const warned = run.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(warned).toContainEqual(expect.objectContaining({ level: 40, msg: expect.stringContaining('source "notes": no file of the kind the "code" chunker reads among the 1 listed (include: "**/*.md")') }));
  });

  it('init --example copies the sample with a config of its own; a db inside node_modules is refused', () => {
    const dir = join(t.dir, 'sample');
    const r = cliAt(t.dir, ['init', 'sample', '--example']);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(dir, 'examples', 'classics', '穷通宝鉴.md'))).toBe(true);
    expect(cliAt(dir, ['index']).code).toBe(0);
    expect(cliAt(dir, ['search', '甲木', '--book', 'qiongtong', '-k', '1']).stdout).toContain('classics:穷通宝鉴.md');
    const inside = join(t.dir, 'node_modules', 'ragsync', 'config');
    mkdirSync(inside, { recursive: true });
    writeFileSync(join(inside, 'example.json'), readFileSync(join(REPO_ROOT, 'config', 'example.json')));
    const refused = cliAt(t.dir, ['index', '-c', join(inside, 'example.json')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/db: .*node_modules.* is inside node_modules, and ragsync never writes into an installed package/);
    expect(existsSync(join(t.dir, 'node_modules', 'ragsync', 'data'))).toBe(false);
  });

  it('config check prints no secret: credentials in URLs masked, a key only as set or not set', () => {
    const dir = join(t.dir, 'secret');
    mkdirSync(dir);
    const file = join(dir, 'ragsync.json');
    writeFileSync(file, JSON.stringify({ embedder: { provider: 'openai', dims: 512, apiKeyEnv: 'MY_TEST_KEY' }, sources: [{ name: 'n', url: 'https://user:s3cret@example.com/n.git' }] }));
    const r = cliAt(dir, ['config', 'check', '-c', file], { MY_TEST_KEY: 'sk-live-123456' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('s3cret');
    expect(r.stdout).not.toContain('sk-live');
    expect(r.stdout).toContain('"apiKey": "[redacted: $MY_TEST_KEY is set]"');
    expect(r.stdout).toContain('"dims": 512');
    expect(r.stdout).toContain('https://***@example.com/n.git');
    writeFileSync(file, '{\n  "sources": [\n    { "name": "n", "kind": "dir", "path": ".", "chunkr": "x" }\n  ]\n}\n');
    const bad = cliAt(dir, ['config', 'check', '-c', file]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(`ragsync: ${file}: sources[0]: Unrecognized key: "chunkr" (did you mean "chunker"?)\n`);
  });
});

describe('config check of the model blocks', () => {
  it('shows chat and rerank: provider, model, URL masked, and of each key only whether it is set', () => {
    const dir = join(t.dir, 'models');
    mkdirSync(dir);
    const file = join(dir, 'ragsync.json');
    const cfg = { sources: [{ name: 'n', kind: 'dir', path: '.' }], chat: { provider: 'dashscope' }, rerank: { provider: 'jina', baseUrl: 'https://u:pw@rerank.example/v1' } };
    writeFileSync(file, JSON.stringify(cfg));
    const r = cliAt(dir, ['config', 'check', '-c', file], { DASHSCOPE_API_KEY: 'sk-chat-123456', JINA_API_KEY: '' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('\nchat: dashscope qwen-plus at https://dashscope.aliyuncs.com/compatible-mode/v1, key $DASHSCOPE_API_KEY set\n');
    expect(r.stdout).toContain('\nrerank: jina jina-reranker-v2-base-multilingual at https://***@rerank.example/v1/rerank, key $JINA_API_KEY NOT set\n');
    expect(r.stdout).toContain('note: rerank: environment variable JINA_API_KEY is not set');
    expect(r.stdout).not.toContain('sk-chat');
    expect(r.stdout).not.toContain(':pw@');
    const json = JSON.parse(cliAt(dir, ['config', 'check', '-c', file, '--json'], { DASHSCOPE_API_KEY: 'sk-chat-123456', JINA_API_KEY: '' }).stdout);
    expect(json.config.chat).toMatchObject({ provider: 'dashscope', model: 'qwen-plus', apiKeyEnv: 'DASHSCOPE_API_KEY', apiKey: '[redacted: $DASHSCOPE_API_KEY is set]' });
    expect(json.config.rerank).toMatchObject({ provider: 'jina', url: 'https://***@rerank.example/v1/rerank', apiKey: '[$JINA_API_KEY is not set]' });
    // No blocks: said as none; the older variables, when set, as the reranker in force.
    writeFileSync(file, JSON.stringify({ sources: cfg.sources }));
    const none = cliAt(dir, ['config', 'check', '-c', file], { DASHSCOPE_API_KEY: '' });
    expect(none.stdout).toContain('\nchat: none\nrerank: none\n');
    const legacy = cliAt(dir, ['config', 'check', '-c', file], { DASHSCOPE_API_KEY: 'sk-env-123456', RAGSYNC_RERANK_MODEL: 'gte-rerank' });
    expect(legacy.stdout).toContain('\nrerank: dashscope:gte-rerank from the environment');
    expect(legacy.stdout).not.toContain('sk-env');
  });
});

describe('shell completion', () => {
  it('bash completes commands, options and fixed values', async () => {
    const script = (await runCli(['completion', 'bash'])).stdout;
    const complete = (words: string[]) => {
      const r = spawnSync('bash', ['-c', `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _ragsync; printf '%s\\n' "\${COMPREPLY[@]}"`], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      return r.stdout.split('\n').filter(Boolean);
    };
    expect(complete(['ragsync', 'se'])).toEqual(['search', 'serve']);
    expect(complete(['ragsync', 'search', '--bo'])).toEqual(['--book']);
    expect(complete(['ragsync', 'search', '--mode', 'h'])).toEqual(['hybrid']);
    expect(complete(['ragsync', 'completion', 'f'])).toEqual(['fish']);
    // A command with subcommands: those first, then their options; the argument after one is a file.
    expect(complete(['ragsync', 'source', 'r'])).toEqual(['remove']);
    expect(complete(['ragsync', 'source', 'add', '--ki'])).toEqual(['--kind']);
    expect(complete(['ragsync', 'source', 'add', '--kind', 'w'])).toEqual(['web']);
    expect(complete(['ragsync', 'source', 'add', 're'])).toEqual([]);
  });

  it('zsh and fish scripts name every command; an unknown shell is refused', async () => {
    for (const shell of ['zsh', 'fish']) {
      const r = await runCli(['completion', shell]);
      expect(r.code).toBe(0);
      for (const c of ['init', 'config', 'index', 'search', 'related', 'mcp', 'completion']) expect(r.stdout).toContain(c);
    }
    const tcsh = await runNode(FROM_SOURCES, ['completion', 'tcsh']);
    expect(tcsh.code).toBe(2);
    expect(tcsh.stderr).toMatch(/^error: command-argument value 'tcsh' is invalid for argument 'shell'\. Allowed choices are bash, zsh, fish\./);
  });
});

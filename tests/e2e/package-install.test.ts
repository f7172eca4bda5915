import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertBuilt } from '../helpers/cli.ts';
import { FakeProvider } from '../helpers/fake-provider.ts';
import { REPO_ROOT, tempDir } from '../helpers/tmp.ts';
import { startDocsSite } from '../helpers/docs-site.ts';
import { packedTarball } from '../helpers/packed.ts';

/**
 * The package as a user gets it: `npm pack`, installed into a fresh project by npm from the local
 * cache (offline: the registry is not asked; install scripts off, so better-sqlite3's native module
 * is the one this checkout built rather than compiled again), then a TypeScript program type-checked
 * and compiled by `tsc` against the installed types drives a knowledge manager over a code folder
 * and a loopback docs site — with an AI SDK embedding model (a loopback OpenAI-compatible server),
 * then a plain function.
 */
let t: ReturnType<typeof tempDir>;
let site: Awaited<ReturnType<typeof startDocsSite>>;
let siteUrl: string;
let fake: FakeProvider;

const PROGRAM = `
import { createKnowledgeManager, type FileStatus, type KnowledgeStats, type EmbedFunction } from 'ragsync';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';

const [configFile, siteUrl, embedUrl, codeFile] = process.argv.slice(2) as [string, string, string, string];
const model = createOpenAICompatible({ name: 'loopback', baseURL: embedUrl }).embeddingModel('fake-model');
const km = createKnowledgeManager({ configFile, embedder: model });
await km.initialize();
const out: Record<string, unknown> = {};
out.code = (await km.indexCode())?.status;
const added = await km.addDocSource(siteUrl + '/docs/', { name: 'guide', crawl: true });
out.crawl = added.result?.status;
out.codeHit = (await km.searchCode('addNumbers'))[0]?.path;
out.docHit = (await km.searchDocs('jitter'))[0]?.path;
const stats: KnowledgeStats = await km.getStats();
out.stats = { embedder: stats.embedder, code: stats.code.documents, docs: stats.docs.documents };
const file: FileStatus = await km.code.getFileStatus(codeFile);
out.file = { indexed: file.indexed, upToDate: file.upToDate };
const fetched = await km.docs.fetchUrl(siteUrl + '/other.html');
out.fetched = fetched.markdown.includes('pelicans');
out.storedAfterFetch = (await km.docs.getPage(siteUrl + '/other.html')) !== null;
await km.code.startWatching();
out.watching = km.code.isWatching();
km.code.stopWatching();
out.stopped = !km.code.isWatching();
out.removed = (await km.removeDocSource('guide')).configEdited;
const fn: EmbedFunction = async (texts) => texts.map((x) => Array.from({ length: 16 }, (_, i) => (x.charCodeAt(i % x.length) % 13) / 13 + 0.01));
await km.setEmbedFunction({ embed: fn, model: 'char-codes' });
const again = await km.indexCode();
out.switched = { fingerprint: again?.fingerprint, embedded: again?.textsEmbedded };
out.afterSwitch = (await km.searchCode('addNumbers', { mode: 'keyword' }))[0]?.path;
await km.close();
console.log(JSON.stringify(out));
`;

beforeAll(async () => {
  assertBuilt();
  t = tempDir('ragsync-pack-');
  site = await startDocsSite();
  siteUrl = site.url;
  fake = await FakeProvider.start({ dims: 24 });
});

afterAll(async () => {
  await fake?.close();
  await site?.close();
  t?.cleanup();
});

describe('the packed package in a fresh project', () => {
  it('installs offline, type-checks a program against its types, and the knowledge manager works with an AI SDK model and a function', async () => {
    // The run's one `npm pack` of this checkout (tests/helpers/packed.ts).
    const tarball = await packedTarball();
    const proj = join(t.dir, 'proj');
    mkdirSync(proj);
    writeFileSync(join(proj, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], { cwd: proj, stdio: 'pipe' });
    // The native module this checkout's install built, for the same better-sqlite3 version.
    mkdirSync(join(proj, 'node_modules/better-sqlite3/build/Release'), { recursive: true });
    copyFileSync(join(REPO_ROOT, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'), join(proj, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'));

    writeFileSync(join(proj, 'main.ts'), PROGRAM);
    writeFileSync(
      join(proj, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true, outDir: 'out', types: ['node'], typeRoots: [join(REPO_ROOT, 'node_modules/@types')] },
        files: ['main.ts'],
      }),
    );
    execFileSync(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', proj], { cwd: proj, stdio: 'pipe' });

    const code = join(proj, 'code');
    mkdirSync(code);
    writeFileSync(join(code, 'math.ts'), 'export function addNumbers(a: number, b: number): number {\n  return a + b;\n}\n');
    writeFileSync(join(code, 'greet.ts'), 'export function greetUser(name: string): string {\n  return `hello ${name}`;\n}\n');
    const cfg = join(proj, 'ragsync.json');
    writeFileSync(cfg, JSON.stringify({ db: './index.db', sources: [{ name: 'app', kind: 'dir', path: './code', chunker: 'code' }] }, null, 2));
    // Not execFileSync: the site and the model server answer from this process's event loop.
    const { stdout } = await promisify(execFile)(process.execPath, [join(proj, 'out/main.js'), cfg, siteUrl, fake.baseUrl, join(code, 'math.ts')], { cwd: proj, encoding: 'utf8' });
    const out = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(out).toMatchObject({
      code: 'ok',
      crawl: 'ok',
      codeHit: 'math.ts',
      docHit: `${siteUrl}/docs/retry.html`,
      stats: { embedder: 'loopback.embedding:fake-model:24', code: 2, docs: 2 },
      file: { indexed: true, upToDate: true },
      fetched: true,
      storedAfterFetch: false,
      watching: true,
      stopped: true,
      removed: true,
      switched: { fingerprint: 'function:char-codes:16' },
      afterSwitch: 'math.ts',
    });
    expect(out.switched.embedded).toBeGreaterThan(0);
    // The AI SDK model's requests reached the loopback server.
    expect(fake.served.length).toBeGreaterThan(0);
  }, 240_000);
});

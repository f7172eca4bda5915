import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createKnowledgeManager, type KnowledgeManager } from '../../src/index.ts';
import { hashEmbed } from '../../src/embedding/hash.ts';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';
import { startDocsSite } from '../helpers/docs-site.ts';

/** The knowledge manager over a code folder and a loopback docs site: one index with the CLI's. */
let t: ReturnType<typeof tempDir>;
let site: Awaited<ReturnType<typeof startDocsSite>>;
let siteUrl: string;
let km: KnowledgeManager;
let cfgFile: string;
let code: string;

beforeAll(async () => {
  t = tempDir('ragsync-km-');
  site = await startDocsSite();
  siteUrl = site.url;
  code = join(t.dir, 'code');
  mkdirSync(code);
  writeFileSync(join(code, 'math.ts'), '/** Adds two numbers. */\nexport function addNumbers(a: number, b: number): number {\n  return a + b;\n}\n');
  writeFileSync(join(code, 'greet.ts'), 'export function greetUser(name: string): string {\n  return `hello ${name}`;\n}\n');
  cfgFile = join(t.dir, 'ragsync.jsonc');
  writeFileSync(
    cfgFile,
    `{\n  // kept: comments and layout survive source edits\n  "db": "./index.db",\n  "embedder": { "provider": "hash", "dims": 64 },\n  "sources": [\n    { "name": "app", "kind": "dir", "path": "./code", "chunker": "code" }\n  ]\n}\n`,
  );
  km = createKnowledgeManager({ configFile: cfgFile });
  await km.initialize();
});

afterAll(async () => {
  await km?.close();
  await site?.close();
  t.cleanup();
});

describe('KnowledgeManager', () => {
  it('indexes code, adds and crawls a docs site, searches each kind, one index with the CLI', async () => {
    expect((await km.indexCode())!.status).toBe('ok');
    const added = await km.addDocSource(`${siteUrl}/docs/`, { name: 'guide', crawl: true });
    expect(added.result!.status).toBe('ok');
    expect(added.source).toMatchObject({ name: 'guide', kind: 'web', indexed: true });
    expect(readFileSync(cfgFile, 'utf8')).toContain('// kept: comments and layout survive source edits');

    const codeHits = await km.searchCode('addNumbers');
    expect(codeHits[0]!.path).toBe('math.ts');
    expect(codeHits.every((h) => h.source === 'app')).toBe(true);
    const docHits = await km.searchDocs('jitter backoff');
    expect(docHits[0]!.path).toBe(`${siteUrl}/docs/retry.html`);
    expect(docHits.every((h) => h.source === 'guide')).toBe(true);
    expect(new Set((await km.search('greetUser jitter', { k: 10 })).map((h) => h.source))).toEqual(new Set(['app', 'guide']));

    // The CLI reads the same index.
    const cli = await runCli(['search', 'addNumbers', '-c', cfgFile, '--json']);
    expect((JSON.parse(cli.stdout) as { path: string }[])[0]!.path).toBe('math.ts');

    const stats = await km.getStats();
    expect(stats.embedder).toBe('hash:cjk-ngram@1:64');
    expect(stats.code).toMatchObject({ sources: 1, documents: 2 });
    expect(stats.docs).toMatchObject({ sources: 1, documents: 2 });
  });

  it('file status, file updates and removal, pages read back and removed, a URL fetched without saving', async () => {
    const math = join(code, 'math.ts');
    expect(await km.code.getFileStatus(math)).toMatchObject({ source: 'app', path: 'math.ts', indexed: true, upToDate: true });
    writeFileSync(math, readFileSync(math, 'utf8') + '\nexport const subtractNumbers = (a: number, b: number) => a - b;\n');
    expect((await km.code.getFileStatus(math)).upToDate).toBe(false);
    await km.code.updateIndex([math]);
    expect(await km.code.getFileStatus(math)).toMatchObject({ indexed: true, upToDate: true });
    // A symbol's references follow a file indexed and removed, at once.
    const total = join(code, 'total.ts');
    writeFileSync(total, "import { addNumbers } from './math';\n\nexport function total(xs: number[]): number {\n  return xs.reduce(addNumbers, 0);\n}\n");
    await km.code.updateIndex([total]);
    expect((await km.referencesOf('addNumbers')).map((r) => `${r.location} ${r.referenceLines.join(',')}`)).toEqual(['total.ts:1-1 1', 'total.ts:3-5 4']);
    await km.code.removeFile(total);
    expect(await km.referencesOf('addNumbers')).toEqual([]);
    expect((await km.code.removeFile(join(code, 'greet.ts'))).documents).toBe(1);
    expect((await km.code.getFileStatus(join(code, 'greet.ts'))).indexed).toBe(false);
    await expect(km.code.indexFile(join(t.dir, 'elsewhere.ts'))).rejects.toThrow(/under no code source's folder/);

    const page = await km.docs.getPage(`${siteUrl}/docs/retry.html`);
    expect(page).toMatchObject({ source: 'guide', title: 'Retries' });
    expect(page!.content).toContain('jitter');
    const fetched = await km.docs.fetchUrl(`${siteUrl}/other.html`);
    expect(fetched.markdown).toContain('pelicans');
    expect(await km.docs.getPage(`${siteUrl}/other.html`)).toBeNull();
    expect((await km.docs.removePage(`${siteUrl}/docs/retry.html`)).documents).toBe(1);
    expect(await km.docs.getPage(`${siteUrl}/docs/retry.html`)).toBeNull();
    expect((await km.docs.listSources()).map((s) => s.name)).toEqual(['guide']);
  });

  it('watches code folders and stops', async () => {
    await km.code.startWatching({ quietMs: 100 });
    expect(km.code.isWatching()).toBe(true);
    writeFileSync(join(code, 'fresh.ts'), 'export function freshlyWritten(): number {\n  return 42;\n}\n');
    for (let i = 0; i < 200 && !(await km.code.getFileStatus(join(code, 'fresh.ts'))).indexed; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await km.code.getFileStatus(join(code, 'fresh.ts'))).indexed).toBe(true);
    km.code.stopWatching();
    expect(km.code.isWatching()).toBe(false);
  });

  it('a plain function as embedder: its own fingerprint, vectors side by side; clear removes only its rows', async () => {
    let calls = 0;
    await km.setEmbedFunction({
      model: 'hash-fn',
      embed: async (texts: string[]) => {
        calls++;
        return texts.map((x) => hashEmbed(x, 32));
      },
    });
    const r = (await km.indexCode())!;
    expect(r.fingerprint).toBe('function:hash-fn:32');
    expect(r.textsEmbedded).toBeGreaterThan(0); // every code text again, under the new fingerprint
    expect(calls).toBeGreaterThan(1);
    expect((await km.searchCode('freshlyWritten'))[0]!.path).toBe('fresh.ts');
    const status = await runCli(['status', '-c', cfgFile, '--json']);
    expect(status.stdout).toContain('function:hash-fn:32');
    expect(status.stdout).toContain('hash:cjk-ngram@1:64');

    const cleared = await km.clear();
    expect(cleared.documents).toBeGreaterThan(0);
    expect((await km.getStats()).code.documents).toBe(0);
    expect(readFileSync(cfgFile, 'utf8')).toContain('"guide"'); // the config keeps its sources

    const removed = await km.removeDocSource('guide');
    expect(removed.configEdited).toBe(true);
    expect(readFileSync(cfgFile, 'utf8')).not.toContain('"guide"');
    rmSync(join(code, 'fresh.ts'));
  });
});

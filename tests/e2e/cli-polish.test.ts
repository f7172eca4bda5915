// What people see at the terminal: --version, search printing results only, errors that name the
// value and what is known (an unknown book, a threshold no score can reach, a query with no
// terms), and status warning when the active embedder lacks vectors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/builtin.ts';
import { RagsyncError } from '../../src/core/errors.ts';
import { bookOf } from '../../src/profiles/classics/book.ts';
import { Searcher } from '../../src/search/search.ts';

import { runCli } from '../helpers/cli.ts';
import { REPO_ROOT, tempDir } from '../helpers/tmp.ts';
import { openSearcher, runIndex } from '../../src/engine/library.ts';

let t: ReturnType<typeof tempDir>;
let cfgFile: string;
let searcher: Searcher;

/** config/example.json over the sample corpus (its classics chunked as classics), the database in a temp folder. */
function exampleConfig(dir: string, dims: number): string {
  const file = join(dir, `ragsync-${dims}.json`);
  const example = JSON.parse(readFileSync(join(REPO_ROOT, 'config', 'example.json'), 'utf8')) as { sources: { name: string; path: string }[] };
  writeFileSync(
    file,
    JSON.stringify({
      ...example,
      db: join(dir, 'index.db'),
      embedder: { provider: 'hash', dims },
      sources: example.sources.map((s) => ({ ...s, path: join(REPO_ROOT, 'config', s.path), ...(s.name === 'classics' ? { chunker: 'classics' } : {}) })),
    }),
  );
  return file;
}

beforeAll(async () => {
  t = tempDir('ragsync-polish-');
  cfgFile = exampleConfig(t.dir, 1024);
  expect((await runIndex(loadConfig(cfgFile))).status).toBe('ok');
  searcher = openSearcher(loadConfig(cfgFile));
});
afterAll(async () => {
  await searcher?.close();
  t?.cleanup();
});

const usageError = async (p: Promise<unknown>): Promise<string> => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RagsyncError);
  expect((err as RagsyncError).exitCode).toBe(2);
  return (err as Error).message;
};

describe('the terminal', () => {
  it('--version prints the package version', async () => {
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe((JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version);
  });

  it('search prints results only (no log lines) unless -v', async () => {
    const quiet = await runCli(['search', '伤官', '-c', cfgFile, '-k', '1'], { RAGSYNC_LOG_LEVEL: '' });
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).toMatch(/^1\. \[/);
    expect(quiet.stderr).toBe('');
    const loud = await runCli(['search', '伤官', '-c', cfgFile, '-k', '1', '-v', '--json'], { RAGSYNC_LOG_LEVEL: '', RAGSYNC_LOG_FORMAT: 'json' });
    expect(loud.code).toBe(0);
    expect(loud.stderr).toMatch(/"msg":"searched"/);
  });

  it('an unknown --book is an error naming the value and the known keys; a key the index holds works', async () => {
    const r = await runCli(['search', '伤官', '-c', cfgFile, '--book', 'foo']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^ragsync: book "foo" is not a known value and no indexed chunk has it \(known: qiongtong\|ziping\|.*\|all\)$/m);
    // The sample's books are not in the profile's list: their generated keys are accepted because the index has them.
    const key = bookOf('五行概说.md').key;
    expect(key).toMatch(/^book-/);
    const hits = await searcher.search('木生火', { filters: { book: key }, k: 5 });
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((h) => h.path === '五行概说.md')).toBe(true);
    expect((await runCli(['search', '木生火', '-c', cfgFile, '--book', key, '--json'])).code).toBe(0);
    expect(await usageError(searcher.search('木生火', { filters: { book: 'book-00000000' } }))).toMatch(/^book "book-00000000" is not a known value/);
  });

  it('--min-score: a threshold the mode cannot reach is refused with the scale; reachable ones filter', async () => {
    expect(await usageError(searcher.search('伤官', { minScore: 0.5, expand: false }))).toBe(
      'minScore 0.5 can never be met in hybrid mode: fused (RRF) scores are at most 0.0328 with weights 1,1 (see "Scores" in docs/search.md)',
    );
    // Expansion lists raise the ceiling (their weights are added).
    expect(await usageError(searcher.search('伤官', { minScore: 0.5 }))).toMatch(/fused \(RRF\) scores are at most 0\.\d{4} with weights 1,1/);
    expect(await usageError(searcher.search('伤官', { mode: 'vector', minScore: 1.5 }))).toMatch(/cosine scores are at most 1/);
    const all = await searcher.search('伤官', { k: 20 });
    const some = await searcher.search('伤官', { k: 20, minScore: 0.02 });
    expect(some.length).toBeGreaterThan(0);
    expect(some.length).toBeLessThan(all.length);
    expect(some.every((r) => r.score >= 0.02)).toBe(true);
    expect(await searcher.search('伤官', { mode: 'keyword', minScore: 1000 })).toEqual([]);
  });

  it('a query with no searchable terms gets its own message', async () => {
    expect(await usageError(searcher.search('?! …'))).toBe('query "?! …" has no searchable terms (letters, digits or CJK characters)');
    const r = await runCli(['search', '-c', cfgFile, '-x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('a query that starts with "-" goes after --');
  });

  it('status warns when the active embedder has no vectors for some chunk texts (after another config dropped them)', async () => {
    const other = exampleConfig(t.dir, 64);
    expect((await runCli(['index', '-c', other])).code).toBe(0);
    const gc = await runCli(['gc', '-c', other, '--drop-other-fingerprints']);
    expect(gc.code, gc.stderr).toBe(0);
    const r = await runCli(['status', '-c', cfgFile]);
    expect(r.code).toBe(0);
    const [health, warning] = r.stdout.split('\n');
    expect(health).toMatch(/^health: ok: /);
    const [, n, m] = /^warning: (\d+) of (\d+) chunk texts have no vector for the active embedder hash:cjk-ngram@1:1024: search is keyword-only until "ragsync index" embeds them$/.exec(warning!)!;
    expect(n).toBe(m);
    const json = JSON.parse((await runCli(['status', '-c', cfgFile, '--json'])).stdout) as { warnings: string[]; health: { status: string } };
    expect(json.warnings).toHaveLength(1);
    expect(json.health.status).toBe('ok');
    // One index run embeds them again and the warning goes.
    expect((await runIndex(loadConfig(cfgFile))).textsEmbedded).toBe(Number(n));
    expect((await runCli(['status', '-c', cfgFile])).stdout).not.toMatch(/^warning/m);
  });
});

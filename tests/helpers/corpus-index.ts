import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import { runIndex } from '../../src/engine/library.ts';
import { corpusDocs, PER_SOURCE, sampleSentences, SEED, type Sentence } from './sentences.ts';
import { sharedFixture } from './shared-fixture.ts';
import { CORPORA, REPO_ROOT } from './tmp.ts';

/**
 * The real corpora indexed at their tips with the offline embedder, once per test run and shared
 * read-only by the suites that only search them (tests/helpers/shared-fixture.ts): open a searcher
 * on the config, read the checkouts, never index or write.
 */

type Source = { name: string; url?: string } & Record<string, unknown>;
const shipped = () => JSON.parse(readFileSync(join(REPO_ROOT, 'config', 'ragsync.json'), 'utf8')) as Record<string, unknown> & { sources: Source[] };

async function indexed(fixture: string, sources: (all: Source[]) => Source[]): Promise<Config> {
  const { dir } = await sharedFixture(fixture, async (dir) => {
    const chosen = sources(shipped().sources);
    for (const s of chosen) execFileSync('git', ['clone', '--quiet', '--bare', join(CORPORA, `${s.name}.bundle`), join(dir, `${s.name}.git`)]);
    const file = join(dir, 'ragsync.json');
    writeFileSync(file, JSON.stringify({ ...shipped(), db: 'index.db', checkouts: 'checkouts', sources: chosen.map((s) => ({ ...s, url: `${s.name}.git` })) }));
    const r = await runIndex(loadConfig(file));
    if (r.status !== 'ok') throw new Error(`indexing ${chosen.map((s) => s.name).join(' and ')} ended ${r.status}`);
  });
  return loadConfig(join(dir, 'ragsync.json'));
}

/** The shipped config (config/ragsync.json: classics and bookmarks, their chunkers and profiles) over the corpora's bundles. */
export const shippedCorporaIndex = (): Promise<Config> => indexed('shipped-corpora', (all) => all);

/** The sentences the sampled-sentences rule draws (tests/helpers/sentences.ts) from the shipped config's checkouts of both corpora. */
export async function shippedCorporaSentences(): Promise<Sentence[]> {
  const config = await shippedCorporaIndex();
  const sources = ['classics', 'bookmarks'];
  const { value } = await sharedFixture('shipped-corpora-sentences', async () =>
    sampleSentences(sources.flatMap((s) => corpusDocs(config, s, config.sources.find((x) => x.name === s)!.root)), sources, PER_SOURCE, SEED),
  );
  return value;
}

/** The code corpus (code.bundle's main) as a code source, with the shipped config's embedder: as the code benches index it. */
export const codeCorpusIndex = (): Promise<Config> => indexed('code-corpus', () => [{ name: 'code', kind: 'git', branch: 'main', chunker: 'code' }]);

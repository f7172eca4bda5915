import { afterEach, beforeEach, expect, it } from 'vitest';
import { join } from 'node:path';
import { builtinProfiles, parseConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import { defaultAnalyzer } from '../../src/core/text/analyzer.ts';
import { HashEmbedder } from '../../src/embedding/hash.ts';
import { openIndex } from '../../src/storage/open.ts';
import type { SyncStore } from '../../src/storage/roles.ts';
import { AbortedError, applyPlan, noWork } from '../../src/sync/apply.ts';
import { planSource, type Pipeline } from '../../src/sync/plan.ts';
import { memorySnapshot as snapshot } from '../helpers/snapshot.ts';
import { tempDir } from '../helpers/tmp.ts';

// A stop mid-run, counted exactly: what `written` reports must be what another connection finds.

const pipeline: Pipeline = {
  chunker: builtinProfiles.createChunker('markdown', { targetTokens: 500, overlap: 0.15 }),
  analyzer: defaultAnalyzer,
};
// Eight short documents: one chunk, hence one distinct text, each.
const files = Object.fromEntries(
  Array.from({ length: 8 }, (_, i) => [`d${i}.md`, `# Doc ${i}\n\nparagraph ${i} one\n\nparagraph ${i} two\n`]),
);

let t: ReturnType<typeof tempDir>;
let config: Config;
let store: SyncStore;
beforeEach(async () => {
  t = tempDir();
  config = parseConfig({ db: join(t.dir, 'i.db'), sources: [{ name: 's', kind: 'dir', path: t.dir }] });
  store = openIndex(config, 'sync');
  await store.ensureSource({ name: 's', kind: 'dir', url: null, branch: null });
});
afterEach(async () => {
  await store.close();
  t.cleanup();
});

it('a stop after the fifth batch of one: five vectors stored, no document switched; the next plan embeds the other three', async () => {
  const embedder = new HashEmbedder(64, 1);
  const fp = embedder.info.fingerprint;
  await store.registerEmbedder(embedder.info);
  const plan = await planSource(store, config.sources[0]!, snapshot(files), pipeline, { force: false, fingerprint: fp, commitBefore: null });
  expect(plan.write.map((w) => w.doc.chunks.length)).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
  expect(plan.counts).toMatchObject({ chunks: 8, texts: 8, documents: { added: 8 } });

  const stop = new AbortController();
  const sent: string[] = [];
  const inner = embedder.embed.bind(embedder);
  // The fifth request stops the run; it is already in flight, so it still answers and is stored.
  embedder.embed = async (texts: string[]) => {
    sent.push(...texts);
    if (sent.length === 5) stop.abort();
    return inner(texts);
  };

  const written = noWork();
  const run = applyPlan(plan, { store, embedder, embeddedThisRun: new Set(), signal: stop.signal }, written);
  await expect((async () => {
    while (!(await run.next()).done);
  })()).rejects.toBeInstanceOf(AbortedError);

  expect(sent).toHaveLength(5); // no batch starts after the stop
  // The documents switch in one transaction once every vector is stored: a stop switches none.
  expect(written).toEqual({
    documents: { added: 0, changed: 0, deleted: 0, renamed: 0, unchanged: 0, skipped: 0 },
    chunks: 0,
    chunksReused: 0,
    texts: 5,
  });

  // Another connection sees no document of the stopped plan, and the five vectors it paid for.
  const reader = openIndex(config, 'search');
  try {
    expect(await store.listDocuments('s')).toEqual([]);
    for (let i = 0; i < 8; i++) expect(await reader.findChunks({ source: 's', path: `d${i}.md` })).toEqual([]);
    const hashes = plan.write.map((w) => w.doc.chunks[0]!.textHash);
    expect((await store.missingVectors(fp, hashes)).size).toBe(3);
  } finally {
    await reader.close();
  }

  // The next plan writes all eight documents and embeds only the three texts not yet stored.
  const next = await planSource(store, config.sources[0]!, snapshot(files), pipeline, { force: false, fingerprint: fp, commitBefore: null });
  expect(next.counts).toMatchObject({ texts: 3, chunks: 8, chunksReused: 5, documents: { added: 8, unchanged: 0 } });
});

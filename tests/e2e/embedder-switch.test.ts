// Switching the embedder: the refill re-embeds every distinct stored text exactly once, reading
// the stored texts a page at a time, and a run killed mid-refill resumes without re-embedding
// what it stored. The classics corpus gives more distinct texts than one page holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { loadConfig } from '../../src/builtin.ts';
import { sha256 } from '../../src/core/hash.ts';

import { RecordingEmbedder } from '../helpers/index-fixture.ts';
import { classicsCorpus, classicsUpstream, hasClassics, spawnCli, writeConfig } from './daemon-helpers.ts';
import { runIndex } from '../../src/engine/library.ts';

const INCLUDE = ['content/命/**/*.md'];

let tmp: string;
let url: string;

beforeAll(() => {
  if (!hasClassics) return;
  tmp = mkdtempSync(join(tmpdir(), 'ragsync-switch-'));
  url = classicsUpstream(tmp);
});
afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** A config indexed under 64 dims, then rewritten to 32 dims (another fingerprint). */
async function indexedThenSwitched(name: string): Promise<{ file: string; db: string }> {
  const dir = join(tmp, name);
  mkdirSync(dir);
  const { file, db } = writeConfig(dir, { url, include: INCLUDE, batchSize: 64 });
  expect((await runIndex(loadConfig(file))).status).toBe('ok');
  const cfg = JSON.parse(readFileSync(file, 'utf8'));
  cfg.embedder.dims = 32;
  writeFileSync(file, JSON.stringify(cfg));
  return { file, db };
}

function vectorsByDims(db: string): { distinct: Set<string>; under32: Set<string> } {
  const c = new BetterSqlite3(db, { readonly: true });
  try {
    const distinct = new Set(c.prepare('SELECT DISTINCT text_hash FROM chunks').pluck().all() as string[]);
    const under32 = new Set(c.prepare('SELECT text_hash FROM vectors WHERE dims = 32').pluck().all() as string[]);
    return { distinct, under32 };
  } finally {
    c.close();
  }
}

async function refill(file: string) {
  const config = loadConfig(file);
  const embedder = new RecordingEmbedder(config.embedder.dims, config.embedder.batchSize);
  const result = await runIndex(config, { embedder });
  return { result, sent: embedder.seen.map(sha256) };
}

describe.skipIf(!hasClassics)(classicsCorpus.title('an embedder switch refills every stored text'), () => {
  it('re-embeds every distinct text exactly once, over more than one page of stored texts', async () => {
    const { file, db } = await indexedThenSwitched('whole');
    const before = vectorsByDims(db);
    expect(before.distinct.size).toBeGreaterThan(1000); // more than one page
    expect(before.under32.size).toBe(0);
    const { result, sent } = await refill(file);
    expect(result.status).toBe('ok');
    expect(sent.length).toBe(before.distinct.size);
    expect(new Set(sent)).toEqual(before.distinct);
    expect(vectorsByDims(db).under32).toEqual(before.distinct);
    // Nothing left to refill.
    expect((await refill(file)).sent).toEqual([]);
  });

  it('a run killed mid-refill resumes without re-embedding what it stored', async () => {
    const { file, db } = await indexedThenSwitched('killed');
    const killed = await spawnCli(['index', '-c', file, '--json'], { RAGSYNC_FAILPOINT: 'after-vectors:5' }).done;
    expect(killed.signal).toBe('SIGKILL');
    const mid = vectorsByDims(db);
    expect(mid.under32.size).toBeGreaterThanOrEqual(5 * 64);
    expect(mid.under32.size).toBeLessThan(mid.distinct.size);
    const { result, sent } = await refill(file);
    expect(result.status).toBe('ok');
    expect(sent.filter((h) => mid.under32.has(h))).toEqual([]);
    expect(new Set(sent).size).toBe(sent.length);
    expect(sent.length).toBe(mid.distinct.size - mid.under32.size);
    expect(vectorsByDims(db).under32).toEqual(mid.distinct);
  });
});

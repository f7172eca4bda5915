// An interrupted run never shows two versions of a document. The real upstream's split commit
// (one 300 KB file cut into 18) is applied by a child that is killed (SIGKILL at a failpoint,
// also inside the transaction that writes the documents) or stopped (SIGTERM): after each, search
// sees exactly the old file, and the counts of the aborted run say what it stored; the next run
// switches to the 18 files at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/builtin.ts';
import { Searcher } from '../../src/search/search.ts';
import { HashEmbedder } from '../../src/embedding/hash.ts';

import { classicsCorpus, classicsUpstream, cli, dbState, hasClassics, isStopped, setBranch, spawnCli, waitFor, writeConfig } from './daemon-helpers.ts';
import { openSearcher, runIndex } from '../../src/engine/library.ts';

/** 6be38c9: 千里命稿 is one file; acf8e42 splits it into 18 and deletes it. */
const BEFORE_SPLIT = '6be38c9';
const SPLIT = 'acf8e42';
const WHOLE = 'content/命/千里命稿.md';

let tmp: string;
let url: string;
let file: string;
let db: string;

beforeAll(async () => {
  if (!hasClassics) return;
  tmp = mkdtempSync(join(tmpdir(), 'ragsync-abort-'));
  url = classicsUpstream(tmp, BEFORE_SPLIT);
  ({ file, db } = writeConfig(tmp, { url }));
  expect((await runIndex(loadConfig(file))).status).toBe('ok');
  setBranch(url, SPLIT);
});

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** The documents a search can return: every path with a chunk, by keyword and by vector. */
async function searchablePaths(): Promise<string[]> {
  const cfg = loadConfig(file);
  const s = openSearcher(cfg, new HashEmbedder(64, 8));
  try {
    const paths = new Set<string>();
    for (const mode of ['keyword', 'vector'] as const) {
      for (const r of await s.search('千里命稿 日元 格局', { mode, k: 100, dedupe: false })) paths.add(r.path);
    }
    return [...paths].sort();
  } finally {
    await s.close();
  }
}

const documents = () => [...new Set(dbState(db).chunks.map((c) => c.split('|')[1]!))].sort();

describe.skipIf(!hasClassics)(classicsCorpus.title('a run interrupted in the middle of a split commit'), () => {
  it('stopped (SIGTERM): recorded aborted with what it stored, the old file only', async () => {
    // Frozen right after its third batch of vectors commits; SIGTERM arrives while frozen.
    const child = spawnCli(['index', '-c', file, '--json'], { RAGSYNC_FAILPOINT: 'after-vectors:3:stop' });
    await waitFor(() => isStopped(child.pid!) || child.exitCode !== null, 'the run to reach its third batch');
    child.kill('SIGTERM');
    child.kill('SIGCONT');
    const done = await child.done;
    expect(done.code, done.stderr).toBe(1);
    const result = JSON.parse(done.stdout) as {
      status: string;
      embedded: number;
      runId: number;
      sources: { status: string; planned: { documents: Record<string, number>; texts: number }; written: { documents: Record<string, number>; chunks: number; texts: number } }[];
    };
    expect(result.status).toBe('aborted');
    const [src] = result.sources;
    expect(src!.planned.documents).toMatchObject({ added: 18, deleted: 1 });
    // What it stored: some vectors, no documents.
    expect(src!.written.texts).toBeGreaterThan(0);
    expect(src!.written.texts).toBeLessThan(src!.planned.texts);
    expect(src!.written.documents).toMatchObject({ added: 0, changed: 0, deleted: 0, renamed: 0 });
    expect(src!.written.chunks).toBe(0);
    expect(result.embedded).toBe(src!.written.texts);
    expect(documents()).toEqual([WHOLE]);
    expect(await searchablePaths()).toEqual([WHOLE]);

    // The run history says the same.
    const status = await cli(['status', '-c', file, '--json']);
    const run = (JSON.parse(status.stdout) as { runs: { id: number; status: string; textsEmbedded: number; sources: { written: { texts: number; chunks: number } }[] }[] }).runs.find(
      (r) => r.id === result.runId,
    )!;
    expect(run).toMatchObject({ status: 'aborted', textsEmbedded: src!.written.texts });
    expect(run.sources[0]!.written).toMatchObject({ texts: src!.written.texts, chunks: 0 });
  });

  it('killed after a batch of vectors, or inside the document transaction: the old file only, never both', async () => {
    for (const point of ['after-vectors:2', 'in-documents:5']) {
      const child = await cli(['index', '-c', file], { RAGSYNC_FAILPOINT: point });
      expect(child.signal, point).toBe('SIGKILL');
      expect(documents(), point).toEqual([WHOLE]);
      expect(await searchablePaths(), point).toEqual([WHOLE]);
      expect(dbState(db).integrity).toBe('ok');
    }
  });

  it('the next run switches to the 18 files in one go, embedding nothing the interrupted runs stored', async () => {
    const next = await runIndex(loadConfig(file));
    expect(next.status).toBe('ok');
    // The run killed inside the document transaction had stored every vector first.
    expect(next.textsEmbedded).toBe(0);
    const after = documents();
    expect(after).toHaveLength(18);
    expect(after).not.toContain(WHOLE);
    expect(await searchablePaths()).not.toContain(WHOLE);
  });
});

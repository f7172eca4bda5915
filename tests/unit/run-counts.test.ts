// Counts and verdicts of whole runs over small folder sources: a dry run's log never claims
// embedding, a run whose embedder fails is `failed` with planned kept and nothing written, and
// one source getting through is `partial`, not `failed`.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { parseConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import { HashEmbedder } from '../../src/embedding/hash.ts';

import { writeCorpus } from '../helpers/corpus.ts';
import { captureLog } from '../helpers/remote.ts';
import { tempDir } from '../helpers/tmp.ts';
import { runIndex } from '../../src/engine/library.ts';

/** A hash embedder that throws once `failAfter` batches went through. */
class FlakyEmbedder extends HashEmbedder {
  calls = 0;
  constructor(private readonly failAfter: number) {
    super(32, 4);
  }
  override async embed(texts: string[]): Promise<Float32Array[]> {
    if (++this.calls > this.failAfter) throw new Error('connection refused');
    return super.embed(texts);
  }
}

let t: ReturnType<typeof tempDir>;
let config: Config;
beforeEach(() => {
  t = tempDir();
  writeCorpus(join(t.dir, 'a'), 3);
  writeCorpus(join(t.dir, 'b'), 5); // its documents 3 and 4 hold texts a does not have
  config = parseConfig({
    db: join(t.dir, 'i.db'),
    sources: [
      { name: 'a', kind: 'dir', path: join(t.dir, 'a') },
      { name: 'b', kind: 'dir', path: join(t.dir, 'b') },
    ],
  });
});
afterEach(() => t.cleanup());

const summaryOf = (lines: string[]) => lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => /^run /.test(String(l.msg)))!;

describe('run counts and verdicts', () => {
  it('a dry run: the log and the result plan texts, claim none embedded, and agree', async () => {
    const { log, lines } = captureLog('info');
    const r = await runIndex(config, { dryRun: true, log, embedder: new HashEmbedder(32, 4) });
    expect(r.textsEmbedded).toBe(0);
    const summary = summaryOf(lines) as { textsEmbedded: number; sources: Record<string, unknown>[] };
    expect(summary.textsEmbedded).toBe(0);
    for (const [i, s] of summary.sources.entries()) {
      expect(s).not.toHaveProperty('written');
      expect(s.planned).toMatchObject({ texts: r.sources[i]!.planned.texts });
      expect(r.sources[i]!.written.texts).toBe(0);
    }
    expect(JSON.stringify(lines)).not.toMatch(/"embedded":[1-9]/);
  });

  it('the embedder fails before storing anything: failed, exit 1, planned kept, nothing written, the rest not run', async () => {
    const { log, lines } = captureLog('info');
    const r = await runIndex(config, { log, embedder: new FlakyEmbedder(0) });
    expect(r.status).toBe('failed');
    expect(r.exitCode).toBe(1);
    expect(r.sources.map((s) => s.status)).toEqual(['failed', 'skipped']);
    expect(r.sources[0]!.error).toBe('embedding failed (hash cjk-ngram@1): connection refused');
    expect(r.sources[0]!.planned.texts).toBeGreaterThan(0);
    expect(r.sources[0]!.written).toMatchObject({ chunks: 0, texts: 0, documents: { added: 0 } });
    expect(r.sources[1]!.error).toBe('not run: a failed first');
    expect(summaryOf(lines)).toMatchObject({ level: 50, msg: 'run failed' });
  });

  it('the embedder fails after some batches were stored: failed when no source got through, partial when one did', async () => {
    const r = await runIndex(config, { embedder: new FlakyEmbedder(1) });
    expect(r.status).toBe('failed');
    expect(r.sources[0]!.written.texts).toBe(4);
    // Source a is indexed now; a new file in b then fails to embed: a got through, the run is partial.
    const first = await runIndex(config, { sources: ['a'], embedder: new HashEmbedder(32, 4) });
    expect(first.status).toBe('ok');
    const r2 = await runIndex(config, { embedder: new FlakyEmbedder(1) });
    expect(r2.sources.map((s) => s.status)).toEqual(['ok', 'failed']);
    expect(r2.status).toBe('partial');
    expect(r2.exitCode).toBe(3);
  });
});

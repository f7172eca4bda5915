import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { BundleUpstream } from '../helpers/upstream.ts';
import { CORPORA, tempDir } from '../helpers/tmp.ts';
import { needCorpora } from '../helpers/corpora.ts';
import { index, snapshotDb } from '../helpers/index-fixture.ts';
import { parseConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import { SqliteIndex } from '../../src/storage/sqlite/index.ts';
import { sha256 } from '../../src/core/hash.ts';

const BUNDLE = join(CORPORA, 'classics.bundle');

// Replays the real upstream history (5 commits, one of which splits large files) as if an hourly
// run had seen each commit, and compares the end state with a fresh index of the last commit.
const corpus = needCorpora('classics.bundle');

describe.skipIf(!corpus.ok)(corpus.title('replaying classics.bundle commit by commit'), () => {
  const t = tempDir();
  let up: BundleUpstream;
  const cfg = (db: string, name: string) =>
    parseConfig({
      db: join(t.dir, db),
      checkouts: join(t.dir, `checkouts-${name}`),
      sources: [{ name: 'classics', kind: 'git', url: up.bare, include: ['content/命/**/*.md'] }],
    });

  beforeAll(() => {
    up = new BundleUpstream(join(t.dir, 'classics.git'), BUNDLE);
  });
  afterAll(() => t.cleanup());

  it('embeds exactly the new distinct chunk texts at every step and converges to a fresh index', async () => {
    const commits = up.commits();
    expect(commits.length).toBe(5);
    const replay = cfg('replay.db', 'replay');
    for (const [i, sha] of commits.entries()) {
      up.moveTo(sha);
      const before = i === 0 ? null : snapshotDb(replay.db);
      const r = await index(replay);
      expect(r.status).toBe('ok');
      expect(r.sources[0]!.commit).toBe(sha);
      const after = snapshotDb(replay.db);
      const fresh = [...after.distinct].filter((h) => !before?.vectorHashes.has(h));
      expect(r.textsEmbedded, `commit ${i + 1} (${sha.slice(0, 7)})`).toBe(fresh.length);
      expect(new Set(r.sent.map((s) => sha256(s)))).toEqual(new Set(fresh));
      expect(r.sent.length).toBe(new Set(r.sent).size); // no text sent twice in a run
    }

    const store = new SqliteIndex(replay.db);
    await store.gc();
    await store.close();

    const fresh = cfg('fresh.db', 'fresh');
    const f = await index(fresh);
    expect(f.status).toBe('ok');
    const a = snapshotDb(replay.db);
    const b = snapshotDb(fresh.db);
    expect(a.chunks).toEqual(b.chunks);
    expect(a.vectors).toEqual(b.vectors);
    expect(a.chunks.length).toBeGreaterThan(1000);
  });
});

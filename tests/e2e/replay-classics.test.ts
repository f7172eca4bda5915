import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { BundleUpstream } from '../helpers/upstream.ts';
import { CORPORA, tempDir } from '../helpers/tmp.ts';
import { needCorpora } from '../helpers/corpora.ts';
import { index } from '../helpers/index-fixture.ts';
import { BACKENDS, snapshotIndex } from '../helpers/backends.ts';
import { parseConfig } from '../../src/builtin.ts';
import { openIndex } from '../../src/storage/open.ts';
import { sha256 } from '../../src/core/hash.ts';

const BUNDLE = join(CORPORA, 'classics.bundle');

// Replays the real upstream history (5 commits, one of which splits large files) as if an hourly
// run had seen each commit, and compares the end state with a fresh index of the last commit.
const corpus = needCorpora('classics.bundle');

// On every storage backend (the same body; a Postgres schema instead of a file).
describe.each(BACKENDS)('$name', (backend) => {
describe.skipIf(!corpus.ok || !backend.ok)(backend.title(corpus.title('replaying classics.bundle commit by commit')), () => {
  const t = tempDir();
  let up: BundleUpstream;
  const dbs: { db: string; cleanup: () => Promise<void> }[] = [];
  const cfg = (_db: string, name: string) =>
    parseConfig({
      db: (dbs[dbs.push(backend.fresh()) - 1]!).db,
      checkouts: join(t.dir, `checkouts-${name}`),
      sources: [{ name: 'classics', kind: 'git', url: up.bare, include: ['content/命/**/*.md'] }],
    });

  beforeAll(() => {
    up = new BundleUpstream(join(t.dir, 'classics.git'), BUNDLE);
  });
  afterAll(async () => {
    t.cleanup();
    for (const d of dbs) await d.cleanup();
  });

  it('embeds exactly the new distinct chunk texts at every step and converges to a fresh index', async () => {
    const commits = up.commits();
    expect(commits.length).toBe(5);
    const replay = cfg('replay.db', 'replay');
    // Every text of every earlier step has a vector (nothing is collected until the end).
    const embedded = new Set<string>();
    let fp = '';
    for (const [i, sha] of commits.entries()) {
      up.moveTo(sha);
      const r = await index(replay);
      fp = r.fingerprint;
      expect(r.status).toBe('ok');
      expect(r.sources[0]!.commit).toBe(sha);
      const after = await snapshotIndex(replay.db, fp);
      const fresh = [...after.distinct].filter((h) => !embedded.has(h));
      for (const h of after.distinct) embedded.add(h);
      expect(r.textsEmbedded, `commit ${i + 1} (${sha.slice(0, 7)})`).toBe(fresh.length);
      expect(new Set(r.sent.map((s) => sha256(s)))).toEqual(new Set(fresh));
      expect(r.sent.length).toBe(new Set(r.sent).size); // no text sent twice in a run
    }

    const store = openIndex(replay, 'admin');
    await store.gc();

    const fresh = cfg('fresh.db', 'fresh');
    const f = await index(fresh);
    expect(f.status).toBe('ok');
    const a = await snapshotIndex(replay.db, fp);
    const b = await snapshotIndex(fresh.db, fp);
    expect(a.chunks).toEqual(b.chunks);
    expect(a.vectors).toEqual(b.vectors);
    expect(a.chunks.length).toBeGreaterThan(1000);
    expect((await store.status()).coverage).toEqual([{ fingerprint: fp, dims: 1024, covered: b.distinct.size, stored: b.distinct.size }]);
    await store.close();
  }, 600_000);
});
});

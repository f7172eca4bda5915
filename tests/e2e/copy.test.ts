// `ragsync copy` between backends: a classics index (CJK chunks, the corpus lexicon) goes SQLite →
// Postgres → a new SQLite file, vectors included and nothing re-embedded; every copy searches as
// the original does, and a no-op `index` on the last one embeds nothing. A target that holds an
// index is refused untouched.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/builtin.ts';
import type { Config } from '../../src/config/load.ts';
import { EXIT } from '../../src/core/errors.ts';
import { Searcher } from '../../src/search/search.ts';
import { BACKENDS, snapshotIndex } from '../helpers/backends.ts';
import { needCorpora } from '../helpers/corpora.ts';
import { index } from '../helpers/index-fixture.ts';
import { needPostgres } from '../helpers/postgres.ts';
import { CORPORA, tempDir } from '../helpers/tmp.ts';
import { BundleUpstream } from '../helpers/upstream.ts';
import { cli } from './daemon-helpers.ts';
import { openSearcher } from '../../src/engine/library.ts';

const corpus = needCorpora('classics.bundle');
const pg = needPostgres();
const QUERIES = ['伤官配印', '甲木参天', 'the wood of spring needs fire', '"天道有寒暖"', 'jia mu', '用神'];
const MODES = ['hybrid', 'keyword', 'vector'] as const;

describe.skipIf(!corpus.ok || !pg.ok)(pg.title(corpus.title('ragsync copy: SQLite → Postgres → SQLite')), () => {
  const t = tempDir('ragsync-copy-');
  const postgres = BACKENDS.find((b) => b.name === 'postgres')!;
  const pgAt = postgres.fresh();
  // The same sources indexed straight into Postgres: what the copy there must search like.
  const pgDirect = postgres.fresh();
  const first = join(t.dir, 'first.db');
  const back = join(t.dir, 'back.db');
  let up: BundleUpstream;
  const input = (db: string) => ({
    db,
    checkouts: join(t.dir, 'checkouts'),
    embedder: { provider: 'hash' as const, dims: 256 },
    sources: [{ name: 'classics', kind: 'git' as const, url: up.bare, include: ['content/命/滴天髓/**/*.md'], chunker: 'classics' }],
  });
  const config = (db: string): Config => parseConfig(input(db));
  const results = async (db: string) => {
    const s = openSearcher(config(db));
    try {
      const out: unknown[] = [];
      for (const q of QUERIES) {
        for (const mode of MODES) {
          const hits = await s.search(q, { k: 8, mode });
          out.push([q, mode, hits.map((h) => [h.id, h.path, h.startLine, h.endLine, h.score.toFixed(6)])]);
        }
      }
      return out;
    } finally {
      await s.close();
    }
  };

  beforeAll(async () => {
    up = new BundleUpstream(join(t.dir, 'classics.git'), join(CORPORA, 'classics.bundle'));
    for (const db of [first, pgDirect.db]) expect((await index(config(db))).status).toBe('ok');
  }, 240_000);
  afterAll(async () => {
    t.cleanup();
    await pgAt.cleanup();
    await pgDirect.cleanup();
  });

  it('copies both ways with the same chunks and vectors, searches alike, and the copy re-indexes embedding nothing', async () => {
    const cfgFile = join(t.dir, 'ragsync.json');
    writeFileSync(cfgFile, JSON.stringify(input(first)));
    const there = await cli(['copy', '-c', cfgFile, '--to', pgAt.db, '--json']);
    expect(there.code, there.stderr).toBe(0);
    const counts = JSON.parse(there.stdout) as { documents: number; chunks: number; vectors: number; chunksHash: string; vectorsHash: string };
    expect(counts.chunks).toBeGreaterThan(200);
    const home = await cli(['copy', '--from', pgAt.db, '--to', back]);
    expect(home.code, home.stderr).toBe(0);
    expect(home.stdout).toContain(`${counts.documents} documents, ${counts.chunks} chunks (${counts.chunksHash.slice(0, 12)}), ${counts.vectors} vectors (${counts.vectorsHash.slice(0, 12)})`);

    // What the roles read back: the same chunks in the same order, the same vectors bit for bit.
    const fp = 'hash:cjk-ngram@1:256';
    const original = await snapshotIndex(first, fp);
    expect(original.vectors.length).toBe(original.distinct.size);
    expect(await snapshotIndex(pgAt.db, fp)).toEqual(original);
    expect(await snapshotIndex(back, fp)).toEqual(original);

    expect(await results(pgAt.db)).toEqual(await results(pgDirect.db));
    expect(await results(back)).toEqual(await results(first));

    for (const db of [back, pgAt.db]) {
      const again = await index(config(db));
      expect({ status: again.status, embedded: again.textsEmbedded, sent: again.sent.length }, db).toEqual({ status: 'ok', embedded: 0, sent: 0 });
      expect(again.sources[0]!.planned.documents).toMatchObject({ added: 0, changed: 0, deleted: 0 });
    }
  }, 240_000);

  it('refuses a target that holds an index, leaving it as it was; a bad target is one line, non-zero', async () => {
    const fp = 'hash:cjk-ngram@1:256';
    const before = await snapshotIndex(back, fp);
    const r = await cli(['copy', '--from', pgAt.db, '--to', back]);
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/already holds an index \(1 sources, \d+ documents\): copy writes only into an empty one/);
    expect(await snapshotIndex(back, fp)).toEqual(before);

    const refused = await cli(['copy', '--from', first, '--to', 'postgres://nobody@127.0.0.1:1/none']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/cannot connect to postgres:\/\/nobody@127\.0\.0\.1:1\/none/);

    const missing = join(t.dir, 'missing.db');
    const none = await cli(['copy', '--from', missing, '--to', join(t.dir, 'never.db')]);
    expect(none.code).toBe(EXIT.failed);
    expect(none.stderr).toMatch(/no index at .*missing\.db/);
    expect(existsSync(join(t.dir, 'never.db'))).toBe(false);
  }, 120_000);
});

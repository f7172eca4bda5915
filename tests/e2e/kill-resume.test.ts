import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, writeFileSync, rmSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { BundleUpstream } from '../helpers/upstream.ts';
import { CORPORA, tempDir } from '../helpers/tmp.ts';
import { snapshotDb } from '../helpers/index-fixture.ts';
import { runCli } from '../helpers/cli.ts';

const BUNDLE = join(CORPORA, 'classics.bundle');

function integrity(db: string): string {
  const conn = new BetterSqlite3(db);
  try {
    return conn.pragma('integrity_check', { simple: true }) as string;
  } finally {
    conn.close();
  }
}

// A run killed with SIGKILL (no cleanup at all) at exact points of the apply loop: the database stays
// consistent, the next run completes, ends where an uninterrupted run ends, and re-embeds nothing stored.
describe.skipIf(!existsSync(BUNDLE))('SIGKILL during index', () => {
  const t = tempDir();
  let reference: ReturnType<typeof snapshotDb>;
  const writeConfig = (name: string) => {
    const file = join(t.dir, `${name}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        db: `${name}.db`,
        checkouts: 'checkouts',
        embedder: { provider: 'hash', dims: 256, batchSize: 64 },
        sources: [{ name: 'classics', kind: 'git', url: 'classics.git', include: ['content/命/**/*.md'] }],
      }),
    );
    return { file, db: join(t.dir, `${name}.db`) };
  };

  beforeAll(async () => {
    new BundleUpstream(join(t.dir, 'classics.git'), BUNDLE);
    const ref = writeConfig('reference');
    const r = await runCli(['index', '--json', '-c', ref.file]);
    expect(r.code).toBe(0);
    reference = snapshotDb(ref.db);
  });
  afterAll(() => t.cleanup());

  it.each(['after-vectors:1', 'after-vectors:7', 'after-documents:1', 'after-documents:3'])(
    'killed at %s, the next run converges without re-embedding',
    async (point) => {
      const name = `kill-${point.replace(':', '-')}`;
      const c = writeConfig(name);
      const killed = await runCli(['index', '--json', '-c', c.file], { RAGSYNC_FAILPOINT: point });
      expect(killed.signal).toBe('SIGKILL');
      expect(integrity(c.db)).toBe('ok');
      const stored = snapshotDb(c.db).vectorHashes;
      expect(stored.size).toBeGreaterThan(0);

      const resumed = await runCli(['index', '--json', '-c', c.file]);
      expect(resumed.code, resumed.stderr).toBe(0);
      const result = JSON.parse(resumed.stdout);
      const end = snapshotDb(c.db);
      expect(end.chunks).toEqual(reference.chunks);
      expect(end.vectors).toEqual(reference.vectors);
      expect(result.embedded).toBe([...end.distinct].filter((h) => !stored.has(h)).length);

      const runs = new BetterSqlite3(c.db, { readonly: true });
      const statuses = runs.prepare('SELECT status FROM runs ORDER BY id').pluck().all();
      runs.close();
      expect(statuses).toEqual(['aborted', 'ok']);
      rmSync(join(t.dir, `${name}.db`), { force: true });
    },
  );
});

// The test run's private PostgreSQL: a cluster whose run was killed is stopped and removed by the
// next run, and only such a cluster.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { serverBinDir, startCluster, stopStaleClusters } from '../helpers/pg-cluster.ts';

const bin = serverBinDir();
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

describe.skipIf(!bin)('test clusters', () => {
  it('a cluster whose owner process is gone is stopped and its folder removed; one whose owner lives is left', async () => {
    const mine = await startCluster(bin!);
    const orphan = await startCluster(bin!);
    try {
      const a = { port: Number(new URL(mine.url).port), dir: mine.dir };
      const b = { port: Number(new URL(orphan.url).port), dir: orphan.dir };
      expect(await accepts(b.port)).toBe(true);
      // The orphan's run was killed: its owner is a process that has exited.
      const dead = spawnSync('true').pid!;
      writeFileSync(join(b.dir, 'owner.pid'), String(dead));
      const removed = stopStaleClusters(bin!);
      expect(removed).toContain(b.dir);
      expect(existsSync(b.dir)).toBe(false);
      expect(await accepts(b.port)).toBe(false);
      // This run's cluster is untouched.
      expect(existsSync(a.dir)).toBe(true);
      expect(await accepts(a.port)).toBe(true);
    } finally {
      mine.stop();
      orphan.stop();
    }
  });
});

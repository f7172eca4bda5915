import pg from 'pg';
import { ensurePgvector, serverBinDir, startCluster } from '../tests/helpers/pg-cluster.ts';

/**
 * The server a Postgres bench runs against: `url` when given, else a private cluster like the
 * tests' (tests/helpers/pg-cluster.ts: fsync off, stopped by `stop`) with pgvector enabled.
 */
export async function benchServer(url: string | undefined): Promise<{ url: string; stop(): void }> {
  if (url) return { url, stop() {} };
  const bin = serverBinDir();
  if (!bin) throw new Error('no PostgreSQL server: pass --pg URL');
  const why = ensurePgvector(bin);
  if (why) throw new Error(why);
  const cluster = await startCluster(bin);
  const c = new pg.Client({ connectionString: cluster.url });
  await c.connect();
  await c.query('CREATE EXTENSION IF NOT EXISTS vector').finally(() => c.end());
  return cluster;
}

import pg from 'pg';
import { ensurePgvector, serverBinDir, startCluster, stopStaleClusters } from './pg-cluster.ts';

/**
 * Vitest global setup: gives the Postgres suites a server. RAGSYNC_TEST_PG_URL set: that server
 * (nothing is started). Else a private cluster for this run, stopped at its end; when none can be
 * started, RAGSYNC_TEST_PG_SKIP says why (tests/helpers/postgres.ts skips, or fails under CI=true).
 * Workers and the CLIs they spawn inherit both variables.
 */
export default async function setup(): Promise<(() => void) | undefined> {
  if (process.env.RAGSYNC_TEST_PG_URL) return prepare(process.env.RAGSYNC_TEST_PG_URL).then(() => undefined);
  // A developer's run that needs no Postgres saves the cluster's start (about 1.5 s).
  if (process.env.RAGSYNC_TEST_PG === 'off') return skip('RAGSYNC_TEST_PG=off');
  const bin = serverBinDir();
  if (!bin) return skip('no PostgreSQL server in /usr/lib/postgresql (apt-get install postgresql), and RAGSYNC_TEST_PG_URL is unset');
  let why: string | null;
  try {
    why = ensurePgvector(bin);
  } catch (err) {
    why = `building pgvector failed: ${(err as Error).message.split('\n')[0]}`;
  }
  if (why) return skip(why);
  stopStaleClusters(bin);
  const cluster = await startCluster(bin);
  // An interrupted run (Ctrl-C, a CI timeout's SIGTERM) stops its cluster too; a killed one leaves
  // it to the next run's stopStaleClusters.
  const interrupted = (signal: NodeJS.Signals) => {
    cluster.stop();
    // Then what the signal would have done: the runner's own handler, else the default (exit).
    if (!process.listenerCount(signal)) process.kill(process.pid, signal);
  };
  // First in line: the runner's own handlers exit the process (an exit inside an 'exit' listener
  // ends it there, before later listeners).
  process.prependOnceListener('exit', cluster.stop);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.prependOnceListener(signal, interrupted);
  try {
    await prepare(cluster.url);
  } catch (err) {
    cluster.stop();
    throw err;
  }
  process.env.RAGSYNC_TEST_PG_URL = cluster.url;
  return () => cluster.stop();
}

function skip(reason: string): undefined {
  process.env.RAGSYNC_TEST_PG_SKIP = reason;
  return undefined;
}

/** The extension once, before test files race to create it in their own schemas. */
async function prepare(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('CREATE EXTENSION IF NOT EXISTS vector');
  } finally {
    await c.end();
  }
}

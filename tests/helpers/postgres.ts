import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface PostgresCheck {
  /** A server is there (tests/helpers/pg-setup.ts started one, or RAGSYNC_TEST_PG_URL names one). */
  ok: boolean;
  /** Why the Postgres suites skip ('' when they run). */
  reason: string;
  /** A suite title that carries the skip reason; under CI=true a missing server fails the file instead. */
  title(name: string): string;
}

/** Whether the Postgres suites can run, like needCorpora: skip and say why, or fail under CI=true. */
export function needPostgres(): PostgresCheck {
  if (process.env.RAGSYNC_TEST_PG_URL) return { ok: true, reason: '', title: (name) => name };
  const reason = `no PostgreSQL with pgvector: ${process.env.RAGSYNC_TEST_PG_SKIP ?? 'the global setup did not run'} (or set RAGSYNC_TEST_PG_URL)`;
  let said = false;
  return {
    ok: false,
    reason,
    title(name) {
      if (process.env.CI === 'true') throw new Error(`CI=true and no PostgreSQL for "${name}": ${reason}`);
      if (!said) process.stderr.write(`skipped: ${reason}\n`);
      said = true;
      return `${name} [skipped: ${reason}]`;
    },
  };
}

/** The test server's URL with `params` added (schema=…, …). */
export function pgUrl(params: Record<string, string> = {}): string {
  const u = new URL(process.env.RAGSYNC_TEST_PG_URL!);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

/** A fresh schema name on the test server and its URL; `drop` removes the schema and all in it. */
export function freshSchema(prefix = 't'): { schema: string; url: string; drop: () => Promise<void> } {
  const schema = `${prefix}_${randomBytes(6).toString('hex')}`;
  return { schema, url: pgUrl({ schema }), drop: () => pgQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).then(() => undefined) };
}

/** One statement on the test server, on a connection of its own. */
export async function pgQuery<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
  const c = new pg.Client({ connectionString: process.env.RAGSYNC_TEST_PG_URL });
  await c.connect();
  try {
    return (await c.query<R>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

import { existsSync } from 'node:fs';
import type { PoolConfig } from 'pg';
import { RagsyncError, EXIT } from '../../core/errors.ts';
import { shownDb } from '../../core/db-url.ts';

/** Where a Postgres index lives and how to reach it, from the configured `db` URL. */
export interface PgLocation {
  /** For pg.Pool: the URL less ragsync's own parameters (TLS, host, credentials stay). */
  pool: PoolConfig;
  /** The schema holding the index (`?schema=`, default ragsync). */
  schema: string;
  /** The URL without its password, for messages and logs. */
  shown: string;
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * postgres://user:password@host:port/database?schema=NAME&pool=N&statement_timeout=MS — the
 * password may come from PGPASSWORD instead; sslmode (as libpq reads it), sslrootcert, sslcert and
 * sslkey (files) set TLS; the rest are pg's own.
 */
export function pgLocation(db: string): PgLocation {
  const shown = shownDb(db);
  let url: URL;
  try {
    url = new URL(db);
  } catch {
    throw new RagsyncError(`db: not a valid Postgres URL (got ${JSON.stringify(shown)})`, EXIT.usage);
  }
  const take = (name: string): string | null => {
    const v = url.searchParams.get(name);
    url.searchParams.delete(name);
    return v;
  };
  const schema = take('schema') ?? 'ragsync';
  if (!SCHEMA_NAME.test(schema)) {
    throw new RagsyncError(`db: ?schema= must be a plain SQL name (letters, digits, _; got ${JSON.stringify(schema)})`, EXIT.usage);
  }
  const count = (name: string, raw: string | null): number | undefined => {
    if (raw === null) return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new RagsyncError(`db: ?${name}= must be a positive whole number (got ${JSON.stringify(raw)})`, EXIT.usage);
    return n;
  };
  // TLS files named by the URL, checked here so a typo is named as the parameter it is.
  for (const name of ['sslrootcert', 'sslcert', 'sslkey']) {
    const file = url.searchParams.get(name);
    if (file && file !== 'system' && !existsSync(file)) throw new RagsyncError(`db: ?${name}= names a file that does not exist: ${file}`, EXIT.usage);
  }
  // sslmode as libpq and psql read it (require: encrypted, not verified; verify-ca / verify-full:
  // checked against sslrootcert), not pg's older reading of every mode as verify-full.
  if (url.searchParams.has('sslmode') && !url.searchParams.has('uselibpqcompat')) url.searchParams.set('uselibpqcompat', 'true');
  const max = count('pool', take('pool'));
  const timeout = count('statement_timeout', take('statement_timeout'));
  return {
    pool: {
      connectionString: url.toString(),
      ...(max !== undefined ? { max } : {}),
      ...(timeout !== undefined ? { statement_timeout: timeout } : {}),
      connectionTimeoutMillis: 10_000,
      application_name: 'ragsync',
    },
    schema,
    shown,
  };
}

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { RagsyncError, EXIT } from '../../core/errors.ts';
import { packageRoot } from '../../core/package-root.ts';
import { StorageError } from '../errors.ts';
import { pgStorageError } from './errors.ts';
import type { PgLocation } from './location.ts';

/** bigint (counts, ids) as numbers: ids and counts of an index stay far below 2^53. */
const typesOf = (lib: typeof pg): pg.CustomTypesConfig => ({
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20 ? (v: string) => Number(v) : lib.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
});

export const PG_MIGRATIONS_DIR = join(packageRoot(import.meta.url), 'migrations', 'postgres');
const MIGRATION_FILE = /^(\d+)_([\w-]+)\.sql$/;

export type PgMode =
  /** Reads and writes; creates the schema and applies pending migrations. */
  | 'write'
  /** Reads; the index must exist and be of a version this code knows. */
  | 'read'
  /** A dry run: one transaction, rolled back at close, so nothing the run does is kept. */
  | 'dryrun';

/** Anything that runs a query: the pool, or the client of a transaction. */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
}

/** `"name"` (names reaching SQL are checked plain names; quoting keeps their case). */
export const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The key of a schema's advisory locks: one per purpose (migrating, the run lock, building an HNSW index). */
export const LOCK_SPACE = { migrate: 0x72616701, run: 0x72616702, ann: 0x72616703 } as const;

/**
 * One Postgres index: a pool (one client in a dry run) whose connections search the index's schema
 * (then pgvector's), migrated or checked once before the first query. Errors leave it as
 * StorageErrors naming the server without its password.
 */
export class PgDb {
  /** The server settings each of this pool's connections holds (withSettings). */
  private readonly sessionSettings = new WeakMap<pg.PoolClient, Map<string, string>>();
  /** Made at the first call: pg is loaded only by processes that use a Postgres index. */
  private poolRef: pg.Pool | null = null;
  readonly schema: string;
  readonly shown: string;
  private readyPromise: Promise<void> | null = null;
  /** The dry run's one client, inside its transaction. */
  private session: pg.PoolClient | null = null;
  /** Set when the connection holding the run lock ended: this process may no longer write. */
  lockLost: StorageError | null = null;
  /** The server session (backend pid) holding this process's run lock, while held. */
  runLockBackend: number | null = null;
  /** The lease generation of each source this worker holds: its writes check it (leases.ts fence). */
  readonly fences = new Map<string, number>();

  constructor(
    private readonly at: PgLocation,
    readonly mode: PgMode,
  ) {
    this.schema = at.schema;
    this.shown = at.shown;
  }

  private get pool(): pg.Pool {
    if (!this.poolRef) throw new Error('the Postgres index is used before it is ready');
    return this.poolRef;
  }

  private async makePool(): Promise<pg.Pool> {
    const lib = (await import('pg')).default;
    const pool = new lib.Pool({ max: 4, ...this.at.pool, ...(this.mode === 'dryrun' ? { max: 1 } : {}), types: typesOf(lib) });
    // An idle connection the server dropped must not crash the process; the next query reconnects.
    pool.on('error', () => {});
    // pg emits 'error' on a checked-out client whose connection ends, besides failing its query;
    // the query's failure is what callers handle, the event must not end the process.
    pool.on('connect', (c) => c.on('error', () => {}));
    return pool;
  }

  /** Connects, checks the server and the index, and migrates (write) — once. */
  ready(): Promise<void> {
    this.readyPromise ??= this.open().catch((err: unknown) => {
      throw this.wrap(err);
    });
    return this.readyPromise;
  }

  wrap(err: unknown): unknown {
    return pgStorageError(err, this.shown);
  }

  /** The pool (or the dry run's transaction) as a Queryable, once ready, its errors wrapped. */
  readonly q: Queryable = {
    query: async <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => {
      await this.ready();
      try {
        return await (this.session ?? this.pool).query<R>(sql, params);
      } catch (err) {
        throw this.wrap(err);
      }
    },
  };

  /** A query's rows, on the pool (or the dry run's transaction). */
  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
    return (await this.q.query<R>(sql, params)).rows;
  }

  /** Queries on one client, its errors wrapped; `check` runs before each (to refuse a finished transaction). */
  private on(c: pg.PoolClient, check: () => void = () => {}): Queryable {
    return {
      query: async <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => {
        check();
        try {
          return await c.query<R>(sql, params);
        } catch (err) {
          throw this.wrap(err);
        }
      },
    };
  }

  /** Runs `fn` in one transaction (a savepoint inside a dry run's). */
  async tx<T>(fn: (c: Queryable) => Promise<T>): Promise<T> {
    const t = await this.begin();
    try {
      const out = await fn(t.q);
      await t.commit();
      return out;
    } catch (err) {
      await t.rollback(err);
      throw this.wrap(err);
    }
  }

  /**
   * A transaction held open across calls (a savepoint inside a dry run's): its queries, then one
   * commit or rollback, which gives the connection back.
   */
  async begin(): Promise<{ q: Queryable; commit(): Promise<void>; rollback(err?: unknown): Promise<void> }> {
    await this.ready();
    const session = this.session;
    let c: pg.PoolClient;
    try {
      c = session ?? (await this.pool.connect());
      await c.query(session ? 'SAVEPOINT ragsync_tx' : 'BEGIN');
    } catch (err) {
      throw this.wrap(err);
    }
    let open = true;
    let finished = false;
    const q = this.on(c, () => {
      if (!open) throw new Error('the transaction is already finished');
    });
    return {
      q,
      commit: async () => {
        if (finished) throw new Error('the transaction is already finished');
        open = false;
        finished = true;
        try {
          await c.query(session ? 'RELEASE SAVEPOINT ragsync_tx' : 'COMMIT');
        } catch (err) {
          if (!session) c.release(err instanceof Error ? err : undefined);
          throw this.wrap(err);
        }
        if (!session) c.release();
      },
      rollback: async (err?: unknown) => {
        if (finished) return;
        open = false;
        finished = true;
        await c.query(session ? 'ROLLBACK TO SAVEPOINT ragsync_tx' : 'ROLLBACK').catch(() => {});
        // A client whose connection failed is not given back to the pool for reuse.
        if (!session) c.release(err instanceof Error && !(err as { code?: unknown }).code ? err : undefined);
      },
    };
  }

  /**
   * Runs `fn` on one connection with these server settings in force (names from code, never from
   * requests). A pooled connection keeps what was set on it, so a setting already in place costs
   * no round trip: a search whose settings match its connection's is one query, not a transaction
   * of SET LOCALs. Inside a dry run's transaction they are set for that transaction alone.
   */
  async withSettings<T>(settings: Record<string, string>, fn: (c: Queryable) => Promise<T>): Promise<T> {
    const sets = (have: Map<string, string> | undefined) =>
      Object.entries(settings)
        .filter(([name, value]) => have?.get(name) !== value)
        .map(([name, value]) => {
          if (!/^[a-z_][a-z0-9_.]*$/.test(name)) throw new Error(`bad setting name ${JSON.stringify(name)}`);
          return [name, value] as const;
        });
    if (this.mode === 'dryrun') {
      return this.tx(async (c) => {
        for (const [name, value] of sets(undefined)) await c.query('SELECT set_config($1, $2, true)', [name, value]);
        return fn(c);
      });
    }
    const c = await this.ownClient();
    let have = this.sessionSettings.get(c);
    if (!have) this.sessionSettings.set(c, (have = new Map()));
    const q = this.on(c);
    try {
      const missing = sets(have);
      if (missing.length) {
        // One round trip for all; forgotten first, so a failure leaves nothing believed set.
        for (const [name] of missing) have.delete(name);
        await q.query(`SELECT ${missing.map((_, i) => `set_config($${2 * i + 1}, $${2 * i + 2}, false)`).join(', ')}`, missing.flat());
        for (const [name, value] of missing) have.set(name, value);
      }
      const out = await fn(q);
      this.releaseOwn(c);
      return out;
    } catch (err) {
      this.releaseOwn(c, err);
      throw err;
    }
  }

  /** Refuses index writes once the run lock's connection ended: another run may hold the lock by now. */
  assertLockHeld(): void {
    if (this.lockLost) throw this.lockLost;
  }

  /** A client of its own (the run lock's session), outside the pool's rotation. */
  async ownClient(): Promise<pg.PoolClient> {
    await this.ready();
    if (this.session) return this.session;
    try {
      return await this.pool.connect();
    } catch (err) {
      throw this.wrap(err);
    }
  }

  /** Gives back a client from ownClient (the dry run's session stays); one that failed is discarded. */
  releaseOwn(c: pg.PoolClient, err?: unknown): void {
    if (c === this.session) return;
    c.release(err instanceof Error ? err : undefined);
  }

  async close(): Promise<void> {
    if (this.session) {
      await this.session.query('ROLLBACK').catch(() => {});
      this.session.release();
      this.session = null;
    }
    await this.poolRef?.end().catch(() => {});
    this.poolRef = null;
  }

  private async open(): Promise<void> {
    this.poolRef ??= await this.makePool();
    const c = await this.pool.connect();
    try {
      await this.checkServer(c);
      // Every connection searches the index's schema first, then wherever pgvector's types live
      // (public, or "extensions" on some managed services): set at connection start from now on.
      const [ext] = (await c.query<{ nspname: string }>(
        `SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`,
      )).rows;
      const path = [ident(this.schema), ...(ext ? [ident(ext.nspname)] : [])].join(',');
      (this.pool.options as { options?: string }).options = `-c search_path=${path.replace(/ /g, '\\ ')}`;
      await c.query(`SELECT set_config('search_path', $1, false)`, [path]);
      if (this.mode === 'dryrun') {
        await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
        this.session = c;
        await this.migrate(c, false);
        return;
      }
      if (this.mode === 'write') await this.migrate(c, true);
      else await this.checkIndex(c);
    } finally {
      if (this.session !== c) c.release();
    }
  }

  /** pgvector is there (or can be made), and a writer is on a primary. */
  private async checkServer(c: pg.PoolClient): Promise<void> {
    const ext = await c.query(`SELECT 1 FROM pg_extension WHERE extname = 'vector'`);
    if (!ext.rowCount) {
      if (this.mode !== 'write') throw noExtension(this.shown, null);
      try {
        await c.query('CREATE EXTENSION IF NOT EXISTS vector');
      } catch (err) {
        throw noExtension(this.shown, err);
      }
    }
    if (this.mode === 'write') {
      const r = await c.query<{ recovery: boolean; ro: string }>(
        `SELECT pg_is_in_recovery() AS recovery, current_setting('transaction_read_only') AS ro`,
      );
      if (r.rows[0]!.recovery || r.rows[0]!.ro === 'on') {
        throw new StorageError('permission', `the database ${this.shown} is read-only (a replica?): point "db" at the primary to index`, {
          code: '25006',
          path: this.shown,
        });
      }
    }
  }

  /** The versions applied in the schema; null when it holds no ragsync index. Refuses someone else's schema. */
  private async applied(c: Queryable): Promise<Set<number> | null> {
    const tables = await c.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = $1 AND c.relkind IN ('r', 'v', 'p')`,
      [this.schema],
    );
    if (!tables.rowCount) return null;
    if (!tables.rows.some((t) => t.name === 'ragsync_migrations')) {
      throw new RagsyncError(
        `schema "${this.schema}" of ${this.shown} holds tables that are not a ragsync index; ragsync leaves them alone: choose another ?schema=`,
        EXIT.usage,
      );
    }
    const rows = await c.query<{ version: number }>(`SELECT version FROM ${ident(this.schema)}.ragsync_migrations`);
    return new Set(rows.rows.map((r) => r.version));
  }

  private async checkIndex(c: Queryable): Promise<void> {
    const done = await this.applied(c);
    if (!done) throw new RagsyncError(`no index at ${this.shown} (schema "${this.schema}"): run "ragsync index" first`, EXIT.failed);
    refuseNewer(done, this.shown);
    // A reader never migrates (it may lack the grants): an index the writer has not upgraded yet is named as such.
    const pending = listPgMigrations().filter((m) => !done.has(m.version));
    if (pending.length) {
      throw new RagsyncError(
        `the index at ${this.shown} predates this ragsync (schema version ${Math.max(0, ...done)}, this one reads ${pending.at(-1)!.version}): run "ragsync index" once to upgrade it`,
        EXIT.usage,
      );
    }
  }

  /** Applies pending migrations; two processes migrating at once take turns (an advisory lock). */
  private async migrate(c: pg.PoolClient, commit: boolean): Promise<void> {
    const all = listPgMigrations();
    const quick = await this.applied(c);
    if (quick) refuseNewer(quick, this.shown);
    if (quick && all.every((m) => quick.has(m.version))) return;
    if (commit) await c.query('BEGIN');
    else await c.query('SAVEPOINT ragsync_migrate');
    try {
      await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_SPACE.migrate, this.schema]);
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${ident(this.schema)}`);
      await c.query(`CREATE TABLE IF NOT EXISTS ${ident(this.schema)}.ragsync_migrations (
        version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
      const done = (await this.applied(c)) ?? new Set<number>();
      for (const m of all) {
        if (done.has(m.version)) continue;
        await c.query(m.sql);
        await c.query(`INSERT INTO ${ident(this.schema)}.ragsync_migrations (version, name) VALUES ($1, $2)`, [m.version, m.name]);
      }
      await c.query(commit ? 'COMMIT' : 'RELEASE SAVEPOINT ragsync_migrate');
    } catch (err) {
      await c.query(commit ? 'ROLLBACK' : 'ROLLBACK TO SAVEPOINT ragsync_migrate').catch(() => {});
      throw err;
    }
  }
}

function refuseNewer(done: Set<number>, shown: string): void {
  const known = Math.max(...listPgMigrations().map((m) => m.version));
  const newest = Math.max(0, ...done);
  if (newest > known) {
    throw new RagsyncError(`the index at ${shown} was made by a newer ragsync (schema version ${newest}, this one knows ${known}): upgrade ragsync`, EXIT.usage);
  }
}

function noExtension(shown: string, err: unknown): StorageError {
  const said = err instanceof Error ? ` (${err.message})` : '';
  const missing = /could not open extension control file|is not available/i.test(said);
  return new StorageError(
    'permission',
    missing
      ? `the pgvector extension is not installed on the server of ${shown}${said}: install pgvector there (packages postgresql-NN-pgvector, or your provider's "vector" extension), then run "CREATE EXTENSION vector;"`
      : `the pgvector extension is not enabled in the database of ${shown}${said}: run "CREATE EXTENSION vector;" there as the database owner or a superuser (managed Postgres: enable the "vector" extension in its settings)`,
    { code: (err as { code?: string } | null)?.code, path: shown, cause: err },
  );
}

let migrations: { version: number; name: string; sql: string }[] | null = null;
export function listPgMigrations(): { version: number; name: string; sql: string }[] {
  migrations ??= readdirSync(PG_MIGRATIONS_DIR)
    .map((f) => MIGRATION_FILE.exec(f))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ version: Number(m[1]), name: m[2]!, sql: readFileSync(join(PG_MIGRATIONS_DIR, m[0]), 'utf8') }))
    .sort((a, b) => a.version - b.version);
  return migrations;
}

import { createRequire } from 'node:module';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import type pg from 'pg';
import type { Config } from '../config/schema.js';
import { ensurePrivateDir, ensurePrivateFile } from './files.js';

export type Db = Knex;
export type Trx = Knex.Transaction;
/** Either the root handle or a transaction: what store functions accept. */
export type Queryable = Knex | Knex.Transaction;

let driver: typeof pg | undefined;

/** The pg driver, loaded at the first PostgreSQL connection; BIGINT/COUNT as numbers (ours fit). */
export function pgDriver(): typeof pg {
  if (!driver) {
    driver = createRequire(import.meta.url)('pg') as typeof pg;
    driver.types.setTypeParser(20, (v: string) => Number(v));
  }
  return driver;
}

type Deadlines = Pick<Config['database'], 'connectTimeout' | 'acquireTimeout' | 'queryTimeout' | 'keepAlive' | 'busyTimeout'>;

/** The schema's defaults, for callers that open a database of their own (backup, restore). */
const DEFAULT_DEADLINES: Deadlines = { connectTimeout: 5_000, acquireTimeout: 10_000, queryTimeout: 10_000, keepAlive: 10_000, busyTimeout: 5_000 };

/**
 * Open the database named by the config. SQLite runs in WAL mode with a busy timeout and foreign
 * keys on, so the CLI and a running daemon can share one file. Every wait has a deadline
 * (docs/deployment.md, "Deadlines"): on PostgreSQL connectTimeout, queryTimeout (client side,
 * which ends a wait on a silent link, and as statement_timeout), acquireTimeout for the pool, and
 * TCP keepalive on every connection.
 */
export function openDb(database: Pick<Config['database'], 'client' | 'url' | 'filename' | 'poolMax'> & Partial<Deadlines>): Db {
  const d = { ...DEFAULT_DEADLINES, ...definedOnly(database) };
  if (database.client === 'pg') {
    pgDriver();
    return knexFactory({
      client: 'pg',
      connection: {
        connectionString: database.url ?? '',
        connectionTimeoutMillis: d.connectTimeout,
        query_timeout: d.queryTimeout || undefined,
        statement_timeout: d.queryTimeout || undefined,
        keepAlive: true,
        keepAliveInitialDelayMillis: d.keepAlive,
      } as Knex.PgConnectionConfig,
      pool: {
        min: 0,
        max: database.poolMax,
        afterCreate(conn: pg.Client, done: (err: Error | null, c: unknown) => void) {
          dropOnQueryTimeout(conn);
          endWithDeadline(conn);
          done(null, conn);
        },
      },
      acquireConnectionTimeout: d.acquireTimeout,
      log: QUIET,
      compileSqlOnError: false,
    });
  }
  // Created private before SQLite opens it: its -wal and -shm files take the file's mode.
  ensurePrivateDir(path.dirname(database.filename));
  ensurePrivateFile(database.filename);
  const sqlite = (max: number, more = '') =>
    knexFactory({
      client: 'sqlite3',
      log: QUIET,
      compileSqlOnError: false,
      connection: { filename: database.filename },
      useNullAsDefault: true,
      acquireConnectionTimeout: d.acquireTimeout,
      pool: {
        min: 1,
        max,
        afterCreate(conn: { exec: (sql: string, cb: (err: Error | null) => void) => void }, done: (err: Error | null, c: unknown) => void) {
          const pragmas = `PRAGMA journal_mode = WAL; PRAGMA busy_timeout = ${Math.round(d.busyTimeout)}; PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL${more}`;
          conn.exec(pragmas, (err) => done(err, conn));
        },
      },
    });
  const db = sqlite(database.poolMax);
  // The writer's page cache may grow to 64 MiB (SQLite's default is 2 MiB): the index pages a large
  // import keeps writing stay in it instead of being read back from the file at every batch.
  const writer = sqlite(1, '; PRAGMA cache_size = -65536');
  writers.set(db, writer);
  return db;
}

/** Close the database: its writer (which opens its connection at the first write), then `db`. */
export async function closeDb(db: Db): Promise<void> {
  await writers.get(db)?.destroy();
  await db.destroy();
}

const writers = new WeakMap<Db, Db>();

/**
 * The handle this process writes SQLite through: a pool of one connection beside the readers'.
 * Writers meeting at SQLite's lock nap in busy_timeout's back-off (up to 100 ms a nap) while
 * others go first; this pool serves them in arrival order instead, each wait bounded by
 * database.acquireTimeout, and only another process meets the lock. Transactions take it through
 * withTransaction, and so does a single write that must not wait behind the process's own.
 * PostgreSQL, or a handle not opened by openDb: `db` itself.
 */
export const writerOf = (db: Db): Db => writers.get(db) ?? db;

/**
 * A connection that cannot serve any more is closed, so the pool opens another. pg keeps a
 * connection whose query outlived query_timeout, with that query still pending: every later query
 * on it would queue behind and time out too. And a read-only session (a standby after a failover)
 * stays read-only for its whole life, while a fresh connection may reach a writable server.
 */
function dropOnQueryTimeout(client: pg.Client): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const check = (err: unknown) => {
    const e = err as { message?: string; code?: string } | null;
    const timedOut = e?.message === 'Query read timeout';
    // A read-only one is not cut: its transaction still rolls back and the caller sees the refusal.
    if (!timedOut && e?.code !== '25006') return;
    (client as unknown as { __knex__disposed?: unknown }).__knex__disposed = err; // knex then destroys it instead of reusing it
    if (timedOut) cutClient(client);
  };
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (err: unknown, res: unknown) => {
        check(err);
        return (callback as (e: unknown, r: unknown) => unknown)(err, res);
      };
    }
    const result = query(...args);
    if (result instanceof Promise) result.catch(check);
    return result;
  };
}

/**
 * Ends a connection of svc's own outside the pool politely (Terminate, then FIN), cut after `ms`:
 * pg's end() waits for the server to close its side, which a silent link never does.
 */
export async function endClient(client: pg.Client, ms = 1_000): Promise<void> {
  const timer = setTimeout(() => cutClient(client), ms);
  // pg's own end, not the pool's bounded one (endWithDeadline) that calls this.
  const end = pgDriver().Client.prototype.end as (this: pg.Client) => Promise<void>;
  await end.call(client).catch(() => undefined);
  clearTimeout(timer);
}

/** A pooled connection ends through endClient: knex waits for end(), and a silent link never answers. */
function endWithDeadline(client: pg.Client): void {
  (client as unknown as { end: (callback?: () => void) => Promise<void> | undefined }).end = (callback) => {
    const ending = endClient(client);
    if (!callback) return ending;
    void ending.then(() => callback());
    return undefined;
  };
}

/** Drops a connection at once (pg reports it ended; a query in flight on it fails). */
function cutClient(client: pg.Client): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

const definedOnly = <T extends object>(o: T): Partial<T> => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

export const isPostgres = (db: Queryable): boolean => db.client.config.client === 'pg';

// compileSqlOnError: false keeps bound values (password hashes, tokens) out of error messages.
// Pool errors reach the operator once, as an AppError (db/migrate.ts), not printed by knex.
const QUIET = { warn() {}, error() {}, debug() {}, deprecate() {} };

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

/**
 * The pg driver, loaded at the first PostgreSQL connection (a SQLite installation never needs
 * it). PostgreSQL returns BIGINT/COUNT as strings by default; our counts fit in a JS number.
 */
export function pgDriver(): typeof pg {
  if (!driver) {
    driver = createRequire(import.meta.url)('pg') as typeof pg;
    driver.types.setTypeParser(20, (v: string) => Number(v));
  }
  return driver;
}

type Deadlines = Pick<Config['database'], 'connectTimeout' | 'acquireTimeout' | 'queryTimeout' | 'keepAlive' | 'busyTimeout'>;

/** The schema's defaults, for the few callers that open a database of their own (backup, restore). */
const DEFAULT_DEADLINES: Deadlines = { connectTimeout: 5_000, acquireTimeout: 10_000, queryTimeout: 10_000, keepAlive: 10_000, busyTimeout: 5_000 };

/**
 * Open the database named by the config. SQLite runs in WAL mode with a busy timeout and
 * foreign keys on, so the CLI and a running daemon can share one file.
 *
 * Every wait has a deadline (docs/deployment.md, "Deadlines"): on PostgreSQL a connection attempt
 * gives up after connectTimeout, a query after queryTimeout (client side, which is what ends a
 * wait on a silent link, and server side as statement_timeout), every connection has TCP
 * keepalive on, and waiting for a pooled connection gives up after acquireTimeout. A connection
 * whose query timed out is closed (dropOnQueryTimeout), so the pool opens a fresh one, and one the
 * pool ends (destroy() on stop, an idle one reaped) is cut if the server does not answer the
 * goodbye within a second (endWithDeadline).
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
  // Created private before SQLite opens it: SQLite would make it 0644 minus the umask, and its
  // -wal and -shm files take the database file's mode.
  ensurePrivateDir(path.dirname(database.filename));
  ensurePrivateFile(database.filename);
  const sqlite = (max: number) =>
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
          const pragmas = `PRAGMA journal_mode = WAL; PRAGMA busy_timeout = ${Math.round(d.busyTimeout)}; PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL`;
          conn.exec(pragmas, (err) => done(err, conn));
        },
      },
    });
  const db = sqlite(database.poolMax);
  const writer = sqlite(1);
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
 * Writers of one process meeting at SQLite's lock nap in busy_timeout's back-off (up to 100 ms a
 * nap) while others take it: under a burst of publishes the webhook worker's claims waited for
 * the whole burst. This pool hands its connection out in arrival order, each wait bounded by
 * database.acquireTimeout; only another process still meets the lock (database.busyTimeout).
 * Transactions take it through withTransaction; a single write that must not nap behind the
 * process's own writes (a claim, a credential's last use, a cleanup batch) is built on it. One
 * made through `db` runs on a reader connection and meets the lock like another process's.
 * PostgreSQL, or a handle not opened by openDb: `db` itself.
 */
export const writerOf = (db: Db): Db => writers.get(db) ?? db;

/**
 * A connection that cannot serve any more is closed, so the pool opens another: one whose query
 * timed out, and one whose session is read-only (below).
 *
 * pg answers a query that outlived query_timeout with an error but keeps the connection, whose
 * query is still pending: every later query on it would queue behind that one and time out too,
 * until TCP keepalive gives up (minutes). So a timed-out query ends its connection: the pool
 * (and anyone holding it) then sees it gone and opens another.
 */
function dropOnQueryTimeout(client: pg.Client): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const check = (err: unknown) => {
    const e = err as { message?: string; code?: string } | null;
    const timedOut = e?.message === 'Query read timeout';
    // A read-only session (a standby after a failover, default_transaction_read_only) stays
    // read-only for its whole life: a fresh connection may reach a writable server again. It is
    // not cut, so its transaction still rolls back and the caller sees the read-only refusal.
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

/**
 * A pooled connection ends through endClient: knex calls its end(callback) when the pool is
 * destroyed (a daemon stopping) or reaps an idle one, and waits for it; over a silent link that
 * wait was the whole shutdown deadline, then an exit with "work cut" where nothing was in progress.
 */
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

// compileSqlOnError: false: knex prefixes a failing query's SQL to the driver's error message; with
// its placeholders, never its bound values (password hashes, tokens), which would reach the
// CLI's stderr and the log.
// knex prints pool errors itself; ours reach the operator once, as an AppError (db/migrate.ts).
const QUIET = { warn() {}, error() {}, debug() {}, deprecate() {} };

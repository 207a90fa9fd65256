import { createRequire } from 'node:module';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import type pg from 'pg';
import { type Config, configSchema } from '../config/schema.js';
import { ensurePrivateDir, ensurePrivateFile } from './files.js';

export type Db = Knex;
export type Trx = Knex.Transaction;
export type Queryable = Knex | Knex.Transaction;
export type Row = Record<string, any>;

let driver: typeof pg | undefined;

/** Loaded at the first PostgreSQL connection; BIGINT/COUNT as numbers (ours fit). */
export function pgDriver(): typeof pg {
  if (!driver) {
    driver = createRequire(import.meta.url)('pg') as typeof pg;
    driver.types.setTypeParser(20, (v: string) => Number(v));
  }
  return driver;
}

type Deadlines = Pick<Config['database'], 'connectTimeout' | 'acquireTimeout' | 'queryTimeout' | 'keepAlive' | 'busyTimeout'>;
const DEFAULT_DEADLINES: Deadlines = configSchema.shape.database.parse(undefined);

/**
 * SQLite in WAL mode, so the CLI and a daemon share one file. Every wait has a deadline
 * (docs/deployment.md, "Deadlines"): PostgreSQL's queryTimeout is also client side, for a silent link.
 */
export function openDb(database: Pick<Config['database'], 'client' | 'url' | 'filename' | 'poolMax'> & Partial<Deadlines>): Db {
  // A deadline passed as undefined keeps its default (a NaN busy_timeout would be 0: no wait at all).
  const given = Object.fromEntries(Object.entries(database).filter(([, v]) => v !== undefined));
  const d: Deadlines = { ...DEFAULT_DEADLINES, ...given };
  const common = { log: QUIET, compileSqlOnError: false, acquireConnectionTimeout: d.acquireTimeout };
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
        // No JIT: svc's statements are short, and the planner's estimate for a walk it expects to read a large table
        // crossed jit_above_cost, compiling each run (12 ms) for a read of 1-2 ms.
        options: '-c jit=off',
      } as Knex.PgConnectionConfig,
      pool: {
        min: 0,
        max: database.poolMax,
        afterCreate(conn: pg.Client, done: (err: Error | null, c: unknown) => void) {
          dropOnQueryTimeout(conn);
          // knex ends a pooled connection with end(callback) and waits for it: through endClient.
          (conn as unknown as { end: (callback: () => void) => void }).end = (callback) => void endClient(conn).then(callback);
          done(null, conn);
        },
      },
      ...common,
    });
  }
  // Created private before SQLite opens it: its -wal and -shm files take the file's mode.
  ensurePrivateDir(path.dirname(database.filename));
  ensurePrivateFile(database.filename);
  const sqlite = (max: number, more = '') =>
    knexFactory({
      client: 'sqlite3',
      ...common,
      connection: { filename: database.filename },
      useNullAsDefault: true,
      pool: {
        min: 1,
        max,
        afterCreate(conn: { exec: (sql: string, cb: (err: Error | null) => void) => void }, done: (err: Error | null, c: unknown) => void) {
          conn.exec(`PRAGMA journal_mode = WAL; PRAGMA busy_timeout = ${Math.round(d.busyTimeout)}; PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL${more}`, (err) => done(err, conn));
        },
      },
    });
  const db = sqlite(database.poolMax);
  // A 64 MiB page cache (SQLite's default: 2 MiB) keeps the index pages a large import writes.
  writers.set(db, sqlite(1, '; PRAGMA cache_size = -65536'));
  return db;
}

export async function closeDb(db: Db): Promise<void> {
  await writers.get(db)?.destroy();
  await db.destroy();
}

const writers = new WeakMap<Db, Db>();

/**
 * SQLite's writer, a pool of one: writers meeting at SQLite's lock nap up to 100 ms while others go
 * first; the pool serves them in arrival order, and only another process meets the lock.
 */
export const writerOf = (db: Db): Db => writers.get(db) ?? db;

/**
 * Where a write outside a transaction goes: the caller's transaction, else SQLite's writer. On the read pool it
 * would meet the writer at SQLite's lock and nap there while the writer's turns go first, until busy_timeout.
 */
export const writeOn = (db: Queryable): Queryable => (db.isTransaction ? db : writerOf(db as Db));

/**
 * pg keeps a connection whose query outlived query_timeout, the query pending, so every later one
 * would time out too; a read-only session (a standby after a failover) stays so. Both are dropped.
 */
function dropOnQueryTimeout(client: pg.Client): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const check = (err: unknown) => {
    const e = err as { message?: string; code?: string } | null;
    const timedOut = e?.message === 'Query read timeout';
    // A read-only one is not cut: its transaction still rolls back and the caller sees the refusal.
    if (!timedOut && e?.code !== '25006') return;
    disposeClient(client, err);
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

/** Released to the pool, the connection is closed instead of reused (knex's own mark). */
export function disposeClient(client: pg.Client, why: unknown): void {
  (client as unknown as { __knex__disposed?: unknown }).__knex__disposed = why;
}

/** End a connection politely, cut after `ms`: pg's end() waits for the server, which a silent link never answers. */
export async function endClient(client: pg.Client, ms = 1_000): Promise<void> {
  const timer = setTimeout(() => cutClient(client), ms);
  // pg's own end, not the pool's bounded one (set in openDb) that calls this.
  const end = pgDriver().Client.prototype.end as (this: pg.Client) => Promise<void>;
  await end.call(client).catch(() => undefined);
  clearTimeout(timer);
}

/** A query in flight on it fails. */
function cutClient(client: pg.Client): void {
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
}

export const isPostgres = (db: Queryable): boolean => db.client.config.client === 'pg';

// compileSqlOnError: false keeps bound values (password hashes, tokens) out of error messages.
// Pool errors reach the operator once, as an AppError (db/migrate.ts), not printed by knex.
const QUIET = { warn() {}, error() {}, debug() {}, deprecate() {} };

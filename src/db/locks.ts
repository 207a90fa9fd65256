import type pg from 'pg';
import sqlite3 from 'sqlite3';
import path from 'node:path';
import { databaseSettingsHint } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { AppError } from '../errors.js';
import type { Logger } from '../lib/log.js';
import { type Db, endClient, pgDriver } from './connect.js';
import { ensurePrivateDir, ensurePrivateFile } from './files.js';
import { refuseMovedDatabase } from './moved.js';

/*
 * svc's locks between processes. On SQLite each is a sidecar file next to the database, held as
 * an open write transaction (BEGIN IMMEDIATE) on it: SQLite's POSIX locks do the work, dropped
 * by the operating system when the process ends (kill -9 included), so a crash blocks nothing,
 * and they keep two connections of one process apart too. The sidecar is an empty database of
 * its own, so the real one stays free for knex.
 * - The daemon's claim (`-daemon.lock`): one daemon per SQLite file; CLI commands never claim.
 * - The migration lock (`-migrate.lock`; on PostgreSQL a session advisory lock).
 */

/** A lock held by this process; release() is idempotent. */
export interface HeldLock {
  release(): Promise<void>;
}

/** The sidecar's lock, or null while another holds it; with `onWait` (called once), waited for by polling, so no libuv thread sleeps in SQLite's busy handler. */
async function sqliteLock(file: string, onWait?: () => void): Promise<HeldLock | null> {
  ensurePrivateFile(file);
  const conn = await new Promise<sqlite3.Database>((resolve, reject) => {
    const c: sqlite3.Database = new sqlite3.Database(file, (err) => {
      if (err) return reject(err);
      c.configure('busyTimeout', 0);
      // Nothing is ever written: no -journal file beside the lock file.
      c.exec('PRAGMA journal_mode = OFF', (e) => (e ? reject(e) : resolve(c)));
    });
  });
  const close = () => new Promise<void>((resolve) => conn.close(() => resolve()));
  const begin = () =>
    new Promise<boolean>((resolve, reject) =>
      conn.exec('BEGIN IMMEDIATE', (err) => {
        const code = (err as { code?: string } | null)?.code;
        return !err || code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' ? resolve(!err) : reject(err);
      }),
    );
  try {
    for (let waited = false; ; waited = true) {
      if (await begin()) {
        let released: Promise<void> | null = null;
        return { release: () => (released ??= new Promise<void>((resolve) => conn.exec('ROLLBACK', () => resolve())).then(close)) };
      }
      if (!onWait) break;
      if (!waited) onWait();
      await new Promise((r) => setTimeout(r, 50));
    }
  } catch (err) {
    await close();
    throw err;
  }
  await close();
  return null;
}

/** Claim a SQLite database for this daemon: a second `svc serve` on the file is refused. PostgreSQL takes any number of daemons. */
export async function claimDatabase(config: Pick<Config, 'database' | 'sources' | 'source'>): Promise<HeldLock> {
  const { database } = config;
  if (database.client === 'pg') return { release: async () => {} };
  refuseMovedDatabase(config);
  ensurePrivateDir(path.dirname(database.filename));
  const file = `${database.filename}-daemon.lock`;
  const lock = await sqliteLock(file).catch((err: Error) => {
    throw new AppError('database_unavailable', 503, `Cannot open ${file}: ${err.message}`, {
      hint: databaseSettingsHint(config),
      cause: err,
    });
  });
  if (lock) return lock;
  throw new AppError('database_in_use', 409, `Another svc daemon is already serving the SQLite database ${database.filename}`, {
    hint: 'One daemon per SQLite file: stop the other one first (CLI commands may run beside it). To run several daemons, use PostgreSQL (database.url in the config file every daemon reads); see "Several daemons" in the README.',
  });
}

/**
 * The key of svc's migration lock on PostgreSQL (pg_locks shows it as objid 7566947, 'svc' in
 * ASCII): one per database, so separate databases on one server do not wait for each other.
 */
export const PG_MIGRATION_LOCK_KEY = 0x737663;

/** The sidecar file that carries the migration lock of a SQLite database. */
export const sqliteMigrationLockFile = (filename: string) => `${filename}-migrate.lock`;

/**
 * Run fn while holding svc's migration lock, so that processes starting together on one
 * database migrate one after the other and late starters find nothing left to do. knex's own
 * lock lives in a table knex creates, so two processes on an empty database race to create it;
 * ours exists before any table. On PostgreSQL a session advisory lock on a connection of its own,
 * released when that connection ends, also when the process dies.
 */
export async function withMigrationLock<T>(db: Db, log: Logger | undefined, fn: () => Promise<T>): Promise<T> {
  // warn: CLI commands log warnings only, and a command that waits should say why.
  const waiting = (holder: Record<string, unknown>) => log?.warn(holder, 'waiting for another process to finish migrating this database');
  const config = db.client.config as { client: string; connection: string | pg.ClientConfig | { filename: string } };
  if (config.client !== 'pg') {
    const file = sqliteMigrationLockFile((config.connection as { filename: string }).filename);
    const lock = (await sqliteLock(file, () => waiting({ lockFile: file })))!;
    try {
      return await fn();
    } finally {
      await lock.release();
    }
  }
  const connection = typeof config.connection === 'string' ? { connectionString: config.connection } : (config.connection as pg.ClientConfig);
  // Waiting for another process's migration may rightly take longer than one query's deadline:
  // this connection keeps the connect deadline and keepalive, not the query timeouts.
  const client = new (pgDriver().Client)({ ...connection, query_timeout: undefined, statement_timeout: undefined, application_name: 'svc migration lock' });
  // A connection that drops while we hold the lock releases it; the error surfaces in the query.
  client.on('error', () => {});
  await client.connect();
  try {
    // Should this host vanish mid-migration (no FIN ever comes), let the server notice within
    // about half a minute instead of the operating system's default two hours.
    await client.query('SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3').catch(() => {});
    const { rows } = await client.query<{ got: boolean }>('SELECT pg_try_advisory_lock($1) AS got', [PG_MIGRATION_LOCK_KEY]);
    if (!rows[0].got) {
      waiting({ holder: await lockHolder(client) });
      await client.query('SELECT pg_advisory_lock($1)', [PG_MIGRATION_LOCK_KEY]);
    }
    return await fn();
  } finally {
    // Ending the session releases the lock; no unlock round trip needed. Cut if the link went
    // silent: the server then ends the session (and the lock) once its keepalive gives up.
    await endClient(client);
  }
}

/** Who holds the lock, for the operator who wonders why a start waits (null if it just ended). */
async function lockHolder(client: pg.Client): Promise<Record<string, unknown> | null> {
  // A bigint advisory key shows in pg_locks as classid (high 32 bits), objid (low), objsubid 1.
  const { rows } = await client.query(
    `SELECT a.pid, a.application_name, host(a.client_addr) AS client_addr, a.backend_start
       FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 0 AND l.objid = $1 AND l.objsubid = 1 AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [PG_MIGRATION_LOCK_KEY],
  ).catch(() => ({ rows: [] }));
  return rows[0] ?? null;
}

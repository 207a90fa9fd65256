import type pg from 'pg';
import sqlite3 from 'sqlite3';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { databaseSettingsHint } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { AppError } from '../errors.js';
import type { Logger } from '../lib/log.js';
import { type Db, endClient, pgDriver } from './connect.js';
import { ensurePrivateDir, ensurePrivateFile } from './files.js';
import { refuseMovedDatabase } from './moved.js';

/** release() is idempotent. */
export interface HeldLock {
  release(): Promise<void>;
}

/**
 * On SQLite a lock is an open BEGIN IMMEDIATE on an empty sidecar database (`-daemon.lock`,
 * `-migrate.lock`): its POSIX locks are dropped when the process ends (kill -9 included) and keep
 * two connections of one process apart too. A sidecar, so the database itself stays free for knex.
 * Null while another holds it; with `onWait` (called once), waited for by polling: no libuv thread sleeps in SQLite's busy handler.
 */
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
  let held = false;
  try {
    for (let waited = false; ; waited = true) {
      held = await begin();
      if (held) {
        let released: Promise<void> | null = null;
        return { release: () => (released ??= new Promise<void>((resolve) => conn.exec('ROLLBACK', () => resolve())).then(close)) };
      }
      if (!onWait) return null;
      if (!waited) onWait();
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    if (!held) await close();
  }
}

/** The SQLite daemon locks this process holds (it is `svc serve`). */
const claimed = new Set<string>();

/** The daemon lock of the SQLite file, or null while another holds it; one it cannot open is named, with `hint`. */
const daemonLock = (file: string, hint: string) =>
  sqliteLock(file).catch((err: Error) => {
    throw new AppError('database_unavailable', 503, `Cannot open ${file}: ${err.message}`, { hint, cause: err });
  });

/** Whether another process's daemon holds the SQLite file's daemon lock now (exact: the lock ends with its process). */
export async function sqliteDaemonServing(filename: string): Promise<boolean> {
  const file = `${filename}-daemon.lock`;
  if (claimed.has(file) || !existsSync(file)) return false;
  const lock = await daemonLock(file, 'svc reads and writes the daemon lock beside the database to learn whether a daemon serves it: run this as the user the daemon runs as.');
  await lock?.release();
  return lock === null;
}

/** One daemon per SQLite file (CLI commands never claim); PostgreSQL takes any number. */
export async function claimDatabase(config: Pick<Config, 'database' | 'sources' | 'source'>): Promise<HeldLock> {
  const { database } = config;
  if (database.client === 'pg') return { release: async () => {} };
  refuseMovedDatabase(config);
  ensurePrivateDir(path.dirname(database.filename));
  const file = `${database.filename}-daemon.lock`;
  // A command asking whether a daemon serves holds the lock for a moment (above): one more try before refusing.
  let lock = await daemonLock(file, databaseSettingsHint(config));
  if (!lock) await new Promise((resolve) => setTimeout(resolve, 250));
  lock ??= await daemonLock(file, databaseSettingsHint(config));
  if (lock) {
    claimed.add(file);
    return {
      release: () => {
        claimed.delete(file);
        return lock.release();
      },
    };
  }
  throw new AppError('database_in_use', 409, `Another svc daemon is already serving the SQLite database ${database.filename}`, {
    hint: 'One daemon per SQLite file: stop the other one first (CLI commands may run beside it). To run several daemons, use PostgreSQL (database.url in the config file every daemon reads); see "Several daemons" in the README.',
  });
}

/** 'svc' in ASCII (objid 7566947 in pg_locks); advisory locks are per database. */
export const PG_MIGRATION_LOCK_KEY = 0x737663;

export const sqliteMigrationLockFile = (filename: string) => `${filename}-migrate.lock`;

/**
 * knex's own lock is a table, which two processes on an empty database race to create; ours
 * exists before any table. PostgreSQL: a session advisory lock on a connection of its own.
 */
export async function withMigrationLock<T>(db: Db, log: Logger | undefined, fn: () => Promise<T>): Promise<T> {
  // warn: CLI commands log warnings only, and a command that waits should say why.
  const waiting = (holder: Record<string, unknown>) => log?.warn(holder, 'waiting for another process to finish migrating this database');
  const config = db.client.config as { client: string; connection: pg.ClientConfig & { filename: string } };
  if (config.client !== 'pg') {
    const file = sqliteMigrationLockFile(config.connection.filename);
    const lock = (await sqliteLock(file, () => waiting({ lockFile: file })))!;
    try {
      return await fn();
    } finally {
      await lock.release();
    }
  }
  // Waiting for another migration may rightly outlast a query's deadline: no query timeouts here.
  const client = new (pgDriver().Client)({ ...config.connection, query_timeout: undefined, statement_timeout: undefined, application_name: 'svc migration lock' });
  // A connection that drops while we hold the lock releases it; the error surfaces in the query.
  client.on('error', () => {});
  await client.connect();
  try {
    // Should this host vanish mid-migration, the server notices in about 30 s, not the OS's 2 hours.
    await client.query('SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3').catch(() => {});
    const { rows } = await client.query<{ got: boolean }>('SELECT pg_try_advisory_lock($1) AS got', [PG_MIGRATION_LOCK_KEY]);
    if (!rows[0].got) {
      waiting({ holder: await lockHolder(client) });
      await client.query('SELECT pg_advisory_lock($1)', [PG_MIGRATION_LOCK_KEY]);
    }
    return await fn();
  } finally {
    // Ending the session releases the lock; on a silent link the server's keepalive ends it.
    await endClient(client);
  }
}

/** For the operator who wonders why a start waits (null if the lock just ended). */
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

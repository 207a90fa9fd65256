import pg from 'pg';
import type { Logger } from '../lib/log.js';
import type { Db } from './connect.js';
import { sqliteLock } from './sqlite-lock.js';

/**
 * The key of svc's migration lock on PostgreSQL (pg_locks shows it as objid 7566947, 'svc' in
 * ASCII): one per database, so separate databases on one server do not wait for each other.
 */
export const PG_MIGRATION_LOCK_KEY = 0x737663;

/** The sidecar file that carries the migration lock of a SQLite database. */
export const sqliteMigrationLockFile = (filename: string) => `${filename}-migrate.lock`;

/**
 * Run fn while holding svc's migration lock, so that processes starting together on one
 * database migrate one after the other and late starters find nothing left to do (issue 10).
 * knex's own lock cannot do this: it lives in a table that knex itself creates, so two
 * processes on an empty database race to create it (`relation "knex_migrations" already exists`)
 * or both insert its row, after which knex refuses every later run. Ours exists before any table:
 * a PostgreSQL session advisory lock on a connection of its own (released when that connection
 * ends, also when the process dies), or on SQLite a write transaction on a sidecar file (see
 * sqlite-lock.ts).
 */
export async function withMigrationLock<T>(db: Db, log: Logger | undefined, fn: () => Promise<T>): Promise<T> {
  const waiting = () => log?.info('waiting for another process to finish migrating this database');
  const config = db.client.config as { client: string; connection: string | pg.ClientConfig | { filename: string } };
  if (config.client !== 'pg') {
    const lock = await sqliteLock(sqliteMigrationLockFile((config.connection as { filename: string }).filename), waiting);
    try {
      return await fn();
    } finally {
      await lock.release();
    }
  }
  const client = new pg.Client(typeof config.connection === 'string' ? { connectionString: config.connection } : (config.connection as pg.ClientConfig));
  // A connection that drops while we hold the lock releases it; the error surfaces in the query.
  client.on('error', () => {});
  await client.connect();
  try {
    const { rows } = await client.query<{ got: boolean }>('SELECT pg_try_advisory_lock($1) AS got', [PG_MIGRATION_LOCK_KEY]);
    if (!rows[0].got) {
      waiting();
      await client.query('SELECT pg_advisory_lock($1)', [PG_MIGRATION_LOCK_KEY]);
    }
    return await fn();
  } finally {
    // Ending the session releases the lock; no unlock round trip needed.
    await client.end().catch(() => {});
  }
}

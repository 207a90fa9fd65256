import type pg from 'pg';
import type { Logger } from '../lib/log.js';
import { type Db, endClient, pgDriver } from './connect.js';
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
 * database migrate one after the other and late starters find nothing left to do.
 * knex's own lock cannot do this: it lives in a table that knex itself creates, so two
 * processes on an empty database race to create it (`relation "knex_migrations" already exists`)
 * or both insert its row, after which knex refuses every later run. Ours exists before any table:
 * a PostgreSQL session advisory lock on a connection of its own (released when that connection
 * ends, also when the process dies), or on SQLite a write transaction on a sidecar file (see
 * sqlite-lock.ts).
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

import type pg from 'pg';
import { unavailable } from '../errors.js';
import { type Db, type Queryable, disposeClient, isPostgres } from './connect.js';

/** PostgreSQL outside a transaction: where a hot statement runs prepared, on a pooled connection. */
export const onPostgresPool = (db: Queryable): boolean => isPostgres(db) && !db.isTransaction;

const SESSION_MISMATCH = new Set<unknown>(['26000', '42P05']);
const POOLER_HINT =
  'A connection pooler in transaction mode (PgBouncer pool_mode = transaction) runs statements on other server connections: run it in session mode, or give svc a direct database URL (docs/deployment.md, "Connection poolers")';

/**
 * For hot paths where knex's building and a parse and plan cost more than the read: a named statement, parsed
 * and planned once per connection. On a pooled connection, so the pool's deadlines and drop-on-timeout hold.
 * A server session that does not match what pg believes it parsed (26000 lost: a pooler in transaction mode, a DEALLOCATE;
 * 42P05 already there: another client's session, through such a pooler) drops the connection, so the next parses it again.
 */
export async function preparedRows(db: Db, name: string, text: string, values: unknown[]): Promise<unknown[][]> {
  const conn = (await db.client.acquireConnection()) as pg.Client;
  try {
    return (await conn.query<unknown[]>({ name, text, values, rowMode: 'array' })).rows;
  } catch (err) {
    if (!SESSION_MISMATCH.has((err as { code?: unknown } | null)?.code)) throw err;
    disposeClient(conn, err);
    throw unavailable('database', `svc's prepared statement ${name} was lost or found already made on this database session; try again in a moment`, { cause: err, hint: POOLER_HINT });
  } finally {
    await db.client.releaseConnection(conn);
  }
}

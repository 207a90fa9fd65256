import type pg from 'pg';
import type { Db } from './connect.js';

/**
 * A named prepared statement on PostgreSQL, run on a connection of the pool: for the few reads on
 * a hot path, where knex's query building and PostgreSQL's parse and plan would cost more than
 * the read itself. The pool's deadlines hold as for any query (acquireTimeout for the connection,
 * queryTimeout and dropOnQueryTimeout on it: db/connect.ts); each connection parses the statement
 * once, on its first use. Rows come as arrays, in the order of the statement's columns.
 */
export async function preparedRows(db: Db, name: string, text: string, values: unknown[]): Promise<unknown[][]> {
  const conn = (await db.client.acquireConnection()) as pg.Client;
  try {
    const res = await conn.query<unknown[]>({ name, text, values, rowMode: 'array' });
    return res.rows;
  } finally {
    await db.client.releaseConnection(conn);
  }
}

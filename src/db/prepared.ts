import type pg from 'pg';
import type { Db } from './connect.js';

/**
 * For hot paths where knex's building and a parse and plan cost more than the read: a named statement, parsed
 * and planned once per connection. On a pooled connection, so the pool's deadlines and drop-on-timeout hold.
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

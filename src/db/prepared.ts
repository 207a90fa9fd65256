import type pg from 'pg';
import type { Db } from './connect.js';

/**
 * A prepared statement on PostgreSQL, run on a connection of the pool (its deadlines hold): for
 * hot-path reads where knex's query building and a parse and plan would cost more than the read.
 * Rows come as arrays, in the order of the statement's columns. `name` null: unnamed, planned for
 * these values every time, as a generic plan made while a table was small (a scan) would outlive
 * the table's growth.
 */
export async function preparedRows(db: Db, name: string | null, text: string, values: unknown[]): Promise<unknown[][]> {
  const conn = (await db.client.acquireConnection()) as pg.Client;
  try {
    const res = await conn.query<unknown[]>({ ...(name === null ? {} : { name }), text, values, rowMode: 'array' });
    return res.rows;
  } finally {
    await db.client.releaseConnection(conn);
  }
}

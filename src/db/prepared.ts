import type pg from 'pg';
import type { Db } from './connect.js';

/**
 * A named prepared statement on PostgreSQL, run on a connection of the pool: for the few reads on
 * a hot path, where knex's query building and PostgreSQL's parse and plan would cost more than
 * the read itself. The pool's deadlines hold as for any query (acquireTimeout for the connection,
 * queryTimeout and dropOnQueryTimeout on it: db/connect.ts); each connection parses the statement
 * once, on its first use. Rows come as arrays, in the order of the statement's columns.
 *
 * `name` null: an unnamed statement, planned for these values every time. PostgreSQL keeps a
 * named statement's generic plan once it is no dearer than the first five custom plans, and a
 * generic plan made while a table was small (a seq scan) stays while the table grows until the
 * next ANALYZE: for a statement whose rows are found through an array of ids, planning each time
 * is what keeps it an index lookup.
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

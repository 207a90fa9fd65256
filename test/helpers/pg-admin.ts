import pg from 'pg';

/** One statement on its own connection to `connectionString` (CREATE or DROP DATABASE: not in a pool's transaction). */
export async function adminQuery(connectionString: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

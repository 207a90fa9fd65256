import pg from 'pg';

/**
 * One statement on its own connection to `connectionString` (CREATE or DROP DATABASE: not in a
 * pool's transaction). Bounded: the globalSetup that makes the template has no vitest timeout, and
 * a silent server would hold the whole run.
 */
export async function adminQuery(connectionString: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString, connectionTimeoutMillis: 10_000, query_timeout: 60_000 });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

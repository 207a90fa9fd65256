import pg from 'pg';
import { PG_URL } from '../helpers/env.js';

/** The server these tests create their PostgreSQL databases on (the suite's, else the local one). */
export const PG_ADMIN = PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Whether tests that need PostgreSQL whatever the suite's engine can run. Under CI (.ci/run sets
 * CI) PostgreSQL is required: an unreachable server fails these tests instead of skipping them.
 */
export async function pgAvailable(): Promise<boolean> {
  if (process.env.CI) return true;
  const c = new pg.Client({ connectionString: PG_ADMIN, connectionTimeoutMillis: 2000 });
  c.on('error', () => {});
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    console.log(`PostgreSQL not reachable at ${PG_ADMIN}: skipping the tests that copy into or dump PostgreSQL`);
    return false;
  }
}

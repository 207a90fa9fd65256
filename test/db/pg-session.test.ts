import { describe, expect, it } from 'vitest';
import { closeDb, openDb } from '../../src/db/connect.js';
import { PG_URL } from '../helpers/env.js';

// PostgreSQL's JIT compiled the webhook worker's find-due once the planner expected it to read a large queue: 12-20 ms a
// run for a read of 1-2 ms. svc's own connections turn it off; the server's setting stays as it is for everyone else.
describe.skipIf(!PG_URL)('PostgreSQL sessions', () => {
  it('svc\'s connections run without JIT', async () => {
    const db = openDb({ client: 'pg', url: PG_URL, filename: '', poolMax: 2 });
    try {
      expect((await db.raw('show jit')).rows[0].jit).toBe('off');
    } finally {
      await closeDb(db);
    }
  });
});

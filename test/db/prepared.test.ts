import { describe, expect, it } from 'vitest';
import { closeDb, openDb } from '../../src/db/connect.js';
import { preparedRows } from '../../src/db/prepared.js';
import { AppError } from '../../src/errors.js';
import { PG_URL } from '../helpers/env.js';

// A named statement lives in the server session that parsed it. A pooler in transaction mode (or a DEALLOCATE) takes
// it away while pg still believes it parsed: the caller gets a 503 naming the likely cause, and the next call parses again.
describe.skipIf(!PG_URL)('prepared statements on PostgreSQL', () => {
  it('a statement the server lost is a 503 that names the pooler, and the next call works on a new connection', async () => {
    const db = openDb({ client: 'pg', url: PG_URL, filename: '', poolMax: 1 });
    try {
      const read = () => preparedRows(db, 'svc_test_lost', 'select $1::int + 1', [41]);
      expect(await read()).toEqual([[42]]);
      await db.raw('deallocate all'); // the pool's one connection: the session that parsed it
      const lost = await read().catch((err: unknown) => err);
      expect(lost).toBeInstanceOf(AppError);
      expect(lost).toMatchObject({ status: 503, code: 'unavailable', details: { dependency: 'database' } });
      expect((lost as AppError).message).toContain('prepared statement svc_test_lost');
      expect((lost as AppError).hint).toContain('transaction mode');
      expect(await read()).toEqual([[42]]);
    } finally {
      await closeDb(db);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { closeDb, openDb } from '../../src/db/connect.js';
import { preparedRows } from '../../src/db/prepared.js';
import { AppError } from '../../src/errors.js';
import { PG_URL } from '../helpers/env.js';

// A named statement lives in the server session that parsed it. A pooler in transaction mode (or a DEALLOCATE) takes
// it away while pg still believes it parsed, or hands over a session that has one pg does not know of: the caller gets
// a 503 naming the likely cause, and the next call parses again.
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

  // Through such a pooler a server session may already hold the name, parsed for another client.
  it('a statement the session already has under that name is the same 503, and the next call works', async () => {
    const db = openDb({ client: 'pg', url: PG_URL, filename: '', poolMax: 1 });
    try {
      await db.raw('prepare svc_test_taken as select 1'); // the pool's one connection, outside what pg knows
      const read = () => preparedRows(db, 'svc_test_taken', 'select $1::int + 1', [41]);
      const taken = await read().catch((err: unknown) => err);
      expect(taken).toBeInstanceOf(AppError);
      expect(taken).toMatchObject({ status: 503, code: 'unavailable' });
      expect((taken as AppError).hint).toContain('transaction mode');
      expect(await read()).toEqual([[42]]);
    } finally {
      await closeDb(db);
    }
  });
});

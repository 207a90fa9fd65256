import type { Db, Trx } from './connect.js';

const isBusy = (err: unknown) => {
  const code = (err as { code?: string } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === '40001' || code === '40P01';
};

/**
 * Run fn in one transaction. SQLite may refuse to upgrade a read transaction to a write one
 * when another process wrote meanwhile (SQLITE_BUSY, not covered by busy_timeout); PostgreSQL
 * may abort on serialization. Both are safe to retry from the start.
 */
export async function withTransaction<T>(db: Db, fn: (trx: Trx) => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await db.transaction(fn);
    } catch (err) {
      if (i >= attempts || !isBusy(err)) throw err;
      await new Promise((r) => setTimeout(r, 20 * i + Math.random() * 30));
    }
  }
}

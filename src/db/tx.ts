import { type Db, type Trx, isPostgres, writerOf } from './connect.js';

/** PostgreSQL's serialization failure and deadlock: safe to try again from the start. */
const isConflict = (err: unknown) => ['40001', '40P01'].includes((err as { code?: string } | null)?.code ?? '');
const RETRY_FOR_MS = 10_000;

/**
 * SQLite's write lock first, as BEGIN IMMEDIATE would (knex begins with BEGIN): a transaction that
 * read first and then met another process's lock would fail at once; this waits within busy_timeout,
 * and what the transaction reads is current from its first statement.
 */
const TAKE_WRITE_LOCK = 'UPDATE knex_migrations SET id = id WHERE 0';

/**
 * SQLite: on the writer; another process holding the lock past busyTimeout fails it (503), not
 * retried. PostgreSQL: a conflict is retried. Given a transaction: a savepoint. Inside fn write
 * through the transaction, never `db`: on SQLite that would wait for its own transaction's lock.
 */
export async function withTransaction<T>(db: Db, fn: (trx: Trx) => Promise<T>): Promise<T> {
  if (db.isTransaction) return keepingCause(db, fn);
  if (!isPostgres(db)) return keepingCause(writerOf(db), (trx) => trx.raw(TAKE_WRITE_LOCK).then(() => fn(trx)));
  const giveUpAt = Date.now() + RETRY_FOR_MS;
  for (let i = 1; ; i++) {
    try {
      return await keepingCause(db, fn);
    } catch (err) {
      if (!isConflict(err) || Date.now() >= giveUpAt) throw err;
      await new Promise((r) => setTimeout(r, Math.min(500, 20 * 2 ** i) * (0.5 + Math.random())));
    }
  }
}

/** SQLite ends a transaction on some errors (SQLITE_FULL): knex's failed ROLLBACK would hide the cause. */
function keepingCause<T>(db: Db, fn: (trx: Trx) => Promise<T>): Promise<T> {
  let failure: { err: unknown } | undefined;
  const remember = (err: unknown) => {
    failure = { err };
    throw err;
  };
  return db.transaction((trx) => fn(trx).catch(remember)).catch((err: unknown) => {
    throw failure && failure.err !== err && isEndedTransaction(err) ? failure.err : err;
  });
}

const isEndedTransaction = (err: unknown) => /no transaction is active|no such savepoint/i.test(String((err as { message?: unknown } | null)?.message ?? ''));

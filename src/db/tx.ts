import { type Db, type Trx, isPostgres, writerOf } from './connect.js';

/** PostgreSQL's serialization failure and deadlock: safe to try again from the start, for up to RETRY_FOR_MS. */
const isConflict = (err: unknown) => ['40001', '40P01'].includes((err as { code?: string } | null)?.code ?? '');
const RETRY_FOR_MS = 10_000;

/**
 * Takes SQLite's write lock and changes nothing, as BEGIN IMMEDIATE would (knex begins with a
 * plain BEGIN): a transaction that read first and then met another process's lock would fail at
 * once, to be started again; taking the lock first waits within busy_timeout and sees every commit.
 */
const TAKE_WRITE_LOCK = 'UPDATE knex_migrations SET id = id WHERE 0';

/**
 * Run fn in one transaction. SQLite: on the process's writer (writerOf), behind the writes before
 * it (at most database.acquireTimeout), its write lock taken first: another process holding it
 * past database.busyTimeout fails the transaction with SQLITE_BUSY (503 busy), not retried.
 * PostgreSQL: a conflict is tried again with a growing, jittered pause (up to half a second).
 * Given a transaction, fn runs in a savepoint of it, not retried. Inside fn, write through the
 * transaction, never through `db`: on SQLite that write would wait for its own transaction's lock
 * for busyTimeout and fail.
 */
export async function withTransaction<T>(db: Db, fn: (trx: Trx) => Promise<T>): Promise<T> {
  if (db.isTransaction) return keepingCause(db, fn);
  if (!isPostgres(db)) {
    return keepingCause(writerOf(db), async (trx) => {
      await trx.raw(TAKE_WRITE_LOCK);
      return fn(trx);
    });
  }
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

/**
 * SQLite ends a transaction itself on some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM): the
 * ROLLBACK (or ROLLBACK TO SAVEPOINT) knex then sends fails ("no transaction is active") and
 * knex rejects with that, which would hide the error that ended the transaction and its class.
 * The error fn failed with stands instead.
 */
async function keepingCause<T>(db: Db, fn: (trx: Trx) => Promise<T>): Promise<T> {
  let failure: { err: unknown } | undefined;
  try {
    return await db.transaction((trx) =>
      fn(trx).catch((err: unknown) => {
        failure = { err };
        throw err;
      }),
    );
  } catch (err) {
    throw failure && failure.err !== err && isEndedTransaction(err) ? failure.err : err;
  }
}

const isEndedTransaction = (err: unknown) => /no transaction is active|no such savepoint/i.test(String((err as { message?: unknown } | null)?.message ?? ''));

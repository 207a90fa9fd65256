import { type Db, type Trx, isPostgres, writerOf } from './connect.js';

/** PostgreSQL's serialization failure and deadlock: safe to try again from the start. */
const isConflict = (err: unknown) => {
  const code = (err as { code?: string } | null)?.code;
  return code === '40001' || code === '40P01';
};

/** How long a transaction PostgreSQL aborted as a conflict is tried again. */
const RETRY_FOR_MS = 10_000;

/**
 * A write that takes SQLite's write lock and changes nothing, as BEGIN IMMEDIATE would (knex
 * begins with a plain BEGIN): a transaction that first read, then met another process's lock
 * when it wrote, would fail at once and have to start again; taking the lock first waits for it
 * within busy_timeout and then sees every commit before it.
 */
const TAKE_WRITE_LOCK = 'UPDATE knex_migrations SET id = id WHERE 0';

/**
 * Run fn in one transaction. SQLite: on the process's writer (writerOf), in arrival order behind
 * the writes before it (at most database.acquireTimeout), the write lock taken first: when another
 * process holds it past database.busyTimeout the transaction fails with SQLITE_BUSY (503 busy), not
 * retried. PostgreSQL: a serialization failure or deadlock is tried again from the start with a
 * growing, jittered pause (up to half a second) for up to RETRY_FOR_MS, then the error stands.
 * Given a transaction, fn runs in a savepoint of it, not retried (a conflict belongs to the
 * outermost transaction). Inside fn, write through the transaction, never through `db`: on SQLite
 * that write would wait for the lock its own transaction holds, busyTimeout long, and fail.
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

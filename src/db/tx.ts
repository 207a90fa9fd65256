import type { Db, Trx } from './connect.js';
import { inWriteTurn } from './write-turns.js';

const isBusy = (err: unknown) => {
  const code = (err as { code?: string } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === '40001' || code === '40P01';
};

/** How long a transaction refused as busy is tried again: a long write (a batch of 100 publishes on a loaded machine) may hold SQLite's write lock for seconds. */
const RETRY_FOR_MS = 10_000;

/**
 * Run fn in one transaction. SQLite may refuse to upgrade a read transaction to a write one
 * when another process wrote meanwhile (SQLITE_BUSY, not covered by busy_timeout); PostgreSQL
 * may abort on serialization. Both are safe to retry from the start: with a growing, jittered
 * pause (up to half a second) for up to RETRY_FOR_MS, then the error stands. On SQLite the
 * transactions of this process take turns (write-turns.ts), so only another process can refuse one.
 * Given a transaction, fn runs in a savepoint of it, not retried: a busy or serialization error
 * belongs to the outermost transaction, which retries the whole (the savepoint is in its turn).
 */
export async function withTransaction<T>(db: Db, fn: (trx: Trx) => Promise<T>): Promise<T> {
  if (db.isTransaction) return keepingCause((f) => db.transaction(f), fn);
  const giveUpAt = Date.now() + RETRY_FOR_MS;
  for (let i = 1; ; i++) {
    try {
      // Each try takes its own turn: the pause below holds none.
      return await inWriteTurn(db, () => keepingCause((f) => db.transaction(f), fn));
    } catch (err) {
      if (!isBusy(err) || Date.now() >= giveUpAt) throw err;
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
async function keepingCause<T>(transaction: (f: (trx: Trx) => Promise<T>) => Promise<T>, fn: (trx: Trx) => Promise<T>): Promise<T> {
  let failure: { err: unknown } | undefined;
  try {
    return await transaction((trx) =>
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

import type { Knex } from 'knex';
import type { Db } from './connect.js';

export interface BatchLimits {
  /** Rows per statement. */
  size?: number;
  /** Statements per call: the rest waits for the next call. */
  maxBatches?: number;
}

/**
 * Delete the rows whose `key` the query `pick(size)` selects, `size` at a time and at most
 * `maxBatches` times, each statement its own short transaction: no call holds a lock long or
 * deletes without bound, and the next call goes on where this one stopped. `guard` repeats the
 * conditions that make a row deletable on the DELETE itself, so a row changed between the
 * selection and the delete (a webhook event reopened for redelivery) is left alone.
 */
export async function deleteInBatches(
  db: Db,
  table: string,
  key: string,
  pick: (size: number) => Knex.QueryBuilder,
  guard: (q: Knex.QueryBuilder) => Knex.QueryBuilder = (q) => q,
  limits: BatchLimits = {},
): Promise<number> {
  const size = limits.size ?? 500;
  const maxBatches = limits.maxBatches ?? 20;
  let total = 0;
  for (let i = 0; i < maxBatches; i++) {
    const deleted = Number(await guard(db(table).whereIn(key, pick(size))).delete());
    total += deleted;
    if (deleted < size) break;
  }
  return total;
}

/** `deleteInBatches` for rows chosen by plain conditions on one table (`where`, used for both the selection and the guard). */
export const deleteWhere = (db: Db, table: string, key: string, where: (q: Knex.QueryBuilder) => Knex.QueryBuilder, limits?: BatchLimits): Promise<number> =>
  deleteInBatches(db, table, key, (size) => where(db(table).select(key)).limit(size), where, limits);

import type { Knex } from 'knex';
import { type Db, writerOf } from './connect.js';

export interface BatchLimits {
  /** Rows per statement. */
  size?: number;
  /** Statements per call: the rest waits for the next call. */
  maxBatches?: number;
}

/**
 * Delete the rows of `table` that `where` picks, `size` at a time and at most `maxBatches` times,
 * each statement its own short transaction on the process's writer (writerOf): no call holds the
 * writer or a lock long or deletes without bound, the writes that arrived meanwhile go before the
 * next batch, and the next call goes on where this one stopped. `where` also guards the DELETE
 * itself, so a row changed between the selection and the delete is left alone.
 */
export async function deleteWhere(db: Db, table: string, key: string, where: (q: Knex.QueryBuilder) => Knex.QueryBuilder, limits: BatchLimits = {}): Promise<number> {
  const size = limits.size ?? 500;
  let total = 0;
  for (let i = 0; i < (limits.maxBatches ?? 20); i++) {
    const deleted = Number(await where(writerOf(db)(table).whereIn(key, where(db(table).select(key)).limit(size))).delete());
    total += deleted;
    if (deleted < size) break;
  }
  return total;
}

/** Where a sweep stopped: the ordering columns' values of the last row it looked at. */
export type SweepCursor = Array<string | number>;

export interface Sweep {
  table: string;
  /** The walk's order: one or two columns with an index on them, unique together. */
  order: string[];
  /** The unique column a row is deleted by. */
  key: string;
  /** Conditions the walk stops at (through the same index), e.g. "older than the retention". */
  walk?: (q: Knex.QueryBuilder) => Knex.QueryBuilder;
  /** Which of the rows walked over are deleted. */
  deletable: (q: Knex.QueryBuilder) => Knex.QueryBuilder;
}

/**
 * Delete what `deletable` picks among the table's rows, walking them in index order `size` at a
 * time from `cursor`: each statement reads `size` index entries and deletes by their keys,
 * however many rows must stay (those are passed once per walk, not read again by every batch);
 * at most `maxBatches` statements per call. Returns the cursor to go on from, null once the walk
 * reached the end (the next call starts again from the beginning). The walk reads through `db`,
 * the deletes run on the writer, one batch at a time.
 */
export async function sweep(db: Db, s: Sweep, cursor: SweepCursor | null, limits: BatchLimits = {}): Promise<{ deleted: number; cursor: SweepCursor | null }> {
  const size = limits.size ?? 500;
  const maxBatches = limits.maxBatches ?? 20;
  const after = (q: Knex.QueryBuilder, at: SweepCursor) =>
    s.order.length === 1 ? q.where(s.order[0], '>', at[0]) : q.whereRaw(`(${s.order.map(() => '??').join(', ')}) > (${at.map(() => '?').join(', ')})`, [...s.order, ...at]);
  let deleted = 0;
  let at = cursor;
  for (let i = 0; i < maxBatches; i++) {
    const walked = db(s.table).select([...new Set([...s.order, s.key])]);
    const rows: Array<Record<string, string | number>> = await (s.walk ? s.walk(walked) : walked)
      .modify((q) => (at ? after(q, at) : q))
      .orderBy(s.order)
      .limit(size);
    if (rows.length === 0) return { deleted, cursor: null };
    deleted += Number(await s.deletable(writerOf(db)(s.table).whereIn(s.key, rows.map((r) => r[s.key]))).delete());
    const last = rows[rows.length - 1];
    at = s.order.map((c) => last[c]);
    if (rows.length < size) return { deleted, cursor: null };
  }
  return { deleted, cursor: at };
}

import type { Knex } from 'knex';
import { type Db, writerOf } from './connect.js';

/** size: rows per statement; maxBatches: statements per call, the rest waits for the next call. */
export type BatchLimits = Partial<Record<'size' | 'maxBatches', number>>;

/**
 * Each statement its own short transaction on the writer, so no call holds it long. `where` also
 * guards the DELETE itself: a row changed since the selection is left alone.
 */
export async function deleteWhere(db: Db, table: string, key: string, where: (q: Knex.QueryBuilder) => Knex.QueryBuilder, { size = 500, maxBatches = 20 }: BatchLimits = {}): Promise<number> {
  let total = 0;
  for (let i = 0; i < maxBatches; i++) {
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
  /** One or two indexed columns, unique together. */
  order: string[];
  /** The unique column a row is deleted by. */
  key: string;
  /** Conditions the walk stops at through the same index, e.g. "older than the retention". */
  walk?: (q: Knex.QueryBuilder) => Knex.QueryBuilder;
  deletable: (q: Knex.QueryBuilder) => Knex.QueryBuilder;
}

/**
 * Walk the table in index order from `cursor`, deleting by key what `deletable` picks: rows that
 * stay are read once per walk, not by every batch. The cursor returned is null at the end.
 */
export async function sweep(db: Db, s: Sweep, cursor: SweepCursor | null, { size = 500, maxBatches = 20 }: BatchLimits = {}): Promise<{ deleted: number; cursor: SweepCursor | null }> {
  const after = (q: Knex.QueryBuilder, at: SweepCursor) => q.whereRaw(`(${s.order.map(() => '??').join(', ')}) > (${at.map(() => '?').join(', ')})`, [...s.order, ...at]);
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

import type { Db } from '../db/connect.js';
import type { WindowStore } from './window-store.js';

/** The table migrations/2026-11-24-0900-create-rate-limits.ts creates: key, points, expire (epoch ms). */
const TABLE = 'rate_limits';
const SWEEP_EVERY_MS = 5 * 60_000;

// One statement per take: the row is created, restarted when its window ended, or added to. With
// a limit, the update's WHERE leaves a row that the points would take over the limit untouched
// and returns nothing (a refusal writes nothing). PostgreSQL locks the row for the statement,
// so concurrent takes of one key from any daemon are serialized.
const TAKE = `
INSERT INTO ${TABLE} AS r (key, points, expire) VALUES (:key, :n, :end)
ON CONFLICT (key) DO UPDATE SET
  points = CASE WHEN r.expire IS NULL OR r.expire <= :now THEN :n ELSE r.points + :n END,
  expire = CASE WHEN r.expire IS NULL OR r.expire <= :now THEN :end ELSE r.expire END`;
const UNLESS_OVER = ' WHERE r.expire IS NULL OR r.expire <= :now OR r.points + :n <= :limit';
const RETURNING = ' RETURNING points, expire';

/**
 * Counters in PostgreSQL, shared by every daemon of the database. Window ends come from the
 * clock of the daemon that starts the window (docs/deployment.md "Clocks"). Expired rows are
 * swept every five minutes.
 */
export function pgWindowStore(db: Db, now: () => number): WindowStore {
  const sweep = setInterval(() => {
    db(TABLE)
      .where('expire', '<', now())
      .delete()
      .catch(() => undefined);
  }, SWEEP_EVERY_MS);
  sweep.unref();

  const current = async (key: string, t: number, windowMs: number) => {
    const row = await db(TABLE).where({ key }).first('points', 'expire');
    const live = row && row.expire !== null && Number(row.expire) > t;
    return live ? { count: Number(row.points), resetAt: Number(row.expire) } : { count: 0, resetAt: t + windowMs };
  };

  return {
    async take(key, n, windowMs, limit) {
      const t = now();
      if (limit !== undefined && n > limit) return { taken: false, ...(await current(key, t, windowMs)) };
      const sql = TAKE + (limit === undefined ? '' : UNLESS_OVER) + RETURNING;
      const res = await db.raw<{ rows: { points: number; expire: string }[] }>(sql, { key, n, now: t, end: t + windowMs, ...(limit === undefined ? {} : { limit }) });
      const row = res.rows[0];
      if (row) return { taken: true, count: Number(row.points), resetAt: Number(row.expire) };
      return { taken: false, ...(await current(key, t, windowMs)) };
    },
    async giveBack(key, n, resetAt) {
      await db(TABLE).where({ key, expire: resetAt }).where('points', '>=', n).decrement('points', n);
    },
    async delete(key) {
      await db(TABLE).where({ key }).delete();
    },
    async close() {
      clearInterval(sweep);
    },
  };
}

import type { Knex } from 'knex';
import { within } from '../lib/deadline.js';
import { type Db, isPostgres } from './connect.js';

const turns = new WeakMap<Db, Promise<unknown>>();
/** Told when a write waited out the bound (reportLongTurns). */
const reporters = new WeakMap<Db, (waitedMs: number) => void>();

/** A writer waits this long at most for its turn, then meets SQLite's lock as before the turns (busy_timeout, withTransaction's retries). */
const TURN_WAIT_MS = 10_000;

/**
 * Run a write of this process on SQLite once the writes before it have ended, in arrival order.
 * SQLite lets one connection write at a time: another that finds the lock taken naps in
 * busy_timeout's back-off (growing to 100 ms a nap), or, upgrading a read transaction, fails at
 * once and is tried again after a pause (withTransaction). Between this process's own writers
 * that is both slow and unfair: under a burst of 50 publishes the webhook worker's claims napped
 * while publish after publish took the lock, and deliveries waited 220-360 ms (p50) for the burst
 * to end. Here they queue instead; only another process (the CLI) still meets SQLite's lock.
 * PostgreSQL: run at once. `fn` must not wait for another write turn of the same database: inside
 * a transaction, write through the transaction, never through the pool (that write would wait
 * for the turn it is part of, up to the bound).
 */
export function inWriteTurn<T>(db: Db, fn: () => Promise<T>, waitMs = TURN_WAIT_MS): Promise<T> {
  if (isPostgres(db)) return fn();
  // The writes before it, or waitMs (a write stuck in its turn holds the others no longer than that).
  const ahead = within(turns.get(db) ?? Promise.resolve(), waitMs, () => new Error('write turn not given')).catch(() => reporters.get(db)?.(waitMs));
  const run = ahead.then(fn);
  turns.set(db, run.catch(() => undefined));
  return run;
}

/**
 * `report` is told each time a write of `db` waited out the bound for its turn: a write held its
 * turn that long, or (the rule of inWriteTurn broken) a write through the pool inside a
 * transaction's callback waited for the turn it is part of. Either way the write then goes ahead
 * and meets SQLite's lock; the report makes it visible instead of a silent 10 s stall.
 */
export function reportLongTurns(db: Db, report: (waitedMs: number) => void): void {
  reporters.set(db, report);
}

const WRITES = new Set(['insert', 'update', 'del', 'truncate']);
const RAW_WRITE = /^\s*(insert|update|delete|replace)\b/i;

/**
 * SQLite: every write statement of `db` made outside a transaction takes its turn too (an insert,
 * update or delete built with knex, or raw SQL that starts with one), not only transactions: an
 * API key's last use, a lease given back, the webhook worker's claims. knex runs each statement
 * through its client's runner, which acquires the connection, so the turn comes first and a
 * statement waiting for it holds no pooled connection; a transaction's statements run through a
 * client knex makes for the transaction, in the transaction's turn. (Telling a write made inside
 * a turn apart with AsyncLocalStorage cost 15 % of the CPU of a cached content request on Node 20,
 * for every promise of the process: docs/performance.md.)
 */
export function writesTakeTurns(db: Db): void {
  if (isPostgres(db)) return;
  const client = db.client as Knex.Client & { runner(builder: unknown): { run(): Promise<unknown> } };
  const runner = client.runner;
  client.runner = function (this: typeof client, builder: unknown) {
    const r = runner.call(this, builder);
    const b = builder as { _method?: string; sql?: unknown };
    if (WRITES.has(b._method ?? '') || (typeof b.sql === 'string' && RAW_WRITE.test(b.sql))) {
      const run = r.run.bind(r);
      r.run = () => inWriteTurn(db, run);
    }
    return r;
  };
}

import type { Knex } from 'knex';
import { type Queryable, isPostgres } from '../db/connect.js';
import { type EventRow, type EventStatus, toEvent } from './store.js';

// Leases on webhook_events (several daemons and the CLI share the outbox): locked_by (the holder,
// whose daemon_heartbeats row says it is alive), lease_token (new on every claim) and locked_until.
// Others may take a lease over once locked_until has passed or the holder's heartbeat is stale;
// its holder settles it only while the token is still its own and locked_until has not passed.
// A takeover writes a new token, so of a late holder and a new one only the first conditional
// update wins: an event is never settled twice.

/** The moment a lease is judged at: now, and the oldest heartbeat that still counts as alive. */
export interface LeaseTime {
  now: string;
  freshSince: string;
}

/** A lease as written on the rows it covers. */
export interface LeaseRef {
  holderId: string;
  token: string;
  until: string;
}

type ArticleScope = { connectorId: string; articleId: string };

/** The lease on a row of `t` is void: nobody holds it, it ran out, or its holder's heartbeat is stale. Binds now, freshSince. */
const voidSql = (t: string) => `(${t}.locked_until is null or ${t}.locked_until < ? or exists (select 1 from daemon_heartbeats as h where h.id = ${t}.locked_by and h.seen_at < ?))`;
const leaseVoid = (at: LeaseTime, not = false) => (q: Knex.QueryBuilder) => q.whereRaw(`${not ? 'not ' : ''}${voidSql('webhook_events')}`, [at.now, at.freshSince]);
const LEASE_CLEARED = { locked_by: null, locked_until: null, lease_token: null };
const leaseFields = (l: LeaseRef) => ({ locked_by: l.holderId, lease_token: l.token, locked_until: l.until });
const pendingOf = (db: Queryable, s: ArticleScope) => db('webhook_events').where({ connector_id: s.connectorId, article_id: s.articleId, status: 'pending' });

/** A claimed event, with its publication's publishedUrl now (undefined when the publication is gone). */
export interface ClaimedEvent extends EventRow {
  currentPublishedUrl: string | null | undefined;
}

// By article only (the primary key's first column), the receiver's row kept by FILTER: given both
// columns, PostgreSQL without statistics chose the connector_id index and read every publication of the receiver.
const publication = (what: string) =>
  `(select ${what} filter (where pub.connector_id = webhook_events.connector_id) from publications as pub where pub.article_id = webhook_events.article_id)`;

/**
 * Lease due events to `lease` in one statement and return them in seq order: pending, due, not
 * validly leased, on an enabled connector other than `skip`, first of their article's pending
 * events (per-article order), oldest first, at most `perConnector` per connector and `limit` in
 * all. "First of its article" is a window, not an anti-join: PostgreSQL without statistics ran
 * the anti-join as a scan of every pending event per pending event. PostgreSQL skips rows another
 * claim is locking; the outer conditions are checked again on the row as it is when updated, so
 * of two claims of one row only one takes it.
 */
export async function claimDue(db: Queryable, lease: LeaseRef, at: LeaseTime, o: { limit: number; perConnector: number; skip: string[] }): Promise<ClaimedEvent[]> {
  const skip = o.skip.length > 0 ? `and w.connector_id not in (${o.skip.map(() => '?').join(', ')})` : '';
  const due =
    'select d.id from (select e.id, e.seq, row_number() over (partition by e.connector_id order by e.seq) as nth from ' +
    '(select w.id, w.connector_id, w.seq, w.next_attempt_at, w.locked_until, w.locked_by, row_number() over (partition by w.connector_id, w.article_id order by w.seq) as turn ' +
    `from webhook_events as w where w.status = 'pending' ${skip}) as e join connectors as c on c.id = e.connector_id ` +
    `where e.turn = 1 and e.next_attempt_at <= ? and ${voidSql('e')} and c.enabled = ?) as d where d.nth <= ? order by d.seq limit ?`;
  const ids = isPostgres(db) ? `select id from webhook_events where id in (${due}) for update skip locked` : due;
  const sql =
    `update webhook_events set locked_by = ?, lease_token = ?, locked_until = ? where id in (${ids}) ` +
    `and status = 'pending' and next_attempt_at <= ? and ${voidSql('webhook_events')} ` +
    `returning *, ${publication('count(*)')} as pub_count, ${publication('max(published_url)')} as pub_url`;
  const res = await db.raw(sql, [lease.holderId, lease.token, lease.until, ...o.skip, at.now, at.now, at.freshSince, true, o.perConnector, o.limit, at.now, at.now, at.freshSince]);
  const rows: Array<Record<string, unknown>> = isPostgres(db) ? res.rows : res;
  return rows
    .map(({ pub_count, pub_url, ...r }) => ({ ...toEvent(r), currentPublishedUrl: Number(pub_count) === 0 ? undefined : ((pub_url as string | null) ?? null) }))
    .sort((a, b) => a.seq - b.seq);
}

/**
 * Lease every pending event of the article that nobody else validly holds to `lease` (renewing
 * those it covers): while a process delivers one event of an article itself, no worker may send
 * another one of that article.
 */
export async function holdArticle(db: Queryable, s: ArticleScope, lease: LeaseRef, at: LeaseTime): Promise<void> {
  await pendingOf(db, s).where((q) => q.where(leaseVoid(at)).orWhere('lease_token', lease.token)).update(leaseFields(lease));
}

/** The article's pending events: those `lease` holds, and those someone else validly holds (in flight elsewhere). */
export async function articleQueue(db: Queryable, s: ArticleScope, lease: LeaseRef, at: LeaseTime): Promise<{ ours: EventRow[]; elsewhere: EventRow[] }> {
  const ours = await pendingOf(db, s).where({ locked_by: lease.holderId, lease_token: lease.token }).where('locked_until', '>=', at.now).orderBy('seq');
  const elsewhere = await pendingOf(db, s).where(leaseVoid(at, true)).where((q) => q.whereNull('lease_token').orWhereNot('lease_token', lease.token)).orderBy('seq');
  return { ours: ours.map(toEvent), elsewhere: elsewhere.map(toEvent) };
}

/** How many of these events are pending under a valid lease (in flight somewhere). */
export async function stillLeased(db: Queryable, ids: string[], at: LeaseTime): Promise<number> {
  const row = await db('webhook_events').whereIn('id', ids).where('status', 'pending').where(leaseVoid(at, true)).count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/** Update the event only if nobody validly holds it; false when someone does. */
const ifVoid = async (db: Queryable, id: string, at: LeaseTime, fields: Record<string, unknown>) => Number(await db('webhook_events').where({ id }).where(leaseVoid(at)).update(fields)) === 1;

/** Redelivery: make the event pending again, due now, with a fresh retry budget, leased to `lease`. */
export const reopenEvent = (db: Queryable, id: string, lease: LeaseRef, at: LeaseTime) =>
  ifVoid(db, id, at, { status: 'pending', next_attempt_at: at.now, retry_from: db.ref('attempts'), updated_at: at.now, ...leaseFields(lease) });

/** Mark a pending event whose lease is void as failed without sending it. */
export const failIfOrphaned = (db: Queryable, id: string, reason: string, at: LeaseTime) => ifVoid(db, id, at, { status: 'failed', last_error: reason, updated_at: at.now, ...LEASE_CLEARED });

export interface Settlement {
  status: EventStatus;
  attempts: number;
  nextAttemptAt?: string;
  lastStatus: number | null;
  lastError: string | null;
}

/** Record what became of a leased event and end the lease, only while the lease is still ours; false when it was not. */
export async function settleLeased(db: Queryable, id: string, lease: LeaseRef, at: LeaseTime, s: Settlement): Promise<boolean> {
  const n = await db('webhook_events')
    .where({ id, locked_by: lease.holderId, lease_token: lease.token })
    .where('locked_until', '>=', at.now)
    .update({
      status: s.status,
      attempts: s.attempts,
      ...(s.nextAttemptAt ? { next_attempt_at: s.nextAttemptAt } : {}),
      ...(s.status === 'delivered' ? { delivered_at: at.now } : {}),
      last_status: s.lastStatus,
      last_error: s.lastError,
      updated_at: at.now,
      ...LEASE_CLEARED,
    });
  return Number(n) === 1;
}

/**
 * settleLeased for a batch of successes held by `holderId` and answered with `lastStatus`, each
 * under its own token, in one statement; returns the ids settled. The plain id list lets SQLite
 * find the rows by the id index (the (id, token) pairs alone made it scan the table).
 */
export async function settleDelivered(db: Queryable, held: Array<{ id: string; token: string }>, holderId: string, at: LeaseTime, lastStatus: number): Promise<string[]> {
  const rows: Array<{ id: string }> = await db('webhook_events')
    .whereIn('id', held.map((e) => e.id))
    .whereIn(['id', 'lease_token'], held.map((e) => [e.id, e.token]))
    .where({ locked_by: holderId })
    .where('locked_until', '>=', at.now)
    .update({ status: 'delivered', attempts: db.raw('?? + 1', ['attempts']), last_status: lastStatus, last_error: null, updated_at: at.now, delivered_at: at.now, ...LEASE_CLEARED }, ['id']);
  return rows.map((r) => r.id);
}

/** Give leases back untouched: the events are claimable again at once. */
export async function releaseLeases(db: Queryable, token: string, where: { ids: string[] } | ArticleScope): Promise<number> {
  const q = db('webhook_events').where('lease_token', token);
  if ('ids' in where) q.whereIn('id', where.ids);
  else q.where({ connector_id: where.connectorId, article_id: where.articleId });
  return Number(await q.update(LEASE_CLEARED));
}

/** The events `token` holds of this article before `seq` are superseded (cancelled) with `reason`. */
export async function supersedeHeld(db: Queryable, s: ArticleScope & { seq: number }, token: string, reason: string, now: string): Promise<number> {
  return Number(await pendingOf(db, s).where({ lease_token: token }).where('seq', '<', s.seq).update({ status: 'cancelled', last_error: reason, updated_at: now, ...LEASE_CLEARED }));
}

/** Cancel the article's queued events nobody validly holds (a delete makes them pointless); those in flight stay. */
export async function supersedeQueued(db: Queryable, s: ArticleScope, reason: string, at: LeaseTime): Promise<number> {
  return Number(await pendingOf(db, s).where(leaseVoid(at)).update({ status: 'cancelled', last_error: reason, updated_at: at.now, ...LEASE_CLEARED }));
}

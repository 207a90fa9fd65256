import type { Knex } from 'knex';
import { type Db, type Queryable, writeOn } from '../db/connect.js';
import { onPostgresPool, preparedRows } from '../db/prepared.js';
import { type ArticleScope, type EventRow, type EventState, type EventStatus, toEvent, toEventState } from './store.js';

// A lease is locked_by, lease_token (new on every claim) and locked_until. Others take it over once it
// is void (leaseVoid); its holder settles only while it is still ours (settle), so of a late holder and
// a new one only the first conditional update wins. A holder without a heartbeat row keeps it until locked_until.
// settle does not check the holder's own heartbeat: one that merely lags (a busy pool) settles when nobody took over.

/** The moment a lease is judged at: now, and the oldest heartbeat that still counts as alive. */
export interface LeaseTime {
  now: string;
  freshSince: string;
}

export interface LeaseRef {
  holderId: string;
  token: string;
  until: string;
}

type Where = Knex.QueryBuilder;

/** The lease on the rows of `t` is void: nobody holds it, it ran out, or its holder is gone (as SQL for the prepared statements below). */
const leaseVoidSql = (t: string, now: string, freshSince: string) =>
  `(${t}.locked_until is null or ${t}.locked_until < ${now} or exists (select 1 from daemon_heartbeats as h where h.id = ${t}.locked_by and h.seen_at < ${freshSince}))`;
const leaseVoid = (at: LeaseTime, table = 'webhook_events') => (q: Where) => q.whereRaw(leaseVoidSql(table, '?', '?'), [at.now, at.freshSince]);

const LEASE_CLEARED = { locked_by: null, locked_until: null, lease_token: null };
const leaseFields = (l: LeaseRef) => ({ locked_by: l.holderId, lease_token: l.token, locked_until: l.until });

// The worker's find-due and claim on PostgreSQL, as dueEvents' and claimEvents' knex: prepared, planned once
// per connection (planning each cost more than running it), arrays not a parameter per id.

// The first `limit` due events in next_attempt_at order, found through the (status, next_attempt_at) index and
// checked one by one (enabled webhook, nobody's lease, first in line for its article by the (connector_id,
// article_id, status) index), so a claim reads about as many rows as it may take, not every pending event;
// then at most `perConnector` of them a connector (a window over those few), oldest first.
const DUE_SQL =
  'select d.id, d.connector_id, octet_length(s.snapshot), d.walked from (select id, connector_id, seq, ' +
  'row_number() over (partition by connector_id order by seq) as nth, count(*) over () as walked from (' +
  "select e.id, e.connector_id, e.seq from webhook_events as e where e.status = 'pending' and e.next_attempt_at <= $1 " +
  `and ${leaseVoidSql('e', '$1', '$2')} and e.id <> all($3::text[]) and e.connector_id <> all($4::text[]) ` +
  // Enabled, as a filter on the walk (not a join after it), so a disabled webhook's queued events are not each looked
  // up by their article first: PostgreSQL runs the cheaper subquery of the two first.
  'and (select c.enabled from connectors as c where c.id = e.connector_id) ' +
  "and e.seq = (select min(p.seq) from webhook_events as p where p.connector_id = e.connector_id and p.article_id = e.article_id and p.status = 'pending') " +
  'order by e.next_attempt_at limit $6) as k) as d ' +
  // Sized by primary key: octet_length reads the length stored with the value, not the value.
  'join webhook_event_snapshots as s on s.event_id = d.id where d.nth <= $5 order by d.seq';

/** The columns of webhook_events a claim returns (what toEvent reads but the snapshot, read after it), then the publication's count and URL. */
const EVENT_COLUMNS = [
  'seq', 'id', 'workspace_id', 'connector_id', 'article_id', 'event', 'status', 'attempts', 'next_attempt_at', 'locked_until',
  'locked_by', 'lease_token', 'retry_from', 'last_status', 'last_error', 'created_at', 'updated_at', 'delivered_at',
];
// By article only (the primary key's first column), the receiver's kept by FILTER: given both
// columns, PostgreSQL without statistics read every publication of the receiver per claimed event.
const publication = (what: string) => `(select ${what} filter (where pub.connector_id = e.connector_id) from publications as pub where pub.article_id = e.article_id)`;

const CLAIM_SQL =
  'update webhook_events as e set locked_by = $1, lease_token = $2, locked_until = $3 ' +
  `where e.id = any($4::text[]) and e.status = 'pending' and e.next_attempt_at <= $5 and ${leaseVoidSql('e', '$5', '$6')} ` +
  `returning ${EVENT_COLUMNS.map((c) => `e.${c}`).join(', ')}, ${publication('count(*)')} as pub_count, ${publication('max(published_url)')} as pub_url`;

/** A due event: its id, its webhook, and the size of its snapshot (what holding it costs in memory). */
export type DueEvent = Pick<EventRow, 'id' | 'connectorId'> & { bytes: number };

/**
 * What find-due found; `cut`: its walk stopped at `limit` events, so more may be due behind those it found (of the
 * connectors whose part the window cut, and of others queued after them).
 */
export interface Due {
  events: DueEvent[];
  cut: boolean;
}

/**
 * Due events nobody validly holds, on enabled connectors not in `skipConnectors` (those at their bound), first in line for
 * their article (decisions.md, Webhook order), oldest first, at most `perConnector` a connector. No rows: those come with claimEvents.
 */
export async function dueEvents(db: Queryable, at: LeaseTime, limit: number, exclude: string[], skipConnectors: string[], perConnector: number): Promise<Due> {
  if (onPostgresPool(db)) {
    const due = await preparedRows(db as Db, 'svc_webhooks_due', DUE_SQL, [at.now, at.freshSince, exclude, skipConnectors, perConnector, limit]);
    return {
      events: due.map(([id, connectorId, bytes]) => ({ id: id as string, connectorId: connectorId as string, bytes: Number(bytes) })),
      cut: due.length > 0 && Number(due[0][3]) >= limit,
    };
  }
  const first = db('webhook_events as p').min('p.seq').whereRaw('?? = ??', ['p.connector_id', 'e.connector_id']).whereRaw('?? = ??', ['p.article_id', 'e.article_id']).where('p.status', 'pending');
  const q = db('webhook_events as e')
    .select('e.id', 'e.connector_id', 'e.seq')
    .where('e.status', 'pending')
    .where('e.next_attempt_at', '<=', at.now)
    .where(leaseVoid(at, 'e'))
    .whereIn('e.connector_id', db('connectors').select('id').where('enabled', true))
    .where('e.seq', '=', first)
    .orderBy('e.next_attempt_at')
    .limit(limit);
  if (exclude.length > 0) q.whereNotIn('e.id', exclude);
  if (skipConnectors.length > 0) q.whereNotIn('e.connector_id', skipConnectors);
  const ranked = db
    .from(q.as('k'))
    .select('id', 'connector_id', 'seq', db.raw('row_number() over (partition by ?? order by ??) as ??', ['connector_id', 'seq', 'nth']), db.raw('count(*) over () as ??', ['walked']));
  const rows = await db
    .from(ranked.as('d'))
    .join('webhook_event_snapshots as s', 's.event_id', 'd.id')
    .select('d.id', 'd.connector_id', db.raw('octet_length(??) as ??', ['s.snapshot', 'bytes']), 'd.walked')
    .where('d.nth', '<=', perConnector)
    .orderBy('d.seq');
  return {
    events: rows.map((r: Record<string, string>) => ({ id: r.id, connectorId: r.connector_id, bytes: Number(r.bytes) })),
    cut: rows.length > 0 && Number(rows[0].walked) >= limit,
  };
}

/** A claimed event, with its publication's publishedUrl now (a receiver's answer to an earlier event may have set it; undefined when the publication is gone). */
export interface ClaimedEvent extends EventRow {
  currentPublishedUrl: string | null | undefined;
}

/**
 * Lease these due events in one statement; the rows taken (still pending, due and nobody else's), in seq order. Their snapshots
 * are read after it through `reader`, so the writer (on SQLite the process's one) is not held for their size.
 */
export async function claimEvents(db: Queryable, ids: string[], lease: LeaseRef, at: LeaseTime, reader: Queryable = db): Promise<ClaimedEvent[]> {
  const pub = (what: string) =>
    db.raw(`(select ${what} from ?? as ?? where ?? = ?? and ?? = ??)`, ['publications', 'pub', 'pub.article_id', 'webhook_events.article_id', 'pub.connector_id', 'webhook_events.connector_id']);
  const rows: Array<Record<string, unknown>> = onPostgresPool(db)
    ? (await preparedRows(db as Db, 'svc_webhooks_claim', CLAIM_SQL, [lease.holderId, lease.token, lease.until, ids, at.now, at.freshSince])).map((r) =>
        Object.fromEntries([...EVENT_COLUMNS, 'pub_count', 'pub_url'].map((c, i) => [c, r[i]])),
      )
    : await writeOn(db)('webhook_events')
        .whereIn('id', ids)
        .where('status', 'pending')
        .where('next_attempt_at', '<=', at.now)
        .where(leaseVoid(at))
        .update(leaseFields(lease), ['*', db.raw('? as ??', [pub('count(*)'), 'pub_count']), db.raw('? as ??', [pub('max(published_url)'), 'pub_url'])] as unknown as string[]);
  const taken = rows.map((r) => r.id as string);
  const snapshots = new Map(taken.length === 0 ? [] : (await reader('webhook_event_snapshots').whereIn('event_id', taken).select('event_id', 'snapshot')).map((r) => [r.event_id, r.snapshot]));
  return rows
    .filter((r) => snapshots.has(r.id)) // deleted since the claim (its webhook removed): nothing left to send or release
    .map((r) => ({ ...toEvent({ ...r, snapshot: snapshots.get(r.id) }), currentPublishedUrl: Number(r.pub_count) === 0 ? undefined : ((r.pub_url as string | null) ?? null) }))
    .sort((a, b) => a.seq - b.seq);
}

/** Lease the article's pending events nobody else validly holds (renewing ours), so no worker sends one meanwhile; row locks order this against a claim. */
export async function holdArticle(db: Queryable, s: ArticleScope, lease: LeaseRef, at: LeaseTime): Promise<void> {
  await writeOn(db)('webhook_events')
    .where({ connector_id: s.connectorId, article_id: s.articleId, status: 'pending' })
    .where((q) => q.where(leaseVoid(at)).orWhere('lease_token', lease.token))
    .update(leaseFields(lease));
}

/** The article's pending events that `lease` holds, and the others (in flight elsewhere, or nobody's): an empty `others` means all are held. */
export async function articleQueue(db: Queryable, s: ArticleScope, lease: LeaseRef, at: LeaseTime): Promise<{ ours: EventState[]; others: EventState[] }> {
  const pending = (await db('webhook_events').where({ connector_id: s.connectorId, article_id: s.articleId, status: 'pending' }).orderBy('seq')).map(toEventState);
  // settle's condition, read in one statement (ISO times of one format compare as strings).
  const ours = (e: EventState) => e.lockedBy === lease.holderId && e.leaseToken === lease.token && e.lockedUntil !== null && e.lockedUntil >= at.now;
  return { ours: pending.filter(ours), others: pending.filter((e) => !ours(e)) };
}

/** How many of these events are still pending under a valid lease (in flight elsewhere). */
export async function stillLeased(db: Queryable, ids: string[], at: LeaseTime): Promise<number> {
  const row = await db('webhook_events').whereIn('id', ids).where('status', 'pending').whereNot(leaseVoid(at)).count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/** Redelivery: make the event pending again, due now, with a fresh retry budget, leased to `lease`; false when someone validly holds it. */
export async function reopenEvent(db: Queryable, id: string, lease: LeaseRef, at: LeaseTime): Promise<boolean> {
  const n = await writeOn(db)('webhook_events')
    .where({ id })
    .where(leaseVoid(at))
    .update({ status: 'pending', next_attempt_at: at.now, retry_from: db.ref('attempts'), updated_at: at.now, ...leaseFields(lease) });
  return Number(n) === 1;
}

export type Settlement = Pick<EventRow, 'status' | 'attempts' | 'lastStatus' | 'lastError'> & { nextAttemptAt?: string };

/** What became of one leased event, judged `at` (its answer's time): settled only while `lease` is still its lease then. */
export type Settle = Settlement & { id: string; lease: Pick<LeaseRef, 'holderId' | 'token'>; at: string };

/** Rows per statement: 9 parameters each, within SQLite's 32,766. */
const SETTLE_CHUNK = 1_000;
const SETTLE_ROW = '(?, ?, ?, ?, ?, cast(? as integer), ?, cast(? as integer), ?)';

/**
 * Record what became of leased events and end their leases, each only while its lease is still the caller's (else another holder
 * may have it), in one statement for the batch; those of `list` settled. Both engines run UPDATE ... FROM a VALUES list.
 */
export async function settle(db: Queryable, list: Settle[]): Promise<Settle[]> {
  const settled: Settle[] = [];
  // An event given twice goes to a later statement: a row joined to two rows of one VALUES list takes either's values, and
  // which was written could not be told (both ids come back). After the first settled it, its lease is gone.
  for (let rest = list; rest.length > 0; ) {
    const ids = new Set<string>();
    const once: Settle[] = [];
    const again: Settle[] = [];
    for (const s of rest) {
      if (ids.has(s.id)) again.push(s);
      else {
        ids.add(s.id);
        once.push(s);
      }
    }
    for (let i = 0; i < once.length; i += SETTLE_CHUNK) {
      const chunk = once.slice(i, i + SETTLE_CHUNK);
      const values = chunk.flatMap((s) => [s.id, s.lease.holderId, s.lease.token, s.at, s.status, s.attempts, s.nextAttemptAt ?? null, s.lastStatus, s.lastError]);
      const result = await writeOn(db).raw(
        `with v (event_id, holder, token, at, status, attempts, next_at, last_status, last_error) as (values ${chunk.map(() => SETTLE_ROW).join(', ')}) ` +
          'update webhook_events as e set status = v.status, attempts = v.attempts, next_attempt_at = coalesce(v.next_at, e.next_attempt_at), ' +
          'last_status = v.last_status, last_error = v.last_error, updated_at = v.at, ' +
          "delivered_at = case when v.status = 'delivered' then v.at else e.delivered_at end, locked_by = null, locked_until = null, lease_token = null " +
          'from v where e.id = v.event_id and e.locked_by = v.holder and e.lease_token = v.token and e.locked_until >= v.at returning id',
        values as never,
      );
      const rows: Array<{ id: string }> = Array.isArray(result) ? result : result.rows;
      const done = new Set(rows.map((r) => r.id));
      settled.push(...chunk.filter((s) => done.has(s.id)));
    }
    rest = again;
  }
  return settled;
}

/** Give leases back untouched: the events are claimable again at once. `ids` narrows it to some events. */
export async function releaseLeases(db: Queryable, token: string, where: { ids: string[] } | ArticleScope): Promise<number> {
  const q = writeOn(db)('webhook_events').where('lease_token', token);
  if ('ids' in where) q.whereIn('id', where.ids);
  else q.where({ connector_id: where.connectorId, article_id: where.articleId });
  return Number(await q.update(LEASE_CLEARED));
}

/** End the events `q` selects as `status` (cancelled, failed) with `reason`, and their leases. */
const endEvents = async (q: Where, status: EventStatus, reason: string, now: string): Promise<number> =>
  Number(await q.update({ status, last_error: reason, updated_at: now, ...LEASE_CLEARED }));

/** The events `token` holds of this article that come before `seq` are superseded (cancelled) with `reason`. */
export async function supersedeHeld(db: Queryable, s: ArticleScope & { seq: number }, token: string, reason: string, now: string): Promise<number> {
  const held = writeOn(db)('webhook_events').where({ connector_id: s.connectorId, article_id: s.articleId, status: 'pending', lease_token: token }).where('seq', '<', s.seq);
  return endEvents(held, 'cancelled', reason, now);
}

/** End as `status` the pending events matching `where` that nobody validly holds (those in flight stay); how many. */
export async function endUnheld(db: Queryable, where: Record<string, string>, status: EventStatus, reason: string, at: LeaseTime): Promise<number> {
  return endEvents(writeOn(db)('webhook_events').where({ ...where, status: 'pending' }).where(leaseVoid(at)), status, reason, at.now);
}

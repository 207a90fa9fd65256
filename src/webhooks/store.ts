import { type Queryable, type Row, type Trx, writeOn } from '../db/connect.js';
import { newId } from '../lib/ids.js';
import { type Connector, toConnector } from '../connectors/store.js';
import type { LeaseRef } from './lease-store.js';
import type { EventSnapshot, WebhookEventName } from './payload.js';

// Knex access to webhook_events rows and the webhook_deliveries log. Leases: lease-store.ts.

export type EventStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';

export interface EventRow {
  seq: number;
  id: string;
  workspaceId: string;
  connectorId: string;
  articleId: string;
  event: WebhookEventName;
  snapshot: EventSnapshot;
  status: EventStatus;
  attempts: number;
  nextAttemptAt: string;
  lockedUntil: string | null;
  lockedBy: string | null;
  leaseToken: string | null;
  /** The attempt count at which the current retry budget began. */
  retryFrom: number;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
  deliveredAt: string | null;
}

/** An event without its snapshot: what a listing, an order check or a cancel reads (a snapshot holds the article's body). */
export type EventState = Omit<EventRow, 'snapshot'>;

export const toEvent = (r: Row): EventRow => ({ ...toEventState(r), snapshot: JSON.parse(r.snapshot) });

export const toEventState = (r: Row): EventState => ({
  seq: Number(r.seq),
  id: r.id,
  workspaceId: r.workspace_id,
  connectorId: r.connector_id,
  articleId: r.article_id,
  event: r.event,
  status: r.status,
  attempts: r.attempts,
  nextAttemptAt: r.next_attempt_at,
  lockedUntil: r.locked_until ?? null,
  lockedBy: r.locked_by ?? null,
  leaseToken: r.lease_token ?? null,
  retryFrom: Number(r.retry_from ?? 0),
  lastStatus: r.last_status ?? null,
  lastError: r.last_error ?? null,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  deliveredAt: r.delivered_at ?? null,
});

/** In the caller's transaction: the event and its snapshot, in a table of its own (the event row is rewritten by every claim and settle). */
export async function insertEvent(
  db: Trx,
  e: { workspaceId: string; connectorId: string; articleId: string; event: WebhookEventName; snapshot: EventSnapshot; now: string; lease?: LeaseRef },
): Promise<string> {
  const id = newId('evt');
  await writeOn(db)('webhook_events').insert({
    id,
    workspace_id: e.workspaceId,
    connector_id: e.connectorId,
    article_id: e.articleId,
    event: e.event,
    status: 'pending',
    attempts: 0,
    next_attempt_at: e.now,
    locked_until: e.lease?.until ?? null,
    locked_by: e.lease?.holderId ?? null,
    lease_token: e.lease?.token ?? null,
    created_at: e.now,
    updated_at: e.now,
  });
  await writeOn(db)('webhook_event_snapshots').insert({ event_id: id, snapshot: JSON.stringify(e.snapshot) });
  return id;
}

/** webhook_events rows with their snapshot, as toEvent reads them. */
export const eventRows = (db: Queryable) =>
  db('webhook_events').select('webhook_events.*', db.raw('(select ?? from ?? as ?? where ?? = ??) as ??', ['s.snapshot', 'webhook_event_snapshots', 's', 's.event_id', 'webhook_events.id', 'snapshot']));

export async function findEvent(db: Queryable, id: string): Promise<EventRow | undefined> {
  const row = await eventRows(db).where({ id }).first();
  return row ? toEvent(row) : undefined;
}

/** The connector's events counted by status, and when the oldest pending one was written (null when none is). */
export async function queueOf(db: Queryable, connectorId: string): Promise<{ counts: Record<EventStatus, number>; oldestPending: string | null }> {
  const rows = await db('webhook_events').where({ connector_id: connectorId }).select('status').count({ n: '*' }).min({ at: 'created_at' }).groupBy('status');
  const counts: Record<EventStatus, number> = { pending: 0, delivered: 0, failed: 0, cancelled: 0 };
  for (const r of rows as Row[]) counts[r.status as EventStatus] = Number(r.n);
  return { counts, oldestPending: (rows as Row[]).find((r) => r.status === 'pending')?.at ?? null };
}

/** Events pending delivery across every connector and the creation time of the oldest (the queue gauges of /metrics). */
export async function pendingTotals(db: Queryable): Promise<{ pending: number; oldestCreatedAt: string | null }> {
  const row = (await db('webhook_events').where({ status: 'pending' }).count({ n: '*' }).min({ at: 'created_at' }).first()) as Row | undefined;
  return { pending: Number(row?.n ?? 0), oldestCreatedAt: (row?.at as string | null | undefined) ?? null };
}

export interface DeliveryRow {
  id: string;
  eventId: string;
  workspaceId: string;
  articleId: string;
  event: string;
  attempt: number;
  url: string;
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
  createdAt: string;
}

/** webhook_deliveries' columns, each with the DeliveryRow field it holds. */
const DELIVERY_COLUMNS = {
  id: 'id',
  event_id: 'eventId',
  workspace_id: 'workspaceId',
  article_id: 'articleId',
  event: 'event',
  attempt: 'attempt',
  url: 'url',
  ok: 'ok',
  status_code: 'statusCode',
  duration_ms: 'durationMs',
  error: 'error',
  response_excerpt: 'responseExcerpt',
  created_at: 'createdAt',
} as const satisfies Record<string, keyof DeliveryRow>;

type DeliveryColumn = keyof typeof DELIVERY_COLUMNS;
const DELIVERY_COLUMN_NAMES = Object.keys(DELIVERY_COLUMNS) as DeliveryColumn[];

export const deliveryRow = (d: DeliveryRow): Record<DeliveryColumn, unknown> =>
  Object.fromEntries(DELIVERY_COLUMN_NAMES.map((c) => [c, d[DELIVERY_COLUMNS[c]]])) as Record<DeliveryColumn, unknown>;

/** A webhook_deliveries row as a DeliveryRow (SQLite's 0/1 as a boolean). */
const toDelivery = (r: Row): DeliveryRow => {
  const d = Object.fromEntries(DELIVERY_COLUMN_NAMES.map((c) => [DELIVERY_COLUMNS[c], r[c] ?? null])) as unknown as DeliveryRow;
  return { ...d, ok: Boolean(r.ok) };
};

export async function connectorsByIds(db: Queryable, ids: string[]): Promise<Map<string, Connector>> {
  return new Map((await db('connectors').whereIn('id', ids)).map((r) => [r.id as string, toConnector(r)]));
}

export async function findDelivery(db: Queryable, id: string): Promise<DeliveryRow | undefined> {
  const row = await db('webhook_deliveries').where({ id }).first();
  return row ? toDelivery(row) : undefined;
}

export async function listDeliveries(db: Queryable, workspaceId: string, f: { articleId?: string; failed?: boolean; limit?: number }): Promise<DeliveryRow[]> {
  const q = db('webhook_deliveries').where({ workspace_id: workspaceId });
  if (f.articleId) q.where({ article_id: f.articleId });
  if (f.failed) q.where({ ok: false });
  return (await q.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(f.limit ?? 50)).map(toDelivery);
}

export type ArticleScope = { connectorId: string; articleId: string };

/** The article's first event in `status` after (or before) `seq`, in seq order from `seq` outwards. */
export async function neighbour(db: Queryable, s: ArticleScope & { seq: number }, side: 'before' | 'after', status: EventStatus): Promise<EventState | undefined> {
  const row = await db('webhook_events')
    .where({ connector_id: s.connectorId, article_id: s.articleId, status })
    .where('seq', side === 'before' ? '<' : '>', s.seq)
    .orderBy('seq', side === 'before' ? 'desc' : 'asc')
    .first();
  return row ? toEventState(row) : undefined;
}

/** The article's `article.unpublished` that is still pending (waiting for its receiver), if any. */
export async function pendingUnpublishes(db: Queryable, articleIds: string[]): Promise<EventState[]> {
  const out: EventState[] = [];
  for (let i = 0; i < articleIds.length; i += 500) {
    const rows = await db('webhook_events').whereIn('article_id', articleIds.slice(i, i + 500)).where({ status: 'pending', event: 'article.unpublished' });
    out.push(...rows.map(toEventState));
  }
  return out;
}

/** `svc webhook enable`: every queued event of the connector is due now, with a fresh retry budget. */
export async function makeQueueDue(db: Queryable, connectorId: string, now: string): Promise<void> {
  await writeOn(db)('webhook_events')
    .where({ connector_id: connectorId, status: 'pending' })
    .update({ next_attempt_at: now, retry_from: db.ref('attempts'), updated_at: now });
}

/** The latest publish or update event of each of these articles on this connector, with the receiver's last answer. */
export async function latestPublishEvents(db: Queryable, connectorId: string, articleIds: string[]): Promise<Map<string, EventState & { responseExcerpt: string | null }>> {
  const out = new Map<string, EventState & { responseExcerpt: string | null }>();
  for (let i = 0; i < articleIds.length; i += 500) {
    const latest = db('webhook_events')
      .max('seq')
      .where({ connector_id: connectorId })
      .whereIn('article_id', articleIds.slice(i, i + 500))
      .whereIn('event', ['article.published', 'article.updated'])
      .groupBy('article_id');
    const events = (await db('webhook_events').whereIn('seq', latest)).map(toEventState);
    // The last answer of each one not delivered, in one read (with a receiver down, that is every article listed).
    const failing = events.filter((e) => e.attempts > 0 && e.status !== 'delivered').map((e) => e.id);
    const ranked = db('webhook_deliveries')
      .whereIn('event_id', failing)
      .select('event_id', 'response_excerpt', db.raw('row_number() over (partition by ?? order by ?? desc, ?? desc) as ??', ['event_id', 'created_at', 'id', 'nth']));
    const last = new Map(failing.length === 0 ? [] : (await db.from(ranked.as('d')).where('nth', 1).select('event_id', 'response_excerpt')).map((r) => [r.event_id, r.response_excerpt]));
    for (const event of events) out.set(event.articleId, { ...event, responseExcerpt: last.get(event.id) ?? null });
  }
  return out;
}

import type { Queryable } from '../db/connect.js';
import type { EventSnapshot, WebhookEventName } from './payload.js';

// Knex access to webhook_events, webhook_deliveries and daemon_heartbeats.

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
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
  deliveredAt: string | null;
}

type Row = Record<string, any>;

const toEvent = (r: Row): EventRow => ({
  seq: Number(r.seq),
  id: r.id,
  workspaceId: r.workspace_id,
  connectorId: r.connector_id,
  articleId: r.article_id,
  event: r.event,
  snapshot: JSON.parse(r.snapshot),
  status: r.status,
  attempts: r.attempts,
  nextAttemptAt: r.next_attempt_at,
  lockedUntil: r.locked_until ?? null,
  lockedBy: r.locked_by ?? null,
  lastStatus: r.last_status ?? null,
  lastError: r.last_error ?? null,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  deliveredAt: r.delivered_at ?? null,
});

export async function insertEvent(
  db: Queryable,
  e: { id: string; workspaceId: string; connectorId: string; articleId: string; event: WebhookEventName; snapshot: EventSnapshot; now: string; lock?: { by: string; until: string } },
): Promise<void> {
  await db('webhook_events').insert({
    id: e.id,
    workspace_id: e.workspaceId,
    connector_id: e.connectorId,
    article_id: e.articleId,
    event: e.event,
    snapshot: JSON.stringify(e.snapshot),
    status: 'pending',
    attempts: 0,
    next_attempt_at: e.now,
    locked_until: e.lock?.until ?? null,
    locked_by: e.lock?.by ?? null,
    created_at: e.now,
    updated_at: e.now,
  });
}

export async function findEvent(db: Queryable, id: string): Promise<EventRow | undefined> {
  const row = await db('webhook_events').where({ id }).first();
  return row ? toEvent(row) : undefined;
}

/**
 * Pending events that are due, not leased, on an enabled connector, and first in line for
 * their article (decisions.md, Order: a later event waits while an earlier one is pending).
 */
export async function dueEvents(db: Queryable, now: string, limit: number, exclude: string[]): Promise<EventRow[]> {
  const rows = await db('webhook_events as e')
    .join('connectors as c', 'c.id', 'e.connector_id')
    .select('e.*')
    .where('e.status', 'pending')
    .where('e.next_attempt_at', '<=', now)
    .where((q) => q.whereNull('e.locked_until').orWhere('e.locked_until', '<', now))
    .where('c.enabled', true)
    .whereNotIn('e.id', exclude)
    .whereNotExists((q) =>
      q
        .select(db.raw('1'))
        .from('webhook_events as p')
        .whereRaw('?? = ??', ['p.connector_id', 'e.connector_id'])
        .whereRaw('?? = ??', ['p.article_id', 'e.article_id'])
        .where('p.status', 'pending')
        .whereRaw('?? < ??', ['p.seq', 'e.seq']),
    )
    .orderBy('e.seq')
    .limit(limit);
  return rows.map(toEvent);
}

/** Take the lease on an event; false when someone else holds it (or it is no longer pending). */
export async function claimEvent(db: Queryable, id: string, by: string, now: string, until: string): Promise<boolean> {
  const n = await db('webhook_events')
    .where({ id, status: 'pending' })
    .where((q) => q.whereNull('locked_until').orWhere('locked_until', '<', now))
    .update({ locked_by: by, locked_until: until });
  return Number(n) === 1;
}

/** Redelivery: make any event pending again with a fresh retry budget, leased to `by`, unless someone holds it. */
export async function reclaimEvent(db: Queryable, id: string, by: string, now: string, until: string): Promise<boolean> {
  const n = await db('webhook_events')
    .where({ id })
    .where((q) => q.whereNull('locked_until').orWhere('locked_until', '<', now))
    .update({ status: 'pending', attempts: 0, next_attempt_at: now, locked_by: by, locked_until: until, updated_at: now });
  return Number(n) === 1;
}

export async function settleEvent(db: Queryable, id: string, patch: { status: EventStatus; attempts: number; nextAttemptAt?: string; lastStatus: number | null; lastError: string | null; now: string }): Promise<void> {
  await db('webhook_events')
    .where({ id })
    .update({
      status: patch.status,
      attempts: patch.attempts,
      ...(patch.nextAttemptAt ? { next_attempt_at: patch.nextAttemptAt } : {}),
      last_status: patch.lastStatus,
      last_error: patch.lastError,
      locked_by: null,
      locked_until: null,
      updated_at: patch.now,
      ...(patch.status === 'delivered' ? { delivered_at: patch.now } : {}),
    });
}

/** Drop earlier queued events of an article that an unpublish made pointless (not the one in flight). */
export async function cancelEarlier(db: Queryable, connectorId: string, articleId: string, beforeSeq: number, now: string): Promise<number> {
  return Number(
    await db('webhook_events')
      .where({ connector_id: connectorId, article_id: articleId, status: 'pending' })
      .where('seq', '<', beforeSeq)
      .where((q) => q.whereNull('locked_until').orWhere('locked_until', '<', now))
      .update({ status: 'cancelled', last_error: 'superseded by article.unpublished', updated_at: now }),
  );
}

export async function countByStatus(db: Queryable, connectorId: string): Promise<Record<EventStatus, number>> {
  const rows = await db('webhook_events').where({ connector_id: connectorId }).select('status').count({ n: '*' }).groupBy('status');
  const out: Record<EventStatus, number> = { pending: 0, delivered: 0, failed: 0, cancelled: 0 };
  for (const r of rows as Row[]) out[r.status as EventStatus] = Number(r.n);
  return out;
}

export async function oldestPending(db: Queryable, connectorId: string): Promise<string | null> {
  const row = await db('webhook_events').where({ connector_id: connectorId, status: 'pending' }).min({ at: 'created_at' }).first();
  return (row?.at as string | null) ?? null;
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

const toDelivery = (r: Row): DeliveryRow => ({
  id: r.id,
  eventId: r.event_id,
  workspaceId: r.workspace_id,
  articleId: r.article_id,
  event: r.event,
  attempt: r.attempt,
  url: r.url,
  ok: Boolean(r.ok),
  statusCode: r.status_code ?? null,
  durationMs: r.duration_ms,
  error: r.error ?? null,
  responseExcerpt: r.response_excerpt ?? null,
  createdAt: r.created_at,
});

export async function insertDelivery(db: Queryable, d: DeliveryRow): Promise<void> {
  await db('webhook_deliveries').insert({
    id: d.id,
    event_id: d.eventId,
    workspace_id: d.workspaceId,
    article_id: d.articleId,
    event: d.event,
    attempt: d.attempt,
    url: d.url,
    ok: d.ok,
    status_code: d.statusCode,
    duration_ms: d.durationMs,
    error: d.error,
    response_excerpt: d.responseExcerpt,
    created_at: d.createdAt,
  });
}

export async function findDelivery(db: Queryable, id: string): Promise<DeliveryRow | undefined> {
  const row = await db('webhook_deliveries').where({ id }).first();
  return row ? toDelivery(row) : undefined;
}

export async function listDeliveries(db: Queryable, f: { workspaceId: string; articleId?: string; failed?: boolean; limit: number }): Promise<DeliveryRow[]> {
  const q = db('webhook_deliveries').where({ workspace_id: f.workspaceId });
  if (f.articleId) q.where({ article_id: f.articleId });
  if (f.failed) q.where({ ok: false });
  return (await q.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(f.limit)).map(toDelivery);
}

export async function beatHeart(db: Queryable, h: { id: string; pid: number; host: string; startedAt: string; now: string }): Promise<void> {
  await db('daemon_heartbeats')
    .insert({ id: h.id, pid: h.pid, host: h.host, started_at: h.startedAt, seen_at: h.now })
    .onConflict('id')
    .merge({ seen_at: h.now });
}

export async function removeHeartbeat(db: Queryable, id: string): Promise<void> {
  await db('daemon_heartbeats').where({ id }).delete();
}

export async function liveHeartbeats(db: Queryable, since: string): Promise<Array<{ id: string; pid: number; host: string; seenAt: string }>> {
  return (await db('daemon_heartbeats').where('seen_at', '>=', since).orderBy('seen_at', 'desc')).map((r: Row) => ({ id: r.id, pid: r.pid, host: r.host, seenAt: r.seen_at }));
}

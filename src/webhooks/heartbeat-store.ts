import type { Queryable } from '../db/connect.js';

// Knex access to daemon_heartbeats: one row per process that holds (or may hold) webhook leases.

export type HolderKind = 'daemon' | 'request';

export interface HeartbeatRow {
  id: string;
  kind: HolderKind;
  pid: number;
  host: string;
  startedAt: string;
  seenAt: string;
}

const toHeartbeat = (r: Record<string, any>): HeartbeatRow => ({ id: r.id, kind: r.kind ?? 'daemon', pid: Number(r.pid), host: r.host, startedAt: r.started_at, seenAt: r.seen_at });

export async function beatHeart(db: Queryable, h: Omit<HeartbeatRow, 'seenAt'> & { now: string }): Promise<void> {
  await db('daemon_heartbeats')
    .insert({ id: h.id, kind: h.kind, pid: h.pid, host: h.host, started_at: h.startedAt, seen_at: h.now })
    .onConflict('id')
    .merge({ seen_at: h.now });
}

export async function removeHeartbeat(db: Queryable, id: string): Promise<void> {
  await db('daemon_heartbeats').where({ id }).delete();
}

/** Heartbeats seen since `since`, newest first. */
export async function heartbeatsSince(db: Queryable, since: string): Promise<HeartbeatRow[]> {
  return (await db('daemon_heartbeats').where('seen_at', '>=', since).orderBy('seen_at', 'desc')).map(toHeartbeat);
}

/**
 * How long a holder's row is kept after its last beat: `svc doctor` lists a daemon gone within
 * this long, and the worker then removes the row (every lease it held ran out long before).
 */
export const HEARTBEAT_KEPT_MS = 24 * 3_600_000;

/** Forget holders not seen since `before` (every lease they held has long run out). */
export async function pruneHeartbeats(db: Queryable, before: string): Promise<number> {
  return Number(await db('daemon_heartbeats').where('seen_at', '<', before).delete());
}

export interface HeldEvent {
  eventId: string;
  event: string;
  articleId: string;
  workspaceId: string;
  lockedUntil: string;
  /** Who holds it; null for a holder without a heartbeat row (a process of an older version). */
  holder: HeartbeatRow | null;
}

/** Pending events that carry a lease (valid or not), with their holder's heartbeat, for show and doctor. */
export async function heldEvents(db: Queryable, f: { connectorId?: string } = {}): Promise<HeldEvent[]> {
  const q = db('webhook_events as e')
    .leftJoin('daemon_heartbeats as h', 'h.id', 'e.locked_by')
    .where('e.status', 'pending')
    .whereNotNull('e.locked_until')
    .select('e.id as event_id', 'e.event', 'e.article_id', 'e.workspace_id', 'e.locked_until', 'h.id', 'h.kind', 'h.pid', 'h.host', 'h.started_at', 'h.seen_at')
    .orderBy('e.seq');
  if (f.connectorId) q.where('e.connector_id', f.connectorId);
  return (await q).map((r: Record<string, any>) => ({
    eventId: r.event_id,
    event: r.event,
    articleId: r.article_id,
    workspaceId: r.workspace_id,
    lockedUntil: r.locked_until,
    holder: r.id ? toHeartbeat(r) : null,
  }));
}

import { hostname } from 'node:os';
import type { Ctx } from '../context.js';
import { findConnector } from '../connectors/store.js';
import type { Row } from '../db/connect.js';
import type { DependencyFinding as HealthFinding } from '../limits/dependency-health.js';
import { processAlive } from '../lib/process-alive.js';
import type { Workspace } from '../workspaces/types.js';
import { HEARTBEAT_KEPT_MS, type HolderKind } from './lease.js';
import { type EventRow, queueOf } from './store.js';

/** A lease holder as operators see it (its daemon_heartbeats row). */
export interface HolderView {
  id: string;
  kind: HolderKind;
  pid: number;
  host: string;
  startedAt: string;
  seenAt: string;
  /** Its heartbeat is fresh (and, on this host, its process exists). */
  alive: boolean;
}

function holderOf(ctx: Ctx, r: Row, now: number): HolderView {
  const h = { id: r.id, kind: r.kind ?? 'daemon', pid: Number(r.pid), host: r.host, startedAt: r.started_at, seenAt: r.seen_at };
  const fresh = now - Date.parse(h.seenAt) <= ctx.config.webhooks.heartbeatStaleAfter;
  // A holder on this host whose process is gone (killed) is not alive, even if its beat is recent.
  return { ...h, alive: fresh && (h.host !== hostname() || processAlive(h.pid)) };
}

/** Holders (daemons and waiting commands) seen within `withinMs`, alive or not, newest first. */
export async function seenHolders(ctx: Ctx, withinMs = HEARTBEAT_KEPT_MS): Promise<HolderView[]> {
  const now = ctx.clock.now().getTime();
  const rows = await ctx.db('daemon_heartbeats').where('seen_at', '>=', new Date(now - withinMs).toISOString()).orderBy('seen_at', 'desc');
  return rows.map((r: Row) => holderOf(ctx, r, now));
}

/** Whether some daemon sharing this database is working the outbox right now. */
export async function daemonStatus(ctx: Ctx): Promise<{ running: boolean; daemons: HolderView[] }> {
  const daemons = (await seenHolders(ctx, ctx.config.webhooks.heartbeatStaleAfter)).filter((h) => h.kind === 'daemon' && h.alive);
  return { running: daemons.length > 0, daemons };
}

/** `holder`: null for a holder without a heartbeat row (a process of an older version). */
export type LeaseView = Pick<EventRow, 'event' | 'articleId' | 'workspaceId'> & { eventId: string; lockedUntil: string; holder: HolderView | null; valid: boolean };

/** Pending events that carry a lease, with who holds them (all connectors, or one). */
export async function leases(ctx: Ctx, connectorId?: string): Promise<LeaseView[]> {
  const now = ctx.clock.now().getTime();
  const q = ctx
    .db('webhook_events as e')
    .leftJoin('daemon_heartbeats as h', 'h.id', 'e.locked_by')
    .where('e.status', 'pending')
    .whereNotNull('e.locked_until')
    .select('e.id as event_id', 'e.event', 'e.article_id', 'e.workspace_id', 'e.locked_until', 'h.id', 'h.kind', 'h.pid', 'h.host', 'h.started_at', 'h.seen_at')
    .orderBy('e.seq');
  if (connectorId) q.where('e.connector_id', connectorId);
  return (await q).map((r: Row) => {
    const holder = r.id ? holderOf(ctx, r, now) : null;
    // As the claim judges it: a dead process on this host still holds until its beat is stale.
    const fresh = !holder || now - Date.parse(holder.seenAt) <= ctx.config.webhooks.heartbeatStaleAfter;
    return { eventId: r.event_id, event: r.event, articleId: r.article_id, workspaceId: r.workspace_id, lockedUntil: r.locked_until, holder, valid: Date.parse(r.locked_until) >= now && fresh };
  });
}

/** `daemon_… (pid 123 on host, seen …)`, or why it is not alive. One line, for show and doctor. */
export function describeHolder(h: HolderView): string {
  const who = `${h.id} (${h.kind === 'request' ? 'a command waiting for its receiver, ' : ''}pid ${h.pid} on ${h.host}, started ${h.startedAt}`;
  return h.alive ? `${who}, seen ${h.seenAt})` : `${who}, last seen ${h.seenAt}: gone, stopped without saying so or killed)`;
}

/** `evt_… article.updated of art_… held by <holder> until …`, and what happens to it when the holder is gone. */
export function describeLease(l: LeaseView): string {
  const what = `${l.eventId} ${l.event} of ${l.articleId}`;
  const by = l.holder ? describeHolder(l.holder) : 'a process of an older svc version';
  if (l.valid) return `${what} held by ${by} until ${l.lockedUntil}`;
  return `${what} was held by ${by}: the lease is void, the next daemon to look takes it over`;
}

/** What `svc doctor` reports about webhooks: the daemons it sees (alive, or gone within the last day), events held, disabled or failing webhooks, stuck queues. */
export async function webhookHealth(ctx: Ctx, workspaces: Workspace[]): Promise<HealthFinding[]> {
  const out: HealthFinding[] = [];
  const now = ctx.clock.now().getTime();
  let anyPending = false;
  for (const ws of workspaces) {
    const c = await findConnector(ctx.db, ws.id, 'webhook');
    if (!c) continue;
    const check = `webhook of ${ws.name}`;
    const { counts, oldestPending: oldest } = await queueOf(ctx.db, c.id);
    anyPending ||= counts.pending > 0;
    if (!c.enabled) out.push({ level: 'fail', check, detail: `disabled: ${c.disabledReason ?? 'no reason recorded'} (${counts.pending} events waiting)` });
    else if (c.failingSince) out.push({ level: 'warn', check, detail: `every delivery has failed since ${c.failingSince}; it is disabled after ${Math.round(ctx.config.webhooks.disableAfter / 3_600_000)} h (svc webhook deliveries --failed)` });
    else {
      const stale = oldest && now - Date.parse(oldest) > 60_000;
      out.push({ level: stale ? 'warn' : 'ok', check, detail: `${c.url}: ${counts.pending} pending${oldest ? ` (oldest from ${oldest})` : ''}, ${counts.failed} failed` });
    }
  }
  for (const l of await leases(ctx)) out.push({ level: l.valid ? 'ok' : 'warn', check: 'lease', detail: describeLease(l) });
  const daemons = (await seenHolders(ctx)).filter((h) => h.kind === 'daemon');
  out.unshift(
    ...daemons.filter((d) => d.alive).map((d) => ({ level: 'ok' as const, check: 'daemon', detail: `running: ${describeHolder(d)}` })),
    ...daemons.filter((d) => !d.alive).map((d) => ({ level: 'warn' as const, check: 'daemon', detail: `${describeHolder(d)}; listed for a day, a clean stop removes it` })),
  );
  if (!daemons.some((d) => d.alive)) out.unshift({ level: anyPending ? 'warn' : 'ok', check: 'daemon', detail: `not running${anyPending ? ': webhook events wait until svc serve runs' : ''}` });
  return out;
}

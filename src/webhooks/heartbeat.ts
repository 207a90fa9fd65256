import { hostname } from 'node:os';
import type { Ctx } from '../context.js';
import { HEARTBEAT_KEPT_MS, type HeartbeatRow, type HeldEvent, heartbeatsSince, heldEvents } from './heartbeat-store.js';
import { processAlive } from '../lib/process-alive.js';

/** A lease holder as operators see it. */
export interface HolderView {
  id: string;
  kind: 'daemon' | 'request';
  pid: number;
  host: string;
  startedAt: string;
  seenAt: string;
  /** Its heartbeat is fresh (and, on this host, its process exists). */
  alive: boolean;
}

export interface DaemonStatus {
  running: boolean;
  /** Daemons alive now, most recently seen first. */
  daemons: HolderView[];
}

/** Whether some daemon sharing this database is working the outbox right now. */
export async function daemonStatus(ctx: Ctx): Promise<DaemonStatus> {
  const daemons = (await seenHolders(ctx, ctx.config.webhooks.heartbeatStaleAfter)).filter((h) => h.kind === 'daemon' && h.alive);
  return { running: daemons.length > 0, daemons };
}

/** Holders (daemons and waiting commands) seen within `withinMs`, alive or not. */
export async function seenHolders(ctx: Ctx, withinMs = HEARTBEAT_KEPT_MS): Promise<HolderView[]> {
  const now = ctx.clock.now().getTime();
  const rows = await heartbeatsSince(ctx.db, new Date(now - withinMs).toISOString());
  return rows.map((h) => viewOf(ctx, h, now));
}

/** Events that carry a lease, with who holds them (all connectors, or one). */
export async function leases(ctx: Ctx, connectorId?: string): Promise<Array<Omit<HeldEvent, 'holder'> & { holder: HolderView | null; valid: boolean }>> {
  const now = ctx.clock.now().getTime();
  return (await heldEvents(ctx.db, { connectorId })).map((e) => {
    const holder = e.holder ? viewOf(ctx, e.holder, now) : null;
    // As the claim statements judge it (lease-store.ts): a dead process on this host still holds until its beat is stale.
    const fresh = !e.holder || now - Date.parse(e.holder.seenAt) <= ctx.config.webhooks.heartbeatStaleAfter;
    return { ...e, holder, valid: Date.parse(e.lockedUntil) >= now && fresh };
  });
}

function viewOf(ctx: Ctx, h: HeartbeatRow, now: number): HolderView {
  const fresh = now - Date.parse(h.seenAt) <= ctx.config.webhooks.heartbeatStaleAfter;
  // A holder on this host whose process is gone (killed) is not alive, even if its beat is recent.
  return { ...h, alive: fresh && (h.host !== hostname() || processAlive(h.pid)) };
}

/** `daemon_… (pid 123 on host, seen …)`, or why it is not alive. One line, for show and doctor. */
export function describeHolder(h: HolderView): string {
  const who = `${h.id} (${h.kind === 'request' ? 'a command waiting for its receiver, ' : ''}pid ${h.pid} on ${h.host}, started ${h.startedAt}`;
  return h.alive ? `${who}, seen ${h.seenAt})` : `${who}, last seen ${h.seenAt}: gone, stopped without saying so or killed)`;
}

/** `evt_… article.updated of art_… held by <holder> until …`, and what happens to it when the holder is gone. */
export function describeLease(l: Awaited<ReturnType<typeof leases>>[number]): string {
  const what = `${l.eventId} ${l.event} of ${l.articleId}`;
  const by = l.holder ? describeHolder(l.holder) : 'a process of an older svc version';
  if (l.valid) return `${what} held by ${by} until ${l.lockedUntil}`;
  return `${what} was held by ${by}: the lease is void, the next daemon to look takes it over`;
}

import { hostname } from 'node:os';
import type { Ctx } from '../context.js';
import { withTransaction } from '../db/tx.js';
import { randomBase62 } from '../lib/crypto.js';
import { type HolderKind, beatHeart, removeHeartbeat } from './heartbeat-store.js';
import type { LeaseRef, LeaseTime } from './lease-store.js';

/**
 * A process that holds webhook leases: the daemon's worker, or a command delivering one event
 * itself (an unpublish waiting for its receiver, a test, a redelivery). It refreshes its
 * daemon_heartbeats row every webhooks.heartbeatInterval; once the row is older than
 * webhooks.heartbeatStaleAfter its leases are void and other daemons take its events over
 * (so a crash costs about heartbeatStaleAfter, not a whole lease).
 */
export interface LeaseHolder {
  readonly id: string;
  readonly kind: HolderKind;
  /** Until when (epoch ms) others still count this holder as alive: its last written beat + heartbeatStaleAfter. */
  aliveUntil(): number;
  /** Stop beating and remove the row. Release the leases first: without a row they last until locked_until. */
  stop(): Promise<void>;
}

/** Write the first heartbeat (rejects when it cannot), then keep beating until stop(). */
export async function startHolder(ctx: Ctx, kind: HolderKind): Promise<LeaseHolder> {
  const { heartbeatInterval, heartbeatStaleAfter } = ctx.config.webhooks;
  const id = `${kind === 'daemon' ? 'daemon' : 'req'}_${randomBase62(12)}`;
  const startedAt = ctx.clock.now().toISOString();
  let lastBeat = 0;
  let beating: Promise<void> | null = null;
  const beat = async () => {
    // The time is read once a connection is ours: a beat that waited for a busy pool (or for
    // the SQLite writer behind a burst of publishes) is not stale on arrival.
    const at = await withTransaction(ctx.db, async (trx) => {
      const now = ctx.clock.now();
      await beatHeart(trx, { id, kind, pid: process.pid, host: hostname(), startedAt, now: now.toISOString() });
      return now.getTime();
    });
    lastBeat = at;
  };
  await beat();
  const timer = setInterval(() => {
    if (beating) return; // a slow database: never two beats at once
    beating = beat()
      .catch((err) => ctx.log.warn({ err, holder: id }, 'webhook lease heartbeat failed; leases lapse if it keeps failing'))
      .finally(() => (beating = null));
  }, heartbeatInterval);
  timer.unref();
  return {
    id,
    kind,
    aliveUntil: () => lastBeat + heartbeatStaleAfter,
    async stop() {
      clearInterval(timer);
      await beating;
      await removeHeartbeat(ctx.db, id).catch((err) => ctx.log.warn({ err, holder: id }, 'could not remove the heartbeat row'));
    },
  };
}

/**
 * How long a claim lasts at most: waiting behind one attempt in the worker's queue, making its
 * own (both bounded by the timeout) and recording the result. A holder whose heartbeat goes
 * stale loses it sooner.
 */
export const leaseMs = (ctx: Ctx): number => 2 * ctx.config.webhooks.timeout + 5_000;

/** When a lease taken (or renewed) now runs out. */
export const leaseUntil = (ctx: Ctx, now = ctx.clock.now()): string => new Date(now.getTime() + leaseMs(ctx)).toISOString();

/** A new lease of `holder`: a fresh token, good for leaseMs from now. */
export function newLease(ctx: Ctx, holder: LeaseHolder, now = ctx.clock.now()): LeaseRef {
  return { holderId: holder.id, token: randomBase62(24), until: leaseUntil(ctx, now) };
}

/** Now, and the oldest heartbeat that still counts as alive. */
export function leaseTime(ctx: Ctx, now = ctx.clock.now()): LeaseTime {
  return { now: now.toISOString(), freshSince: new Date(now.getTime() - ctx.config.webhooks.heartbeatStaleAfter).toISOString() };
}

const margin = (ctx: Ctx) => Math.min(1_000, ctx.config.webhooks.heartbeatInterval);

/** Whether others still count the holder as alive a moment from now (its heartbeats are being written). */
export const holderAlive = (ctx: Ctx, holder: LeaseHolder, now = ctx.clock.now().getTime()): boolean => now + margin(ctx) < holder.aliveUntil();

/**
 * Whether an attempt may start under this lease: it must stay ours for the whole timeout (else
 * its result could not be recorded and another daemon would send the event again, perhaps
 * before this request arrives), with a little to spare.
 */
export function maySend(ctx: Ctx, holder: LeaseHolder, lease: LeaseRef, now = ctx.clock.now().getTime()): boolean {
  return now + ctx.config.webhooks.timeout + margin(ctx) <= Date.parse(lease.until) && holderAlive(ctx, holder, now);
}

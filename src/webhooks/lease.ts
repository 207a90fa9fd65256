import { hostname } from 'node:os';
import type { Ctx } from '../context.js';
import { type Queryable, writeOn } from '../db/connect.js';
import { withTransaction } from '../db/tx.js';
import { randomBase62 } from '../lib/crypto.js';
import type { LeaseRef, LeaseTime } from './lease-store.js';

export type HolderKind = 'daemon' | 'request';

/** A daemon's worker, or a command delivering one event itself. Its stale heartbeat voids its leases well before they run out (2 timeouts + 5 s). */
export interface LeaseHolder {
  readonly id: string;
  /** Until when (epoch ms) others still count this holder as alive: its last written beat + heartbeatStaleAfter. */
  aliveUntil(): number;
  /** Stop beating and remove the row. Release the leases first: without a row they last until locked_until. */
  stop(): Promise<void>;
}

/** How long a holder's row is kept after its last beat (`svc doctor` lists a daemon gone within this long). */
export const HEARTBEAT_KEPT_MS = 24 * 3_600_000;

/** Forget holders not seen since `before` (every lease they held has long run out). */
export const pruneHeartbeats = async (db: Queryable, before: string) => Number(await writeOn(db)('daemon_heartbeats').where('seen_at', '<', before).delete());

/** Write the first heartbeat (rejects when it cannot), then keep beating until stop(). */
export async function startHolder(ctx: Ctx, kind: HolderKind): Promise<LeaseHolder> {
  const { heartbeatInterval, heartbeatStaleAfter } = ctx.config.webhooks;
  const id = `${kind === 'daemon' ? 'daemon' : 'req'}_${randomBase62(12)}`;
  const started_at = ctx.clock.now().toISOString();
  let lastBeat = 0;
  let beating: Promise<void> | null = null;
  const beat = async () => {
    // The time is read once a connection is ours: a beat that waited for a busy pool is not stale on arrival.
    lastBeat = await withTransaction(ctx.db, async (trx) => {
      const now = ctx.clock.now();
      const seen_at = now.toISOString();
      await trx('daemon_heartbeats').insert({ id, kind, pid: process.pid, host: hostname(), started_at, seen_at }).onConflict('id').merge({ seen_at });
      return now.getTime();
    });
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
    aliveUntil: () => lastBeat + heartbeatStaleAfter,
    async stop() {
      clearInterval(timer);
      await beating;
      await writeOn(ctx.db)('daemon_heartbeats').where({ id }).delete().catch((err) => ctx.log.warn({ err, holder: id }, 'could not remove the heartbeat row'));
    },
  };
}

/** How long a claim lasts at most: waiting behind one attempt, making its own (both bounded by the timeout) and recording it. */
export const leaseMs = (ctx: Ctx): number => 2 * ctx.config.webhooks.timeout + 5_000;

export const leaseUntil = (ctx: Ctx, now = ctx.clock.now()): string => new Date(now.getTime() + leaseMs(ctx)).toISOString();

export const newLease = (ctx: Ctx, holder: LeaseHolder, now = ctx.clock.now()): LeaseRef => ({ holderId: holder.id, token: randomBase62(24), until: leaseUntil(ctx, now) });

export const leaseTime = (ctx: Ctx, now = ctx.clock.now()): LeaseTime => ({ now: now.toISOString(), freshSince: new Date(now.getTime() - ctx.config.webhooks.heartbeatStaleAfter).toISOString() });

const margin = (ctx: Ctx) => Math.min(1_000, ctx.config.webhooks.heartbeatInterval);

/** Whether others still count the holder as alive a moment from now. */
export const holderAlive = (ctx: Ctx, holder: LeaseHolder, now = ctx.clock.now().getTime()): boolean => now + margin(ctx) < holder.aliveUntil();

/** Whether an attempt may start: the lease must stay ours for the whole timeout (else another daemon sends the event again), with a little to spare. */
export const maySend = (ctx: Ctx, holder: LeaseHolder, lease: LeaseRef, now = ctx.clock.now().getTime()): boolean =>
  now + ctx.config.webhooks.timeout + margin(ctx) <= Date.parse(lease.until) && holderAlive(ctx, holder, now);

import { hostname } from 'node:os';
import PQueue from 'p-queue';
import type { Ctx } from '../context.js';
import { findConnector } from '../connectors/store.js';
import { randomBase62 } from '../lib/crypto.js';
import { attemptEvent, leaseMs } from './attempt.js';
import { HEARTBEAT_EVERY_MS } from './heartbeat.js';
import { type EventRow, beatHeart, claimEvent, dueEvents, removeHeartbeat, settleEvent } from './store.js';

export interface WebhookWorker {
  /** Stop claiming; wait for attempts in flight to finish and record their result (a Job, see jobs/job.ts). */
  stop(deadline?: AbortSignal): Promise<boolean>;
}

/**
 * The daemon's delivery loop. Due outbox rows are claimed with a lease (several daemons and the
 * CLI may share the database), delivered by a p-queue of webhooks.concurrency, and looked for
 * every webhooks.pollInterval (rows written by other processes) and at once on
 * `webhooks.enqueued` or when an attempt finishes (the next event of that article may be due).
 */
export function startWebhookWorker(ctx: Ctx): WebhookWorker {
  const id = `daemon_${randomBase62(12)}`;
  const startedAt = ctx.clock.now().toISOString();
  const queue = new PQueue({ concurrency: ctx.config.webhooks.concurrency });
  const inFlight = new Set<string>();
  let stopped = false;
  let ticking: Promise<void> | null = null;
  let again = false;
  let lastBeat = 0;
  let timer: NodeJS.Timeout | undefined;

  const heartbeat = async () => {
    const now = ctx.clock.now();
    if (now.getTime() - lastBeat < HEARTBEAT_EVERY_MS) return;
    lastBeat = now.getTime();
    await beatHeart(ctx.db, { id, pid: process.pid, host: hostname(), startedAt, now: now.toISOString() });
  };

  const deliver = async (event: EventRow) => {
    try {
      const connector = await findConnector(ctx.db, event.workspaceId, 'webhook');
      if (!connector || connector.id !== event.connectorId || !connector.enabled || !connector.url) {
        // Disabled or replaced since the claim: give the lease back untouched.
        await settleEvent(ctx.db, event.id, { status: 'pending', attempts: event.attempts, lastStatus: event.lastStatus, lastError: event.lastError, now: ctx.clock.now().toISOString() });
        return;
      }
      await attemptEvent(ctx, event, connector);
    } catch (err) {
      // The lease runs out and the event is tried again; nothing is lost.
      ctx.log.error({ err, eventId: event.id }, 'webhook attempt could not be recorded');
    } finally {
      inFlight.delete(event.id);
      wake();
    }
  };

  const claimDue = async () => {
    await heartbeat();
    for (;;) {
      // Claim up to twice the concurrency so the queue never waits on a database round trip.
      const capacity = 2 * ctx.config.webhooks.concurrency - inFlight.size;
      if (stopped || capacity <= 0) return;
      const now = ctx.clock.now();
      const due = await dueEvents(ctx.db, now.toISOString(), capacity, [...inFlight]);
      if (due.length === 0) return;
      let claimed = 0;
      for (const event of due) {
        if (stopped) return;
        const until = new Date(now.getTime() + leaseMs(ctx)).toISOString();
        if (!(await claimEvent(ctx.db, event.id, id, now.toISOString(), until))) continue;
        claimed++;
        inFlight.add(event.id);
        void queue.add(() => deliver(event));
      }
      if (claimed === 0) return;
    }
  };

  const tick = (): Promise<void> => {
    if (ticking) {
      again = true;
      return ticking;
    }
    clearTimeout(timer);
    ticking = (async () => {
      do {
        again = false;
        try {
          await claimDue();
        } catch (err) {
          ctx.log.error({ err }, 'webhook worker tick failed');
        }
      } while (again && !stopped);
    })().finally(() => {
      ticking = null;
      if (!stopped) timer = setTimeout(tick, ctx.config.webhooks.pollInterval);
    });
    return ticking;
  };

  const wake = () => {
    if (!stopped) setImmediate(tick);
  };
  ctx.events.on('webhooks.enqueued', wake);
  timer = setTimeout(tick, 0);

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      ctx.events.off('webhooks.enqueued', wake);
      if (ticking) await ticking;
      await queue.onIdle();
      await removeHeartbeat(ctx.db, id).catch(() => {});
      return true;
    },
  };
}

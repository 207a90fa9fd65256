import PQueue from 'p-queue';
import type { Ctx } from '../context.js';
import { findConnector } from '../connectors/store.js';
import { withTransaction } from '../db/tx.js';
import type { Job } from '../jobs/job.js';
import { ANSWERED_AT_ONCE, attemptEvent } from './attempt.js';
import { HEARTBEAT_KEPT_MS, pruneHeartbeats } from './heartbeat-store.js';
import { type LeaseHolder, holderAlive, leaseTime, maySend, newLease, startHolder } from './lease.js';
import { type LeaseRef, claimEvent, dueEvents, releaseLeases } from './lease-store.js';
import { abandonRequested } from './outbox.js';
import type { EventRow } from './store.js';

interface Claim {
  event: EventRow;
  lease: LeaseRef;
  abort: AbortController;
  /** Set once the attempt starts; claims still waiting in the queue are given back on stop. */
  running?: Promise<void>;
}

/**
 * The daemon's delivery loop (a Job, see jobs/job.ts). Due outbox rows are claimed with a lease
 * (several daemons and the CLI may share the database), delivered by a p-queue of
 * webhooks.concurrency, and looked for every webhooks.pollInterval (rows written by other
 * processes) and at once on `webhooks.enqueued` or when an attempt finishes (the next event of
 * that article may be due). The worker's heartbeat keeps its leases alive.
 */
export function startWebhookWorker(ctx: Ctx): Job {
  const queue = new PQueue({ concurrency: ctx.config.webhooks.concurrency });
  const claims = new Map<string, Claim>();
  let holder: LeaseHolder | null = null;
  let stopped = false;
  let ticking: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let pruneAt = 0;

  const run = async (c: Claim, h: LeaseHolder) => {
    const { event, lease } = c;
    try {
      const connector = await findConnector(ctx.db, event.workspaceId, 'webhook');
      if (!connector || connector.id !== event.connectorId || !connector.enabled || !connector.url || !maySend(ctx, h, lease)) {
        // Disabled or replaced since the claim, or too little lease left to be sure of it: give it back untouched.
        await releaseLeases(ctx.db, lease.token, { ids: [event.id] });
      } else if (ANSWERED_AT_ONCE.has(event.event)) {
        // Only ever sent by the process waiting for it; here because that process is gone.
        await withTransaction(ctx.db, (trx) => abandonRequested(trx, ctx, event, lease));
      } else {
        await attemptEvent(ctx, event, connector, lease, { signal: c.abort.signal });
      }
    } catch (err) {
      // The lease runs out and the event is tried again; nothing is lost.
      ctx.log.error({ err, eventId: event.id }, 'webhook attempt could not be recorded');
    } finally {
      claims.delete(event.id);
      wake();
    }
  };

  const claimDue = async () => {
    if (stopped) return; // a wake queued before stop(): no heartbeat row may outlive the worker
    holder ??= await startHolder(ctx, 'daemon');
    const h = holder;
    if (Date.now() >= pruneAt) {
      pruneAt = Date.now() + 3_600_000;
      await pruneHeartbeats(ctx.db, new Date(ctx.clock.now().getTime() - HEARTBEAT_KEPT_MS).toISOString());
    }
    for (;;) {
      // Claim up to twice the concurrency so the queue never waits on a database round trip.
      const capacity = 2 * ctx.config.webhooks.concurrency - claims.size;
      const now = ctx.clock.now();
      // While our own heartbeat fails to be written, a claim could not be used: claim nothing.
      if (stopped || capacity <= 0 || !holderAlive(ctx, h, now.getTime())) return;
      const at = leaseTime(ctx, now);
      const due = await dueEvents(ctx.db, at, capacity, [...claims.keys()]);
      if (due.length === 0) return;
      let claimed = 0;
      for (const event of due) {
        if (stopped) return;
        const lease = newLease(ctx, h, now);
        if (!(await claimEvent(ctx.db, event.id, lease, at))) continue;
        claimed++;
        const c: Claim = { event: { ...event, leaseToken: lease.token }, lease, abort: new AbortController() };
        claims.set(event.id, c);
        void queue.add(() => (c.running = run(c, h)));
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

  const release = (list: Claim[]) => Promise.all(list.map((c) => releaseLeases(ctx.db, c.lease.token, { ids: [c.event.id] }).catch((err) => ctx.log.error({ err, eventId: c.event.id }, 'could not release a webhook lease'))));

  return {
    /**
     * Stop claiming; give the claims not yet started back at once; wait for the attempts in
     * flight. When `deadline` aborts first, those are given up: their leases are released (so
     * another daemon, or the next start, takes them at once), their requests aborted, nothing
     * recorded for them, and the result is false (issue 10, shutdown).
     */
    async stop(deadline?: AbortSignal) {
      stopped = true;
      clearTimeout(timer);
      ctx.events.off('webhooks.enqueued', wake);
      if (ticking) await ticking;
      queue.clear();
      const waiting = [...claims.values()].filter((c) => !c.running);
      for (const c of waiting) claims.delete(c.event.id);
      await release(waiting);
      const inFlight = [...claims.values()];
      const all = Promise.all(inFlight.map((c) => c.running));
      let finished = true;
      if (inFlight.length > 0 && deadline) {
        finished = await new Promise<boolean>((resolve) => {
          const onAbort = () => resolve(false);
          if (deadline.aborted) return resolve(false);
          deadline.addEventListener('abort', onAbort, { once: true });
          void all.then(() => {
            deadline.removeEventListener('abort', onAbort);
            resolve(true);
          });
        });
        if (!finished) {
          // Release before aborting, so an attempt that ends now finds its lease gone and records nothing.
          await release(inFlight);
          for (const c of inFlight) c.abort.abort();
          ctx.log.warn({ events: inFlight.map((c) => c.event.id) }, 'shutdown deadline: webhook attempts in flight given up; their events go to the next daemon');
        }
      }
      await all;
      await holder?.stop();
      return finished;
    },
  };
}

import { setMaxListeners } from 'node:events';
import PQueue from 'p-queue';
import type { Ctx } from '../context.js';
import { type Connector, findConnector } from '../connectors/store.js';
import { withTransaction } from '../db/tx.js';
import { writerOf } from '../db/connect.js';
import type { Job } from '../jobs/job.js';
import { logJobFailure } from '../lib/failure-log.js';
import { ANSWERED_AT_ONCE, type SentAttempt, recordAttempts, sendAttempt } from './attempt.js';
import { HEARTBEAT_KEPT_MS, type LeaseHolder, holderAlive, leaseTime, maySend, newLease, pruneHeartbeats, startHolder } from './lease.js';
import { type ClaimedEvent, type LeaseRef, claimDue, releaseLeases } from './lease-store.js';
import { abandonRequested } from './outbox.js';
import { connectorsByIds } from './store.js';

interface Claim {
  event: ClaimedEvent;
  lease: LeaseRef;
  /** As read right after the claim. */
  connector: Connector;
  claimedAt: number;
  /** Set once the attempt starts; claims not started are given back on stop. */
  running?: Promise<void>;
}

/** A claim that waited longer than this reads its connector again before sending (disabled or changed meanwhile?). */
const CONNECTOR_FRESH_MS = 1_000;
/**
 * A receiver keeps up to AHEAD times its slots claimed (waiting or in flight), claimed again in
 * batches of half that once half are gone: a drain pays one claim per batch, and a slot never
 * waits on a claim. A claim that waited too long for a slow receiver is given back (maySend).
 */
const AHEAD = 8;
/** How long a commit waits for the answers of attempts still in flight, to share their transaction. */
const GATHER_MS = 5;

/**
 * The daemon's delivery loop (a Job, see jobs/job.ts). Due outbox rows are claimed in batches
 * under one lease (several daemons and the CLI may share the database) and sent through one
 * queue per receiver (webhooks.concurrencyPerReceiver at once) feeding one for the process
 * (webhooks.concurrency): a slow receiver holds its own slots only. The answers read while a
 * commit runs are recorded together by the next (group commit). The worker claims at once on
 * `webhooks.enqueued`, once a receiver's claims run low or an attempt of it is recorded (the
 * next event of its article may be due), and every webhooks.pollInterval (rows written by other
 * processes). Its heartbeat keeps its leases alive.
 */
export function startWebhookWorker(ctx: Ctx): Job {
  const { concurrency, concurrencyPerReceiver } = ctx.config.webhooks;
  const slots = Math.min(concurrency, concurrencyPerReceiver);
  const batch = (AHEAD / 2) * slots;
  const all = new PQueue({ concurrency });
  const queues = new Map<string, PQueue>();
  const claims = new Map<string, Claim>();
  /** Claims per receiver not yet answered: what decides whether it wants more. */
  const unanswered = new Map<string, number>();
  const count = (id: string, by: number) => {
    const n = (unanswered.get(id) ?? 0) + by;
    if (n > 0) unanswered.set(id, n);
    else unanswered.delete(id);
  };
  const wantsMore = (id: string) => (unanswered.get(id) ?? 0) <= batch;
  /** When an attempt to the connector last failed: claims made before read it again (a 410 disables it). */
  const failedAt = new Map<string, number>();
  let holder: LeaseHolder | null = null;
  let stopped = false;
  let pruneAt = 0;
  /** Aborts every attempt in flight at once (a shutdown deadline); each listens to it. */
  const giveUp = new AbortController();
  setMaxListeners(0, giveUp.signal);
  // On SQLite the claims and leases given back go through the process's writer in arrival order
  // (db/connect.ts writerOf), instead of napping in busy_timeout's back-off behind a burst of publishes.
  const writer = writerOf(ctx.db);

  // Group commit: what is answered while a commit runs (or, with attempts in flight, within
  // GATHER_MS) is recorded by the next, in one transaction.
  let answered: Array<{ sent: SentAttempt; done: () => void }> = [];
  let committing = false;
  const commit = async () => {
    while (answered.length > 0) {
      if (answered.length < concurrency && all.pending > 0) await new Promise((resolve) => setTimeout(resolve, GATHER_MS));
      const list = answered;
      answered = [];
      // On failure the leases run out and the events are tried again; nothing is lost.
      await recordAttempts(ctx, list.map((a) => a.sent)).catch((err) => logJobFailure(ctx, err, 'webhook attempts could not be recorded', { events: list.map((a) => a.sent.event.id) }));
      for (const a of list) a.done();
    }
    committing = false;
  };
  const record = (sent: SentAttempt) =>
    new Promise<void>((done) => {
      answered.push({ sent, done });
      if (committing) return;
      committing = true;
      setImmediate(() => void commit());
    });

  /** One attempt; `free` gives its receiver's slot back once the receiver has answered. */
  const attempt = async (c: Claim, h: LeaseHolder, free: () => void) => {
    const { event } = c;
    try {
      let connector: Connector | undefined = c.connector;
      if (Date.now() - c.claimedAt > CONNECTOR_FRESH_MS || (failedAt.get(event.connectorId) ?? -1) >= c.claimedAt) {
        connector = await findConnector(ctx.db, event.workspaceId, 'webhook');
      }
      if (!connector || connector.id !== event.connectorId || !connector.enabled || !connector.url || !maySend(ctx, h, c.lease)) {
        // Disabled or replaced since the claim, or too little lease left to be sure of it: give it back untouched.
        await releaseLeases(writer, c.lease.token, { ids: [event.id] });
      } else if (ANSWERED_AT_ONCE.has(event.event)) {
        // Only ever sent by the process waiting for it; here because that process is gone.
        await withTransaction(ctx.db, (trx) => abandonRequested(trx, ctx, event, c.lease));
      } else {
        const sent = await sendAttempt(ctx, event, connector, c.lease, event.currentPublishedUrl, giveUp.signal);
        // Given up at the shutdown deadline: stop() released the lease first, so there is nothing to record.
        if (giveUp.signal.aborted) return;
        if (!sent.outcome.ok) failedAt.set(event.connectorId, Date.now());
        free();
        await record(sent);
      }
    } catch (err) {
      // The lease runs out and the event is tried again; nothing is lost.
      logJobFailure(ctx, err, 'webhook attempt could not be recorded', { eventId: event.id });
    } finally {
      free();
      claims.delete(event.id);
      if (wantsMore(event.connectorId)) wake(event.connectorId);
    }
  };

  /** Runs in the receiver's queue and the process's: resolves once the receiver has answered. */
  const start = (c: Claim) =>
    new Promise<void>((resolve) => {
      if (stopped || !holder) return resolve(); // stop() gives the lease back
      let freed = false;
      const free = () => {
        if (freed) return;
        freed = true;
        count(c.event.connectorId, -1);
        resolve();
      };
      c.running = attempt(c, holder, free);
    });

  const enqueue = (c: Claim) => {
    const id = c.event.connectorId;
    let queue = queues.get(id);
    if (!queue) {
      const q = new PQueue({ concurrency: slots });
      q.on('idle', () => queues.get(id) === q && queues.delete(id));
      queues.set(id, (queue = q));
    }
    claims.set(c.event.id, c);
    count(id, 1);
    void queue.add(() => all.add(() => start(c)));
  };

  const claim = async () => {
    if (stopped) return; // a wake queued before stop(): no heartbeat row may outlive the worker
    holder ??= await startHolder(ctx, 'daemon');
    const h = holder;
    if (Date.now() >= pruneAt) {
      pruneAt = Date.now() + 3_600_000;
      await pruneHeartbeats(writer, new Date(ctx.clock.now().getTime() - HEARTBEAT_KEPT_MS).toISOString());
    }
    for (;;) {
      // The process's claims too are taken in batches (at least half of AHEAD times its slots).
      const room = AHEAD * concurrency - claims.size;
      const now = ctx.clock.now();
      // While our own heartbeat fails to be written, a claim could not be used: claim nothing.
      if (stopped || room < (AHEAD / 2) * concurrency || !holderAlive(ctx, h, now.getTime())) return;
      const skip = [...unanswered.keys()].filter((id) => !wantsMore(id));
      const lease = newLease(ctx, h, now);
      const taken = await claimDue(writer, lease, leaseTime(ctx, now), { limit: room, perConnector: batch, skip });
      if (taken.length === 0) return;
      const connectors = await connectorsByIds(ctx.db, [...new Set(taken.map((e) => e.connectorId))]);
      const claimedAt = Date.now();
      for (const event of taken) {
        const connector = connectors.get(event.connectorId);
        if (connector) enqueue({ event, lease, connector, claimedAt });
        else await releaseLeases(writer, lease.token, { ids: [event.id] });
      }
      // Fewer than asked for: nothing else was due (what comes since wakes the worker again).
      if (stopped || taken.length < room) return;
    }
  };

  // One claim at a time; wakes while one runs make one more after it.
  let ticking: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  /** Why the next tick claims: anything may be due (a poll, an event queued), or these receivers want more. */
  let anything = false;
  const asking = new Set<string>();
  const tick = (): Promise<void> => {
    if (ticking) {
      again = true;
      return ticking;
    }
    clearTimeout(timer);
    ticking = (async () => {
      do {
        again = false;
        const look = anything || [...asking].some(wantsMore);
        anything = false;
        asking.clear();
        if (look) await claim().catch((err) => logJobFailure(ctx, err, 'webhook worker tick failed'));
      } while (again && !stopped);
    })().finally(() => {
      ticking = null;
      if (!stopped) timer = setTimeout(poll, ctx.config.webhooks.pollInterval);
    });
    return ticking;
  };
  const poll = () => {
    anything = true;
    void tick();
  };
  let woken = false;
  /** Something may be due: anything (an event queued), or for this receiver. One tick for the wakes of one event-loop turn. */
  const wake = (connectorId?: string) => {
    if (typeof connectorId === 'string') asking.add(connectorId);
    else anything = true;
    if (stopped || woken) return;
    woken = true;
    setImmediate(() => {
      woken = false;
      void tick();
    });
  };
  const enqueued = () => wake();
  ctx.events.on('webhooks.enqueued', enqueued);
  timer = setTimeout(poll, 0);

  const release = (list: Claim[]) =>
    Promise.all(list.map((c) => releaseLeases(writer, c.lease.token, { ids: [c.event.id] }).catch((err) => logJobFailure(ctx, err, 'could not release a webhook lease', { eventId: c.event.id }))));

  return {
    /**
     * Stop claiming; give the claims not yet started back at once; wait for the attempts in
     * flight. When `deadline` aborts first, those are given up: their leases are released (so
     * another daemon, or the next start, takes them at once), their requests aborted, nothing
     * recorded for them, and the result is false (the stop was incomplete).
     */
    async stop(deadline?: AbortSignal) {
      stopped = true;
      clearTimeout(timer);
      ctx.events.off('webhooks.enqueued', enqueued);
      if (ticking) await ticking;
      const notStarted = [...claims.values()].filter((c) => !c.running);
      for (const c of notStarted) claims.delete(c.event.id);
      await release(notStarted);
      const started = [...claims.values()];
      const done = Promise.all(started.map((c) => c.running));
      let finished = true;
      if (deadline) {
        finished = await new Promise<boolean>((resolve) => {
          const onAbort = () => resolve(false);
          if (deadline.aborted) return resolve(false);
          deadline.addEventListener('abort', onAbort, { once: true });
          void done.then(() => {
            deadline.removeEventListener('abort', onAbort);
            resolve(true);
          });
        });
        if (!finished) {
          // Release before aborting, so an attempt that ends now finds its lease gone and records nothing.
          await release(started);
          giveUp.abort();
          ctx.log.warn({ events: started.map((c) => c.event.id) }, 'shutdown deadline: webhook attempts in flight given up; their events go to the next daemon');
        }
      }
      await done;
      await holder?.stop();
      return finished;
    },
  };
}

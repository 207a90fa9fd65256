import PQueue from 'p-queue';
import type { Ctx } from '../context.js';
import { type Connector, findConnector } from '../connectors/store.js';
import { withTransaction } from '../db/tx.js';
import { writerOf } from '../db/connect.js';
import type { Job } from '../jobs/job.js';
import { settleWithin } from '../lib/deadline.js';
import { logJobFailure } from '../lib/failure-log.js';
import { ANSWERED_AT_ONCE, type SentAttempt, recordAttempts, sendAttempt } from './attempt.js';
import { groupCommit } from './group-commit.js';
import { HEARTBEAT_KEPT_MS, type LeaseHolder, holderAlive, leaseTime, maySend, newLease, pruneHeartbeats, startHolder } from './lease.js';
import { type ClaimedEvent, type LeaseRef, claimEvents, dueEvents, releaseLeases } from './lease-store.js';
import { abandonRequested } from './outbox.js';
import { connectorsByIds } from './store.js';

interface Claim {
  event: ClaimedEvent;
  lease: LeaseRef;
  /** Read right after the claim; `claimedAt` is taken just before it. */
  connector: Connector;
  claimedAt: number;
  /** Its snapshot's size, counted against webhooks.claimedBytes until it is sent and recorded, or given back. */
  bytes: number;
  /** Its attempt holds a slot of all (stop() gives back the claims that do not, those waiting in their receiver queue too). */
  started?: boolean;
  recorded?: () => void; // its attempt failed: called once that attempt is recorded
  /** Sent and recorded, or given back. */
  done?: Promise<void>;
}

/** A claim that waited longer than this reads its connector again before sending (disabled or changed meanwhile?). */
const CONNECTOR_FRESH_MS = 1_000;
/** A receiver whose last answer was a 2xx within QUICK_MS gets CLAIM_AHEAD times its slots claimed ahead. */
const QUICK_MS = 250;
// 16: one find-due and claim per 32 deliveries to a quick receiver (8: PostgreSQL CPU 0.57-0.67 ms
// a delivery against 0.48-0.51 ms); 64 claims at 4 slots go out in about 4 s, far inside the lease.
const CLAIM_AHEAD = 16;
/** How long a recorded answer may wait for the answers of the attempts still in flight, to share their commit. */
const GATHER_MS = 5;

/**
 * The daemon's delivery loop: claims in batches, a queue per receiver feeding one for all (a slow receiver holds only its own slots), group commit.
 * `given`: the daemon's lease holder, its heartbeat row already written (jobs/index.ts), stopped with the worker; without it, one is made at the first claim.
 */
export function startWebhookWorker(ctx: Ctx, given?: LeaseHolder): Job {
  const { concurrency, concurrencyPerReceiver, claimedBytes } = ctx.config.webhooks;
  const slotsPerReceiver = Math.min(concurrency, concurrencyPerReceiver);
  // A receiver's part of claimedBytes is its part of the slots, or what fills its slots if more: one that holds its
  // answers does not hold all the memory, so the others' events still fit (its own, older, come first in the pick).
  const receiverBytes = Math.floor((claimedBytes * slotsPerReceiver) / concurrency);
  const claims = new Map<string, Claim>();
  const all = new PQueue({ concurrency });
  const receivers = new Map<string, PQueue>();
  const receiverQueue = (id: string) => {
    let q = receivers.get(id);
    if (!q) receivers.set(id, (q = new PQueue({ concurrency: slotsPerReceiver })));
    return q;
  };
  /** Claims of the receiver waiting for its slots (the rest hold one). */
  const queued = (id: string) => receivers.get(id)?.size ?? 0;
  const holding = (id: string) => receivers.get(id)?.pending ?? 0;
  let recording = 0; // attempts answered, waiting for their group commit
  const heldBy = new Map<string, number>(); // bytes of the snapshots of `claims`, by receiver
  const hold = (id: string, bytes: number) => {
    const n = (heldBy.get(id) ?? 0) + bytes;
    if (n === 0) heldBy.delete(id);
    else heldBy.set(id, n);
  };
  const quick = new Set<string>(); // connectors whose last answer came quickly
  /** The connector's last failed attempt, recorded `at` (a 410 disables it in that commit): claims made before then re-read it once it is. */
  const failures = new Map<string, { at: number; recorded: Promise<void> }>();
  let holder = given ?? null;
  let stopped = false;
  let ticking: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  /** Why the next tick looks: anything may be due (a poll, an event queued), or these receivers want more. */
  let anything = false;
  const asking = new Set<string>();
  let pruneAt = 0;
  /** Aborts every attempt in flight (a shutdown deadline): one controller for all. */
  const giveUp = new AbortController();

  // On SQLite the worker's writes queue for the process's writer instead of napping in busy_timeout's back-off.
  const writer = writerOf(ctx.db);
  // A batch waits (at most GATHER_MS) for the attempts in flight, up to one answer per slot.
  const record = groupCommit<SentAttempt>(
    async (list) => {
      try {
        await recordAttempts(ctx, list);
      } catch (err) {
        // The leases run out and the events are tried again; nothing is lost.
        logJobFailure(ctx, err, 'webhook attempts could not be recorded', { events: list.map((s) => s.event.id) });
      }
    },
    { coming: () => all.pending, size: concurrency, waitMs: GATHER_MS },
  );

  /** How many claims a receiver may have waiting or in flight (see claimDue). */
  const ahead = (id: string) => (quick.has(id) ? CLAIM_AHEAD : 2) * slotsPerReceiver;
  const room = (id: string) => ahead(id) - queued(id) - holding(id);
  /** Claim again for a quick receiver once half its claims are gone, for any other once its waiting claims are down to its slots. */
  const wantsMore = (id: string) => (quick.has(id) ? room(id) >= ahead(id) / 2 : room(id) > 0 && queued(id) <= slotsPerReceiver);

  /** The attempt of a claim holding its slots: what to record, or null (given back, or given up). */
  const send = async (c: Claim, h: LeaseHolder): Promise<SentAttempt | null> => {
    const { event, lease } = c;
    let connector: Connector | undefined = c.connector;
    const failure = failures.get(event.connectorId);
    if (Date.now() - c.claimedAt > CONNECTOR_FRESH_MS || (failure && failure.at >= c.claimedAt)) {
      await failure?.recorded; // a failure while this claim waited for all: its slot was free at the answer, before the commit
      connector = await findConnector(ctx.db, event.workspaceId, 'webhook');
    }
    if (!connector || connector.id !== event.connectorId || !connector.enabled || !connector.url || !maySend(ctx, h, lease)) {
      // Disabled or replaced since the claim, or too little lease left to be sure of it: give it back untouched.
      await releaseLeases(writer, lease.token, { ids: [event.id] });
      return null;
    }
    if (ANSWERED_AT_ONCE.has(event.event)) {
      // Only ever sent by the process waiting for it; here because that process is gone.
      await withTransaction(ctx.db, (trx) => abandonRequested(trx, ctx, event, lease));
      return null;
    }
    const sent = await sendAttempt(ctx, event, connector, lease, event.currentPublishedUrl, giveUp.signal);
    // Given up at the shutdown deadline: stop() released its lease and logged it; nothing to record.
    if (giveUp.signal.aborted) return null;
    if (!sent.outcome.ok) {
      const failure = { at: Infinity, recorded: new Promise<void>((resolve) => (c.recorded = resolve)) };
      void failure.recorded.then(() => (failure.at = Date.now()));
      failures.set(event.connectorId, failure);
    }
    quick[sent.outcome.ok && sent.outcome.durationMs < QUICK_MS ? 'add' : 'delete'](event.connectorId);
    recording++;
    return sent;
  };

  /** Queue a claim for its receiver's slots and one of all; once answered, its slots go to the next while it is recorded. */
  const enqueue = (c: Claim, h: LeaseHolder) => {
    const { event } = c;
    claims.set(event.id, c);
    hold(event.connectorId, c.bytes);
    c.done = receiverQueue(event.connectorId)
      .add(async () => {
        await failures.get(event.connectorId)?.recorded; // here a wait holds no slot of all (and the gather does not count it)
        return all.add(async () => {
          if (stopped) return null; // stop() gives back the claims not started
          c.started = true;
          return send(c, h);
        });
      })
      .then(async (sent) => {
        if (sent) await record(sent).finally(() => recording--);
      })
      .catch((err: unknown) => {
        // The lease runs out and the event is tried again; nothing is lost.
        logJobFailure(ctx, err, 'webhook attempt could not be recorded', { eventId: event.id });
      })
      .finally(() => {
        c.recorded?.();
        if (!c.started) return;
        claims.delete(event.id);
        hold(event.connectorId, -c.bytes);
        const q = receivers.get(event.connectorId);
        if (q && q.size === 0 && q.pending === 0) receivers.delete(event.connectorId);
        // Look for more once this receiver's claims run low (recorded: the next event of its article may be due now).
        if (wantsMore(event.connectorId)) wakeFor(event.connectorId);
      });
  };

  /** Claim what is due, as much as there is room for; how many events it claimed. */
  const claimDue = async (): Promise<number> => {
    let claimed = 0;
    if (stopped) return claimed; // a wake queued before stop(): no heartbeat row may outlive the worker
    const h = (holder ??= await startHolder(ctx, 'daemon'));
    if (Date.now() >= pruneAt) {
      pruneAt = Date.now() + 3_600_000;
      await pruneHeartbeats(writer, new Date(ctx.clock.now().getTime() - HEARTBEAT_KEPT_MS).toISOString());
    }
    // Claims wait for the slots, so a slot never waits on a round trip: twice a receiver's slots (each waits at most
    // one timeout), CLAIM_AHEAD times them while it answers quickly; maySend gives back one that waited too long.
    // Receivers the pick left events of (no room, or their next does not fit their part of the memory): this round's
    // later walks leave them out, so the events of others queued behind their backlog are found.
    const passed = new Set<string>();
    for (;;) {
      const capacity = CLAIM_AHEAD * concurrency - (claims.size - recording);
      const now = ctx.clock.now();
      // While our own heartbeat fails to be written, a claim could not be used: claim nothing.
      if (stopped || capacity <= 0 || !holderAlive(ctx, h, now.getTime())) return claimed;
      const at = leaseTime(ctx, now);
      // At their bound, of claims or of memory (no event fits in their part, and their slots are taken).
      const spent = (id: string) => (heldBy.get(id) ?? 0) >= receiverBytes && queued(id) + holding(id) >= slotsPerReceiver;
      const full = [...receivers.keys()].filter((id) => !wantsMore(id) || spent(id));
      const { events: due, cut } = await dueEvents(ctx.db, at, capacity, [...claims.keys()], [...new Set([...full, ...passed])], CLAIM_AHEAD * slotsPerReceiver);
      const taking = new Map<string, number>();
      // Memory: the snapshots held stay within claimedBytes, a receiver's within receiverBytes unless its slots are not
      // all taken (one event whatever its size when none is held). The first that does not fit ends the pick (for its
      // receiver only when its part is what it exceeds), so later ones do not pass it: it is taken once enough is sent.
      let bytes = [...heldBy.values()].reduce((sum, n) => sum + n, 0);
      const mine = new Map(heldBy);
      let memoryFull = false;
      const receiverFull = new Set<string>();
      const pick = due.filter((e) => {
        const n = taking.get(e.connectorId) ?? 0;
        if (memoryFull || receiverFull.has(e.connectorId) || n >= room(e.connectorId)) return false;
        const its = mine.get(e.connectorId) ?? 0;
        const fills = queued(e.connectorId) + holding(e.connectorId) + n < slotsPerReceiver;
        if (its > 0 && its + e.bytes > receiverBytes && !fills) return !receiverFull.add(e.connectorId);
        if (bytes > 0 && bytes + e.bytes > claimedBytes) return !(memoryFull = true);
        taking.set(e.connectorId, n + 1);
        mine.set(e.connectorId, its + e.bytes);
        bytes += e.bytes;
        return true;
      });
      const sizes = new Map(pick.map((e) => [e.id, e.bytes]));
      // The walk stopped at its limit: what it did not reach may be another receiver's (the window kept a part of each).
      for (const e of due) if (cut && !sizes.has(e.id)) passed.add(e.connectorId);
      if (pick.length === 0 || stopped) {
        if (cut && !memoryFull && !stopped) continue; // all it found were passed: the next walk leaves their receivers out
        return claimed;
      }
      const lease = newLease(ctx, h, now);
      const ids = pick.map((e) => e.id);
      const claimedAt = Date.now(); // a failure from now on makes send() read the webhook again
      // The webhook is read after the claim, so a disable committed before it is seen. Should either fail, the claim
      // may have been made all the same: its leases are given back now, not when they run out.
      const [taken, connectors] = await claimEvents(writer, ids, lease, at, ctx.db)
        .then(async (rows) => [rows, rows.length === 0 ? new Map<string, Connector>() : await connectorsByIds(ctx.db, [...taking.keys()])] as const)
        .catch(async (err: unknown) => {
          await releaseLeases(writer, lease.token, { ids }).catch(() => undefined);
          throw err;
        });
      if (taken.length === 0) return claimed;
      claimed += taken.length;
      for (const event of taken) if (connectors.has(event.connectorId)) enqueue({ event, lease, connector: connectors.get(event.connectorId)!, claimedAt, bytes: sizes.get(event.id)! }, h);
      const orphans = taken.filter((e) => !connectors.has(e.connectorId)).map((e) => e.id); // after: a failed release holds only these
      if (orphans.length > 0) await releaseLeases(writer, lease.token, { ids: orphans });
      // The walk ended before its limit: nothing else was due (what came since wakes the worker again). Full: recorded attempts wake it.
      if (stopped || memoryFull || !cut) return claimed;
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
        // A receiver that asked (an attempt of its recorded) but got its claims meanwhile needs no query.
        const look = anything || [...asking].some(wantsMore);
        anything = false;
        asking.clear();
        try {
          if (look) ctx.events.emit('webhooks.looked', { claimed: await claimDue() });
        } catch (err) {
          logJobFailure(ctx, err, 'webhook worker tick failed');
        }
      } while (again && !stopped);
    })().finally(() => {
      ticking = null;
      if (!stopped) timer = setTimeout(poll, ctx.config.webhooks.pollInterval); // rows other processes wrote
    });
    return ticking;
  };
  const poll = () => {
    anything = true;
    void tick();
  };

  let woken = false;
  /** Look soon: for this receiver (its claims run low, or an attempt of it was recorded), or for anything (an event queued). */
  const wakeFor = (connectorId?: string) => {
    if (connectorId) asking.add(connectorId);
    else anything = true;
    if (stopped || woken) return;
    woken = true; // one tick for every wake of one event-loop turn
    setImmediate(() => {
      woken = false;
      void tick();
    });
  };
  const wake = () => wakeFor();
  ctx.events.on('webhooks.enqueued', wake);
  timer = setTimeout(poll, 0);

  const release = (list: Claim[]) => Promise.all(list.map((c) => releaseLeases(writer, c.lease.token, { ids: [c.event.id] }).catch((err) => logJobFailure(ctx, err, 'could not release a webhook lease', { eventId: c.event.id }))));

  return {
    /** Give back the claims not started, wait for those in flight; when `deadline` aborts first they are given up and the result is false. */
    async stop(deadline?: AbortSignal) {
      stopped = true;
      clearTimeout(timer);
      ctx.events.off('webhooks.enqueued', wake);
      if (ticking) await ticking;
      const notStarted = [...claims.values()].filter((c) => !c.started);
      for (const q of [...receivers.values(), all]) q.clear();
      for (const c of notStarted) claims.delete(c.event.id);
      await release(notStarted);
      const started = [...claims.values()];
      const settled = Promise.all(started.map((c) => c.done));
      let finished = true;
      if (started.length > 0 && deadline) {
        finished = await settleWithin(settled.then(() => true), deadline, 0, false);
        if (!finished) {
          // Release before aborting, so an attempt that ends now finds its lease gone and records nothing.
          await release(started);
          giveUp.abort();
          ctx.log.warn({ events: started.map((c) => c.event.id) }, 'shutdown deadline: webhook attempts in flight given up; their events go to the next daemon');
        }
      }
      await settled;
      await holder?.stop();
      return finished;
    },
  };
}

import type { Ctx } from '../context.js';
import type { Connector } from '../connectors/store.js';
import type { Trx } from '../db/connect.js';
import * as publications from '../connectors/publications.js';
import { withTransaction } from '../db/tx.js';
import { AppError } from '../errors.js';
import { ANSWERED_AT_ONCE, type AttemptOutcome, type OnRecorded, recordAttempts, sendAttempt } from './attempt.js';
import { leaseMs, leaseTime, leaseUntil, maySend, newLease, startHolder } from './lease.js';
import { type LeaseRef, articleQueue, holdArticle, releaseLeases, stillLeased, supersedeHeld } from './lease-store.js';
import { abandonRequested } from './outbox.js';
import { type EventRow, type EventState, findEvent } from './store.js';
import { logJobFailure } from '../lib/failure-log.js';

export interface DeliverNowSpec {
  /** In one transaction, write the event leased to `lease` and say where it goes; null: nothing to send. */
  decide(trx: Trx, lease: LeaseRef): Promise<{ eventId: string; connector: Connector } | null>;
  /** Earlier pending events: 'supersede' (unpublish) holds them and cancels them on a 2xx, so they cannot put the post back; 'refuse' (redelivery); 'none'. */
  earlier: 'supersede' | 'refuse' | 'none';
  onRecorded?: OnRecorded;
}

/** Deliver one event from this process under its own lease, in its article's order, and wait for the answer. */
export async function deliverNow(ctx: Ctx, spec: DeliverNowSpec): Promise<(AttemptOutcome & { event: EventRow }) | null> {
  const holder = await startHolder(ctx, 'request');
  let lease = newLease(ctx, holder);
  let event: EventRow | undefined;
  let sending = false;
  try {
    const decided = await withTransaction(ctx.db, async (trx) => {
      const d = await spec.decide(trx, lease);
      return d && { event: (await findEvent(trx, d.eventId))!, connector: d.connector };
    });
    if (!decided) return null;
    event = decided.event;
    if (spec.earlier !== 'none') lease = await waitForTurn(ctx, event, lease, spec.earlier);
    if (!maySend(ctx, holder, lease)) throw lostLease(event, 'before sending');
    sending = true;
    const publication = event.event === 'test' ? undefined : await publications.find(ctx.db, event.articleId, event.connectorId);
    const sent = await sendAttempt(ctx, event, decided.connector, lease, publication ? (publication.publishedUrl ?? null) : undefined);
    await recordAttempts(ctx, [sent], async (trx, o) => {
      if (spec.earlier === 'supersede' && o.ok) await supersedeHeld(trx, decided.event, lease.token, `superseded by ${decided.event.event} ${decided.event.id}`, ctx.clock.now().toISOString());
      await spec.onRecorded?.(trx, o);
    });
    if (!sent.outcome.recorded) throw lostLease(event, 'after sending');
    return { ...sent.outcome, event };
  } catch (err) {
    // An event nobody else may send ends here (while the lease is still ours): failed, with why.
    if (event && ANSWERED_AT_ONCE.has(event.event)) {
      const why = `${sending ? 'given up after an error' : 'not sent'}: ${(err as Error).message}`;
      await withTransaction(ctx.db, (trx) => abandonRequested(trx, ctx, event!, lease, why)).catch(() => false);
    }
    throw err;
  } finally {
    // Whatever is still held goes back to the queue (events after this one, or all on a failure).
    if (event) {
      await releaseLeases(ctx.db, lease.token, { connectorId: event.connectorId, articleId: event.articleId }).catch((err) => logJobFailure(ctx, err, 'could not release webhook leases'));
      ctx.events.emit('webhooks.enqueued', { workspaceId: event.workspaceId });
    }
    await holder.stop();
  }
}

/** Hold the article's pending events, waiting while one is in flight elsewhere, until all are held (one freed between hold and look is held next round). */
async function waitForTurn(ctx: Ctx, event: EventRow, lease: LeaseRef, earlier: 'supersede' | 'refuse'): Promise<LeaseRef> {
  const scope = { connectorId: event.connectorId, articleId: event.articleId };
  const giveUpAt = Date.now() + 2 * leaseMs(ctx) + ctx.config.webhooks.heartbeatStaleAfter;
  for (;;) {
    const now = ctx.clock.now();
    const renewed = { ...lease, until: leaseUntil(ctx, now) };
    const at = leaseTime(ctx, now);
    await holdArticle(ctx.db, scope, renewed, at);
    const { ours, others } = await articleQueue(ctx.db, scope, renewed, at);
    if (!ours.some((e) => e.id === event.id)) throw lostLease(event, 'before sending');
    if (others.length === 0) {
      const before = ours.filter((e) => e.seq < event.seq);
      if (earlier === 'refuse' && before.length > 0) throw outOfOrder(before[0]);
      return renewed;
    }
    // Returns at once for those nobody holds any more: the next round holds them.
    await settled(ctx, others.map((e) => e.id), giveUpAt);
  }
}

/** Wait until none of these events is validly leased: an attempt here ends (webhooks.attempted), or a poll from 25 ms to 500 ms finds it. */
async function settled(ctx: Ctx, ids: string[], giveUpAt: number): Promise<void> {
  for (let wait = 25; ; wait = Math.min(2 * wait, 500)) {
    if ((await stillLeased(ctx.db, ids, leaseTime(ctx))) === 0) return;
    if (Date.now() > giveUpAt) throw new AppError('webhook_busy', 503, `Another delivery of this article (${ids[0]}) has held its lease for too long; nothing was sent`);
    await new Promise<void>((resolve) => {
      const stop = () => {
        clearTimeout(timer);
        ctx.events.off('webhooks.attempted', done);
        resolve();
      };
      const done = ({ eventId }: { eventId: string }) => ids.includes(eventId) && stop();
      const timer = setTimeout(stop, wait);
      ctx.events.on('webhooks.attempted', done);
    });
  }
}

/** A redelivery may not jump ahead of an earlier event of its article that is still waiting. */
export const outOfOrder = (earlier: EventState) =>
  new AppError('out_of_order', 409, `An earlier event of this article (${earlier.event} ${earlier.id}) has not been delivered yet; events of an article go out in order`, {
    hint: `Redeliver ${earlier.id} first (svc webhook redeliver ${earlier.id}), or let its retry run (svc webhook show).`,
  });

const lostLease = (event: EventRow, when: 'before sending' | 'after sending') =>
  new AppError(
    'lease_lost',
    503,
    `This process lost its hold on ${event.event} ${event.id} ${when} (it was too slow, or its heartbeat could not be written); ${when === 'before sending' ? 'nothing was sent' : 'the attempt was not recorded'}`,
    { hint: 'Nothing changed in svc. Try again; svc webhook show says who holds the event.' },
  );

import type { Ctx } from '../context.js';
import type { Trx } from '../db/connect.js';
import type { Article } from '../articles/types.js';
import type { Connector } from '../connectors/store.js';
import * as publications from '../connectors/publications.js';
import type { Publication } from '../connectors/publications.js';
import { withTransaction } from '../db/tx.js';
import { AppError } from '../errors.js';
import { newId } from '../lib/ids.js';
import type { Workspace } from '../workspaces/types.js';
import { ANSWERED_AT_ONCE, type AttemptOutcome, attemptEvent } from './attempt.js';
import { leaseMs, leaseTime, leaseUntil, maySend, newLease, startHolder } from './lease.js';
import { type LeaseRef, articleQueue, failIfOrphaned, holdArticle, isLeased, releaseLeases, settleLeased, supersedeHeld, supersedeQueued as supersedeQueuedRows } from './lease-store.js';
import { snapshotOf } from './payload.js';
import { type EventRow, findEvent, insertEvent, pendingUnpublish } from './store.js';

// The outbox: every webhook event is a row written in the transaction of the change it reports,
// then delivered through one path (attemptEvent under a lease), either by a daemon's worker
// (worker.ts, with retries) or, when someone waits for the answer, by that process itself
// (deliverNow: unpublish, test, redelivery), in its article's order like any other event.

export type ArticleEventName = 'article.published' | 'article.updated' | 'article.unpublished' | 'article.deleted';

export interface ArticleEventArgs {
  event: ArticleEventName;
  workspace: Workspace;
  connector: Connector;
  article: Article;
  publication: Publication;
}

/**
 * Write the event to the outbox inside the caller's transaction (publish, unpublish, delete),
 * with a snapshot of the article and publication, so every attempt can build its payload even
 * after the article is gone. With `lease`, the caller delivers it itself (deliverNow); otherwise
 * a worker does, and the caller emits `webhooks.enqueued` after commit. Returns the event id.
 */
export async function enqueueArticleEvent(trx: Trx, ctx: Ctx, args: ArticleEventArgs, lease?: LeaseRef): Promise<string> {
  const id = newId('evt');
  await insertEvent(trx, {
    id,
    workspaceId: args.workspace.id,
    connectorId: args.connector.id,
    articleId: args.article.id,
    event: args.event,
    snapshot: snapshotOf(args.workspace, args.article, args.publication),
    now: ctx.clock.now().toISOString(),
    lease,
  });
  return id;
}

const ABANDONED = 'abandoned: the process waiting for the receiver stopped before it answered';

/**
 * Refuse a new decision about an article while an unpublish of it waits for its receiver (409):
 * the unpublish's take-down would undo a publish, and a second unpublish has nothing to add.
 * Called in the transaction that holds the article's row lock. An unpublish whose process is
 * gone (its lease is void) is marked failed instead, and the decision goes ahead.
 */
export async function refuseWhileUnpublishing(trx: Trx, ctx: Ctx, article: Article): Promise<void> {
  const unpublish = await pendingUnpublish(trx, article.id);
  if (!unpublish) return;
  if (await isLeased(trx, unpublish.id, leaseTime(ctx))) {
    throw new AppError('unpublish_in_progress', 409, `Article "${article.slug}" is being unpublished right now (waiting for the webhook receiver to confirm); try again once that has finished`, {
      hint: `svc webhook show lists the event (${unpublish.id}) and who holds it; it is decided within ${Math.ceil((2 * leaseMs(ctx)) / 1000)} s at most.`,
    });
  }
  await abandonRequested(trx, ctx, unpublish);
}

/**
 * An event someone waited for (unpublish, test) whose process is gone: it is failed, never
 * sent by anyone else, since nobody would act on the answer (an unpublish's take-down commits
 * only with its 2xx). The error is kept on the publication, as for a refusal. With `lease` (a
 * worker that claimed the orphan) it is settled under that lease; without, only if its lease is void.
 */
export async function abandonRequested(trx: Trx, ctx: Ctx, event: EventRow, lease?: LeaseRef, reason = ABANDONED): Promise<boolean> {
  const at = leaseTime(ctx);
  const failed = lease
    ? await settleLeased(trx, event.id, lease, at, { status: 'failed', attempts: event.attempts, lastStatus: event.lastStatus, lastError: reason })
    : await failIfOrphaned(trx, event.id, reason, at);
  if (!failed) return false;
  if (event.event === 'article.unpublished') {
    await publications.recordError(trx, event.articleId, event.connectorId, `The unpublish was ${reason}; the article stays published. Run the unpublish again.`, at.now);
  }
  ctx.log.warn({ eventId: event.id, event: event.event }, `webhook event ${reason}`);
  return true;
}

/**
 * Cancel the article's queued events that nobody is delivering right now, when a change made
 * them pointless (a delete; an unpublish while the webhook is disabled). Those in flight finish
 * first: the next event of the article waits for them.
 */
export async function supersedeQueued(trx: Trx, ctx: Ctx, connector: Connector, article: Article, by: string): Promise<void> {
  await supersedeQueuedRows(trx, { connectorId: connector.id, articleId: article.id }, `superseded by ${by}`, leaseTime(ctx));
}

export interface DeliverNowSpec {
  /**
   * In one transaction, write the event (insert it, or make it pending again) leased to
   * `lease` and say where it goes; or return null when, as things stand, there is nothing to send.
   */
  decide(trx: Trx, lease: LeaseRef): Promise<{ eventId: string; connector: Connector } | null>;
  /**
   * How the article's earlier pending events are treated: 'supersede' (unpublish) holds them
   * back and cancels them once the receiver confirmed, so they cannot put the post back;
   * 'refuse' (redelivery) refuses to jump ahead of them; 'none' (test) ignores the order.
   */
  earlier: 'supersede' | 'refuse' | 'none';
  /** Runs in the transaction that records the attempt, only if it is recorded. */
  onRecorded?(trx: Trx, outcome: AttemptOutcome): Promise<void>;
}

/**
 * Deliver one event from this process and wait for the receiver's answer (decisions.md: the
 * unpublish is the event whose result is waited for). The process holds its own lease with a
 * heartbeat. In order, the event waits until no other event of its article is in flight
 * elsewhere (bounded by that one's lease), holding the rest of the article's queue meanwhile.
 */
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
    if (!maySend(ctx, holder, lease)) throw lostLease(event);
    const target = event;
    sending = true;
    const outcome = await attemptEvent(ctx, event, decided.connector, lease, {
      onRecorded: async (trx, o) => {
        const scope = { connectorId: target.connectorId, articleId: target.articleId, seq: target.seq };
        if (spec.earlier === 'supersede' && o.ok) await supersedeHeld(trx, scope, lease.token, `superseded by ${target.event} ${target.id}`, ctx.clock.now().toISOString());
        await spec.onRecorded?.(trx, o);
      },
    });
    if (!outcome.recorded) throw lostLease(event);
    return { ...outcome, event };
  } catch (err) {
    // An event nobody else may send ends here (while the lease is still ours): failed, with why.
    if (event && ANSWERED_AT_ONCE.has(event.event)) {
      const failed = event;
      const why = `${sending ? 'given up after an error' : 'not sent'}: ${(err as Error).message}`;
      await withTransaction(ctx.db, (trx) => abandonRequested(trx, ctx, failed, lease, why)).catch(() => false);
    }
    throw err;
  } finally {
    // Whatever is still held goes back to the queue (events after this one, or all on a failure).
    if (event) {
      await releaseLeases(ctx.db, lease.token, { connectorId: event.connectorId, articleId: event.articleId }).catch((err) => ctx.log.error({ err }, 'could not release webhook leases'));
      ctx.events.emit('webhooks.enqueued', { workspaceId: event.workspaceId });
    }
    await holder.stop();
  }
}

/**
 * Hold the article's pending events and wait while one is in flight elsewhere (a worker's
 * attempt settles or its lease lapses); returns the lease renewed for the attempt.
 */
async function waitForTurn(ctx: Ctx, event: EventRow, lease: LeaseRef, earlier: 'supersede' | 'refuse'): Promise<LeaseRef> {
  const scope = { connectorId: event.connectorId, articleId: event.articleId };
  const giveUpAt = Date.now() + 2 * leaseMs(ctx) + ctx.config.webhooks.heartbeatStaleAfter;
  for (;;) {
    const now = ctx.clock.now();
    const renewed = { ...lease, until: leaseUntil(ctx, now) };
    const at = leaseTime(ctx, now);
    await holdArticle(ctx.db, scope, renewed, at);
    const { ours, elsewhere } = await articleQueue(ctx.db, scope, renewed, at);
    if (!ours.some((e) => e.id === event.id)) throw lostLease(event);
    if (elsewhere.length === 0) {
      const before = ours.filter((e) => e.seq < event.seq);
      if (earlier === 'refuse' && before.length > 0) {
        throw outOfOrder(before[0]);
      }
      return renewed;
    }
    if (Date.now() > giveUpAt) throw new AppError('webhook_busy', 503, `Another delivery of this article (${elsewhere[0].id}) has held its lease for too long; nothing was sent`);
    await new Promise((r) => setTimeout(r, Math.min(ctx.config.webhooks.pollInterval, 100)));
  }
}

/** A redelivery may not jump ahead of an earlier event of its article that is still waiting. */
export const outOfOrder = (earlier: EventRow) =>
  new AppError('out_of_order', 409, `An earlier event of this article (${earlier.event} ${earlier.id}) has not been delivered yet; events of an article go out in order`, {
    hint: `Redeliver ${earlier.id} first (svc webhook redeliver ${earlier.id}), or let its retry run (svc webhook show).`,
  });

const lostLease = (event: EventRow) =>
  new AppError('lease_lost', 503, `This process lost its hold on ${event.event} ${event.id} (it was too slow, or its heartbeat stalled); its attempt was not recorded`, {
    hint: 'Nothing changed in svc. Try again; svc webhook show says who holds the event.',
  });

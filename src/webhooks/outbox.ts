import type { Ctx } from '../context.js';
import type { Trx } from '../db/connect.js';
import type { Article } from '../articles/types.js';
import type { Connector } from '../connectors/store.js';
import * as publications from '../connectors/publications.js';
import type { Publication } from '../connectors/publications.js';
import { AppError } from '../errors.js';
import { newId } from '../lib/ids.js';
import type { Workspace } from '../workspaces/types.js';
import { leaseMs, leaseTime } from './lease.js';
import { type LeaseRef, failIfOrphaned, settleLeased, stillLeased, supersedeQueued as supersedeQueuedRows } from './lease-store.js';
import { snapshotOf } from './payload.js';
import { type EventRow, insertEvent, pendingUnpublishes } from './store.js';

// The outbox: every webhook event is a row written in the transaction of the change it reports,
// then delivered through one path (attempt.ts, under a lease), either by a daemon's worker
// (worker.ts, with retries) or, when someone waits for the answer, by that process itself
// (deliver-now.ts: unpublish, test, redelivery), in its article's order like any other event.

export type ArticleEventName = 'article.published' | 'article.updated' | 'article.unpublished' | 'article.deleted';

export interface ArticleEventArgs {
  event: ArticleEventName;
  workspace: Workspace;
  connector: Connector;
  article: Article;
  /** Null for an unpublish sent to a receiver that shows an article svc has no publication of (forceNotify). */
  publication: Publication | null;
  /** The body as the publish rendered it (shared with the content snapshot): no attempt renders it again. */
  rendered?: { html: string; words: number };
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
    snapshot: snapshotOf(args.workspace, args.article, args.publication, args.rendered),
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
export async function refuseWhileUnpublishing(trx: Trx, ctx: Ctx, about: Article | Article[]): Promise<void> {
  const list = Array.isArray(about) ? about : [about];
  const byId = new Map(list.map((a) => [a.id, a]));
  // One query for a whole batch (svc articles publish --all-drafts); an unpublish is rare.
  for (const unpublish of await pendingUnpublishes(trx, [...byId.keys()])) {
    if ((await stillLeased(trx, [unpublish.id], leaseTime(ctx))) > 0) {
      throw new AppError('unpublish_in_progress', 409, `Article "${byId.get(unpublish.articleId)!.slug}" is being unpublished right now (waiting for the webhook receiver to confirm); try again once that has finished`, {
        hint: `svc webhook show lists the event (${unpublish.id}) and who holds it; it is decided within ${Math.ceil((2 * leaseMs(ctx)) / 1000)} s at most.`,
      });
    }
    await abandonRequested(trx, ctx, unpublish);
  }
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

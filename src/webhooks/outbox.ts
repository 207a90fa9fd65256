import type { Ctx } from '../context.js';
import type { Trx } from '../db/connect.js';
import type { Article } from '../articles/types.js';
import type { Connector } from '../connectors/store.js';
import * as publications from '../connectors/publications.js';
import { AppError } from '../errors.js';
import type { Workspace } from '../workspaces/types.js';
import { leaseMs, leaseTime } from './lease.js';
import { type LeaseRef, endUnheld, settle, stillLeased } from './lease-store.js';
import { type WebhookEventName, snapshotOf } from './payload.js';
import { type EventState, insertEvent, pendingUnpublishes } from './store.js';

// Every webhook event is a row written in the transaction of the change it reports, sent by a
// daemon's worker or, when someone waits for the answer, by that process (deliver-now.ts).

export interface ArticleEventArgs {
  event: Exclude<WebhookEventName, 'test'>;
  workspace: Workspace;
  connector: Connector;
  article: Article;
  /** Null for an unpublish sent to a receiver that shows an article svc has no publication of (forceNotify). */
  publication: publications.Publication | null;
  /** The body as the publish rendered it (shared with the content snapshot): no attempt renders it again. */
  rendered?: { html: string; words: number };
}

/** Write the event in the caller's transaction. With `lease`, the caller delivers it (deliverNow); otherwise it emits `webhooks.enqueued` after commit. */
export async function enqueueArticleEvent(trx: Trx, ctx: Ctx, args: ArticleEventArgs, lease?: LeaseRef): Promise<string> {
  return insertEvent(trx, {
    workspaceId: args.workspace.id,
    connectorId: args.connector.id,
    articleId: args.article.id,
    event: args.event,
    snapshot: snapshotOf(args.workspace, args.article, args.publication, args.rendered),
    now: ctx.clock.now().toISOString(),
    lease,
  });
}

/**
 * Under the article's row lock: refuse a decision while an unpublish waits for its receiver (its take-down would undo it); fail one whose
 * process is gone. One query for a whole batch (publish --all-drafts): an unpublish is rare.
 */
export async function refuseWhileUnpublishing(trx: Trx, ctx: Ctx, about: Article | Article[]): Promise<void> {
  const byId = new Map([about].flat().map((a) => [a.id, a]));
  for (const unpublish of await pendingUnpublishes(trx, [...byId.keys()])) {
    if ((await stillLeased(trx, [unpublish.id], leaseTime(ctx))) > 0) {
      throw new AppError('unpublish_in_progress', 409, `Article "${byId.get(unpublish.articleId)!.slug}" is being unpublished right now (waiting for the webhook receiver to confirm); try again once that has finished`, {
        hint: `svc webhook show lists the event (${unpublish.id}) and who holds it; it is decided within ${Math.ceil((2 * leaseMs(ctx)) / 1000)} s at most.`,
      });
    }
    await abandonRequested(trx, ctx, unpublish);
  }
}

/** Fail an event someone waited for (unpublish, test) whose process is gone: nobody would act on the answer. Under `lease`, else only if its lease is void. */
export async function abandonRequested(trx: Trx, ctx: Ctx, event: EventState, lease?: LeaseRef, reason = 'abandoned: the process waiting for the receiver stopped before it answered'): Promise<boolean> {
  const at = leaseTime(ctx);
  const failed = lease
    ? (await settle(trx, [{ id: event.id, lease, at: at.now, status: 'failed', attempts: event.attempts, lastStatus: event.lastStatus, lastError: reason }])).length === 1
    : (await endUnheld(trx, { id: event.id }, 'failed', reason, at)) === 1;
  if (!failed) return false;
  if (event.event === 'article.unpublished') await publications.recordError(trx, event.articleId, event.connectorId, `The unpublish was ${reason}; the article stays published. Run the unpublish again.`, at.now);
  ctx.log.warn({ eventId: event.id, event: event.event }, `webhook event ${reason}`);
  return true;
}

/** Cancel the article's queued events nobody is delivering (a delete, or an unpublish while the webhook is disabled made them pointless). */
export async function supersedeQueued(trx: Trx, ctx: Ctx, connector: Connector, article: Article, by: string): Promise<void> {
  await endUnheld(trx, { connector_id: connector.id, article_id: article.id }, 'cancelled', `superseded by ${by}`, leaseTime(ctx));
}

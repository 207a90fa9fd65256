import type { Ctx } from '../context.js';
import type { Trx } from '../db/connect.js';
import type { Article } from '../articles/types.js';
import type { Connector } from '../connectors/store.js';
import type { Publication } from '../connectors/publications.js';
import { newId } from '../lib/ids.js';
import type { Workspace } from '../workspaces/types.js';
import { attemptEvent, leaseMs } from './attempt.js';
import { snapshotOf } from './payload.js';
import { cancelEarlier, findEvent, insertEvent } from './store.js';

export type ArticleEventName = 'article.published' | 'article.updated' | 'article.unpublished' | 'article.deleted';

export interface ArticleEventArgs {
  event: ArticleEventName;
  workspace: Workspace;
  connector: Connector;
  article: Article;
  publication: Publication;
}

/**
 * Write the event to the durable outbox inside the caller's transaction (publish, delete), with
 * a snapshot of the article and publication: the daemon's worker delivers it, with retries.
 * The caller emits `webhooks.enqueued` after commit.
 */
export async function enqueueArticleEvent(trx: Trx, ctx: Ctx, args: ArticleEventArgs): Promise<void> {
  await insertEvent(trx, {
    id: newId('evt'),
    workspaceId: args.workspace.id,
    connectorId: args.connector.id,
    articleId: args.article.id,
    event: args.event,
    snapshot: snapshotOf(args.workspace, args.article, args.publication),
    now: ctx.clock.now().toISOString(),
  });
}

export type UnpublishOutcome = { ok: true } | { ok: false; error: string; status?: number };

/**
 * Deliver `article.unpublished` now, in this process, and wait for the answer (decisions.md:
 * only a 2xx lets the unpublish happen; never retried). The attempt is logged like any other.
 * On success, queued publishes/updates of the article that had not gone out yet are cancelled:
 * they would put the post back.
 */
export async function deliverUnpublishNow(ctx: Ctx, args: Omit<ArticleEventArgs, 'event'>): Promise<UnpublishOutcome> {
  const id = newId('evt');
  const now = ctx.clock.now();
  await insertEvent(ctx.db, {
    id,
    workspaceId: args.workspace.id,
    connectorId: args.connector.id,
    articleId: args.article.id,
    event: 'article.unpublished',
    snapshot: snapshotOf(args.workspace, args.article, args.publication),
    now: now.toISOString(),
    // Leased from the start so no daemon picks it up meanwhile.
    lock: { by: `cli:${process.pid}`, until: new Date(now.getTime() + leaseMs(ctx)).toISOString() },
  });
  const event = (await findEvent(ctx.db, id))!;
  const outcome = await attemptEvent(ctx, event, args.connector);
  if (outcome.ok) {
    await cancelEarlier(ctx.db, args.connector.id, args.article.id, event.seq, ctx.clock.now().toISOString());
    return { ok: true };
  }
  const excerpt = outcome.response.replace(/\s+/g, ' ').trim().slice(0, 200);
  return { ok: false, error: `${outcome.error}${excerpt && outcome.status !== null ? `: ${excerpt}` : ''}`, status: outcome.status ?? undefined };
}

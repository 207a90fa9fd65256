import type { Ctx } from '../context.js';
import type { Trx } from '../db/connect.js';
import { withTransaction } from '../db/tx.js';
import { AppError, badRequest, notFound } from '../errors.js';
import { nowIso } from '../lib/clock.js';
import * as articles from '../articles/store.js';
import type { Article } from '../articles/types.js';
import { bumpContentVersion } from '../workspaces/store.js';
import type { Workspace } from '../workspaces/types.js';
import { type Connector, type ConnectorKind, listConnectors } from '../connectors/store.js';
import * as publications from '../connectors/publications.js';
import { removeSnapshot, writeSnapshot } from '../content/snapshot-store.js';
import type { AttemptOutcome } from '../webhooks/attempt.js';
import { deliverNow } from '../webhooks/deliver-now.js';
import { enqueueArticleEvent, refuseWhileUnpublishing, supersedeQueued } from '../webhooks/outbox.js';

export interface PublishResult {
  article: Article;
  targets: Array<{ kind: ConnectorKind; event: 'article.published' | 'article.updated' }>;
}

/**
 * Publish to every enabled connector of the workspace (or only `to`). One transaction stores
 * the headless snapshot, records the publications, enqueues the webhook event and bumps the
 * workspace content version, so the content API serves the new state once this returns.
 */
export async function publishArticle(ctx: Ctx, ws: Workspace, ref: string, opts: { to?: ConnectorKind; onlyIfScheduled?: boolean } = {}): Promise<PublishResult | null> {
  const article = await requireArticle(ctx, ws, ref);
  const connectors = (await listConnectors(ctx.db, ws.id)).filter((c) => c.enabled && (!opts.to || c.kind === opts.to));
  if (connectors.length === 0) {
    throw badRequest(
      'no_destination',
      opts.to ? `Workspace ${ws.name} has no enabled ${opts.to} connector` : `Workspace ${ws.name} has nowhere to publish to`,
      { hint: 'Connect a destination first: svc blog-key generate (content API) or svc webhook set --url URL (webhook)' },
    );
  }
  const result = await withTransaction(ctx.db, async (trx) => {
    const now = nowIso(ctx.clock);
    // Claim the article: a scheduled publish runs once even with several daemons.
    const claimed = await trx('articles')
      .where({ id: article.id, ...(opts.onlyIfScheduled ? { status: 'scheduled' } : {}) })
      .update({ status: 'published', scheduled_at: null });
    if (Number(claimed) === 0) return null;
    await refuseWhileUnpublishing(trx, ctx, article);
    const current = (await articles.findArticleById(trx, article.id))!;
    const targets: PublishResult['targets'] = [];
    for (const connector of connectors) {
      const existing = await publications.find(trx, article.id, connector.id);
      const event = existing ? 'article.updated' : 'article.published';
      const publication = await publications.upsert(trx, { article: current, connector, now, existing });
      if (connector.kind === 'headless') {
        await writeSnapshot(trx, ctx, ws, current, publication);
        await bumpContentVersion(trx, ws.id);
      } else {
        await enqueueArticleEvent(trx, ctx, { event, workspace: ws, connector, article: current, publication });
      }
      targets.push({ kind: connector.kind, event });
    }
    return { article: current, targets };
  });
  if (result) announce(ctx, ws, result.targets.map((t) => t.kind));
  return result;
}

export interface UnpublishResult {
  article: Article;
  removedFrom: ConnectorKind[];
  /** The article was on a webhook that is disabled now: its receiver was not told (and may still show it). */
  receiverNotTold: boolean;
}

/**
 * Take the article down everywhere. When it is on the webhook, `article.unpublished` is
 * delivered first, in the article's order (after any delivery of it in flight; queued ones are
 * superseded), and waited for: the take-down commits with the receiver's 2xx, in the same
 * transaction. Otherwise nothing changes, the receiver's answer is stored on the publication
 * and a receiver_refused error is thrown. While it waits, publish and delete of the article
 * are refused (409 unpublish_in_progress), so they are neither lost nor undone by it.
 */
export async function unpublishArticle(ctx: Ctx, ws: Workspace, ref: string): Promise<UnpublishResult> {
  const article = await requireArticle(ctx, ws, ref);
  const takeDownNow = async (trx: Trx) => {
    await takeDown(trx, ws, article.id);
    await trx('articles').where({ id: article.id }).update({ status: 'draft', updated_at: nowIso(ctx.clock) });
  };
  let seen: Omit<UnpublishResult, 'article'> & { webhookId?: string } = { removedFrom: [], receiverNotTold: false };
  const outcome = await deliverNow(ctx, {
    earlier: 'supersede',
    // Decided on what is live now, under the article's lock: ask the receiver first, or take it down at once.
    async decide(trx, lease) {
      const current = await decideAbout(trx, ctx, article);
      const connectors = await listConnectors(trx, ws.id);
      const pubs = await publications.listForArticle(trx, article.id);
      if (pubs.length === 0 && current.status !== 'published') throw badRequest('not_published', `Article "${article.slug}" is not published`);
      const webhook = connectors.find((c) => c.kind === 'webhook');
      const webhookPub = webhook && pubs.find((p) => p.connectorId === webhook.id);
      seen = {
        removedFrom: pubs.map((p) => connectors.find((c) => c.id === p.connectorId)?.kind).filter((k): k is ConnectorKind => !!k),
        receiverNotTold: Boolean(webhook && webhookPub && !webhook.enabled),
        webhookId: webhook?.id,
      };
      if (webhook && webhookPub && webhook.enabled) {
        const eventId = await enqueueArticleEvent(trx, ctx, { event: 'article.unpublished', workspace: ws, connector: webhook, article: current, publication: webhookPub }, lease);
        return { eventId, connector: webhook };
      }
      // A disabled webhook is not told; its queued events must not put the post back once it is enabled.
      if (webhook && webhookPub) await supersedeQueued(trx, ctx, webhook, article, 'the unpublish (the webhook was disabled)');
      await takeDownNow(trx);
      return null;
    },
    onRecorded: (trx, o) => (o.ok ? takeDownNow(trx) : publications.recordError(trx, article.id, seen.webhookId!, refusal(o), nowIso(ctx.clock))),
  });
  if (outcome && !outcome.ok) {
    throw new AppError('receiver_refused', 424, `The webhook receiver did not confirm the unpublish: ${refusal(outcome)}. The article stays published.`, {
      details: { status: outcome.status ?? null },
      hint: 'Fix the receiver, then run the unpublish again (svc webhook deliveries --failed shows the attempt).',
    });
  }
  announce(ctx, ws, seen.removedFrom);
  return { article: (await articles.findArticleById(ctx.db, article.id))!, removedFrom: seen.removedFrom, receiverNotTold: seen.receiverNotTold };
}

/** What the receiver answered to a refused unpublish: the error and the start of its body. */
function refusal(o: AttemptOutcome): string {
  const excerpt = o.response.replace(/\s+/g, ' ').trim().slice(0, 200);
  return `${o.error}${excerpt && o.status !== null ? `: ${excerpt}` : ''}`;
}

/**
 * Delete the article and its snapshot at once; the webhook hears `article.deleted` (with
 * retries), after any delivery of the article in flight. Its queued events are superseded.
 */
export async function deleteArticle(ctx: Ctx, ws: Workspace, ref: string): Promise<{ article: Article; notified: boolean }> {
  const article = await requireArticle(ctx, ws, ref);
  const connectors = await listConnectors(ctx.db, ws.id);
  const notified = await withTransaction(ctx.db, async (trx) => {
    const current = await decideAbout(trx, ctx, article);
    const pubs = await publications.listForArticle(trx, article.id);
    const webhook = connectors.find((c) => c.kind === 'webhook');
    const webhookPub = webhook && pubs.find((p) => p.connectorId === webhook.id);
    if (webhook && webhookPub) {
      await supersedeQueued(trx, ctx, webhook, article, 'article.deleted');
      await enqueueArticleEvent(trx, ctx, { event: 'article.deleted', workspace: ws, connector: webhook, article: current, publication: webhookPub });
    }
    await takeDown(trx, ws, article.id);
    await articles.deleteArticleRow(trx, article.id);
    return Boolean(webhookPub);
  });
  announce(ctx, ws, notified ? ['headless', 'webhook'] : ['headless']);
  return { article, notified };
}

/** Mark the article to be published by the daemon at `at` (within a few seconds of it). */
export async function scheduleArticle(ctx: Ctx, ws: Workspace, ref: string, at: string): Promise<Article> {
  const article = await requireArticle(ctx, ws, ref);
  const when = Date.parse(at);
  if (Number.isNaN(when)) throw badRequest('invalid_input', `"${at}" is not an ISO 8601 date-time, e.g. 2026-12-01T09:00:00Z`);
  await ctx.db('articles').where({ id: article.id }).update({ status: 'scheduled', scheduled_at: new Date(when).toISOString(), updated_at: nowIso(ctx.clock) });
  return (await articles.findArticleById(ctx.db, article.id))!;
}

/** Publish every scheduled article whose time has come; used by the daemon's scheduler. */
export async function publishDueArticles(ctx: Ctx, loadWorkspace: (id: string) => Promise<Workspace>): Promise<number> {
  const due = await articles.dueScheduledRows(ctx.db, nowIso(ctx.clock));
  let published = 0;
  for (const article of due) {
    const ws = await loadWorkspace(article.workspaceId);
    try {
      if (await publishArticle(ctx, ws, article.id, { onlyIfScheduled: true })) published++;
    } catch (err) {
      ctx.log.error({ err, articleId: article.id }, 'scheduled publish failed');
      // Leave it as a draft with the error visible rather than retrying every second forever.
      await ctx.db('articles').where({ id: article.id, status: 'scheduled' }).update({ status: 'draft' });
    }
  }
  return published;
}

async function takeDown(trx: Trx, ws: Workspace, articleId: string): Promise<void> {
  await removeSnapshot(trx, articleId);
  await publications.removeAllForArticle(trx, articleId);
  await bumpContentVersion(trx, ws.id);
}

/**
 * Start a decision about the article inside its transaction: take the article's row lock (so
 * its events get their seq in the order decided) and refuse while an unpublish of it waits.
 * Returns the article as it is now.
 */
async function decideAbout(trx: Trx, ctx: Ctx, article: Article): Promise<Article> {
  if (!(await articles.lockArticle(trx, article.id))) throw notFound('article', article.slug);
  await refuseWhileUnpublishing(trx, ctx, article);
  return (await articles.findArticleById(trx, article.id))!;
}

async function requireArticle(ctx: Ctx, ws: Workspace, ref: string): Promise<Article> {
  const article = await articles.findArticle(ctx.db, ws.id, ref);
  if (!article) throw notFound('article', ref, { hint: `List articles with: svc articles list --workspace ${ws.name}` });
  return article;
}

function announce(ctx: Ctx, ws: Workspace, kinds: ConnectorKind[]): void {
  ctx.events.emit('content.changed', { workspaceId: ws.id });
  if (kinds.includes('webhook')) ctx.events.emit('webhooks.enqueued', { workspaceId: ws.id });
}

export type { Connector };

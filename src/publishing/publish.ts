import type { Ctx } from '../context.js';
import type { Trx } from '../db/connect.js';
import { withTransaction } from '../db/tx.js';
import { redactSecrets } from '../lib/redact.js';
import { AppError, badRequest, notFound, toAppError } from '../errors.js';
import { logJobFailure } from '../lib/failure-log.js';
import { nowIso } from '../lib/clock.js';
import { parseScheduleTime } from '../lib/datetime.js';
import * as articles from '../articles/store.js';
import type { Article } from '../articles/types.js';
import { bumpContentVersion } from '../workspaces/store.js';
import type { Workspace } from '../workspaces/types.js';
import { type Connector, type ConnectorKind, listConnectors } from '../connectors/store.js';
import * as publications from '../connectors/publications.js';
import { removeSnapshot } from '../content/snapshot-store.js';
import type { AttemptOutcome } from '../webhooks/attempt.js';
import { deliverNow } from '../webhooks/deliver-now.js';
import { enqueueArticleEvent, refuseWhileUnpublishing, supersedeQueued } from '../webhooks/outbox.js';
import { type PublishResult, announce, destinations, publishRows, renderBodies } from './publish-rows.js';

export type { PublishResult } from './publish-rows.js';

/**
 * Publish to every enabled connector of the workspace (or only `to`). One transaction stores
 * the headless snapshot, records the publications, enqueues the webhook event and bumps the
 * workspace content version, so the content API serves the new state once this returns.
 * Null when `onlyIfScheduled` and another process published it first.
 */
export async function publishArticle(ctx: Ctx, ws: Workspace, ref: string, opts: { to?: ConnectorKind; onlyIfScheduled?: boolean } = {}): Promise<PublishResult | null> {
  const article = await requireArticle(ctx, ws, ref);
  const connectors = await destinations(ctx, ws, opts.to);
  const rendered = await renderBodies(ctx, [article]);
  // Claimed only while scheduled: a scheduled publish runs once even with several daemons.
  const [result] = await withTransaction(ctx.db, (trx) => publishRows(trx, ctx, ws, [article], connectors, rendered, opts.onlyIfScheduled ? 'scheduled' : undefined));
  if (!result) return null;
  announce(ctx, ws, result.targets.map((t) => t.kind));
  return result;
}

export interface UnpublishResult {
  article: Article;
  removedFrom: ConnectorKind[];
  /** The article was on a webhook that is disabled now: its receiver was not told (and may still show it). */
  receiverNotTold: boolean;
  /** forceNotify on an article svc did not count as published: only the receiver was sent article.unpublished. */
  notifiedOnly: boolean;
}

export interface UnpublishOptions {
  /**
   * Send the webhook receiver an article.unpublished even when svc does not count the article
   * as published (a restore rolled it back to a draft, the receiver still shows it).
   */
  forceNotify?: boolean;
}

/**
 * Take the article down everywhere. When it is on the webhook, `article.unpublished` is
 * delivered first, in the article's order (after any delivery of it in flight; queued ones are
 * superseded), and waited for: the take-down commits with the receiver's 2xx, in the same
 * transaction. Otherwise nothing changes, the receiver's answer is stored on the publication
 * and a receiver_refused error is thrown. While it waits, publish and delete of the article
 * are refused (409 unpublish_in_progress), so they are neither lost nor undone by it.
 */
export async function unpublishArticle(ctx: Ctx, ws: Workspace, ref: string, opts: UnpublishOptions = {}): Promise<UnpublishResult> {
  const article = await requireArticle(ctx, ws, ref);
  const takeDownNow = async (trx: Trx) => {
    await takeDown(trx, ctx, ws, article.id);
    await articles.markTakenDown(trx, article.id, nowIso(ctx.clock));
  };
  let seen: Omit<UnpublishResult, 'article'> & { webhookId?: string } = { removedFrom: [], receiverNotTold: false, notifiedOnly: false };
  const outcome = await deliverNow(ctx, {
    earlier: 'supersede',
    // Decided on what is live now, under the article's lock: ask the receiver first, or take it down at once.
    async decide(trx, lease) {
      const current = await decideAbout(trx, ctx, article);
      const connectors = await listConnectors(trx, ws.id);
      const pubs = await publications.listForArticle(trx, article.id);
      const webhook = connectors.find((c) => c.kind === 'webhook');
      if (pubs.length === 0 && current.status !== 'published') {
        if (!opts.forceNotify) throw notPublished(article, Boolean(webhook));
        // Only the receiver hears of it (in the article's order, waited for); svc's state stays as it is.
        if (!webhook) throw badRequest('no_webhook', `Article "${article.slug}" is not published and there is no webhook to notify`);
        if (!webhook.enabled) throw badRequest('webhook_disabled', `The webhook is disabled: ${webhook.disabledReason ?? 'no reason recorded'}`, { hint: 'Run svc webhook enable first.' });
        seen = { removedFrom: [], receiverNotTold: false, notifiedOnly: true, webhookId: webhook.id };
        const eventId = await enqueueArticleEvent(trx, ctx, { event: 'article.unpublished', workspace: ws, connector: webhook, article: current, publication: null }, lease);
        return { eventId, connector: webhook };
      }
      const webhookPub = webhook && pubs.find((p) => p.connectorId === webhook.id);
      seen = {
        removedFrom: pubs.map((p) => connectors.find((c) => c.id === p.connectorId)?.kind).filter((k): k is ConnectorKind => !!k),
        receiverNotTold: Boolean(webhook && webhookPub && !webhook.enabled),
        notifiedOnly: false,
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
    onRecorded: async (trx, o) => {
      if (seen.notifiedOnly) return;
      return o.ok ? takeDownNow(trx) : publications.recordError(trx, article.id, seen.webhookId!, refusal(o), nowIso(ctx.clock));
    },
  });
  if (outcome && !outcome.ok && seen.notifiedOnly) {
    throw new AppError('receiver_refused', 424, `The webhook receiver did not confirm the unpublish: ${refusal(outcome)}.`, {
      details: { status: outcome.status ?? null },
      hint: `Fix the receiver, then run it again: svc articles unpublish ${article.slug} --force-notify`,
    });
  }
  if (outcome && !outcome.ok) {
    throw new AppError('receiver_refused', 424, `The webhook receiver did not confirm the unpublish: ${refusal(outcome)}. The article stays published.`, {
      details: { status: outcome.status ?? null },
      hint: 'Fix the receiver, then run the unpublish again (svc webhook deliveries --failed shows the attempt).',
    });
  }
  announce(ctx, ws, seen.removedFrom);
  return { article: (await articles.findArticleById(ctx.db, article.id))!, removedFrom: seen.removedFrom, receiverNotTold: seen.receiverNotTold, notifiedOnly: seen.notifiedOnly };
}

const notPublished = (article: Article, hasWebhook: boolean) =>
  badRequest('not_published', `Article "${article.slug}" is not published`, {
    hint: hasWebhook
      ? `If the webhook receiver still shows it (e.g. a restore rolled it back), send it an article.unpublished all the same: svc articles unpublish ${article.slug} --force-notify`
      : undefined,
  });

/** What the receiver answered to a refused unpublish: the error and the start of its body. */
function refusal(o: AttemptOutcome): string {
  const excerpt = o.response.replace(/\s+/g, ' ').trim().slice(0, 200);
  // Stored with the publication and shown: never an issued secret the receiver echoed (lib/redact.ts).
  return redactSecrets(`${o.error}${excerpt && o.status !== null ? `: ${excerpt}` : ''}`);
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
    await takeDown(trx, ctx, ws, article.id);
    await articles.deleteArticleRow(trx, article.id);
    return Boolean(webhookPub);
  });
  announce(ctx, ws, notified ? ['headless', 'webhook'] : ['headless']);
  return { article, notified };
}

/**
 * Mark the article to be published by the daemon at `at` (within a few seconds of it). The time
 * must carry Z or an offset and lie within the schedule range (lib/datetime.ts: never the machine's zone).
 */
export async function scheduleArticle(ctx: Ctx, ws: Workspace, ref: string, at: string, opts: { allowPast?: boolean } = {}): Promise<Article> {
  const article = await requireArticle(ctx, ws, ref);
  const now = ctx.clock.now();
  const when = parseScheduleTime(at, now);
  // A past time is most often a mistake (a wrong year or zone), from an agent or a terminal alike:
  // it says so, and publishes only when asked.
  if (!opts.allowPast && when < now.toISOString()) {
    throw badRequest(
      'time_in_past',
      `${at} is in the past (it is ${now.toISOString()} now), so nothing was scheduled. Give a future time, publish now, or ask for it anyway (allowPast: true, svc articles schedule --allow-past) to have it published within seconds.`,
    );
  }
  // A decision like any other: refused while an unpublish of the article waits for its receiver.
  return withTransaction(ctx.db, async (trx) => {
    await decideAbout(trx, ctx, article);
    await articles.scheduleRows(trx, [{ id: article.id, at: when }], nowIso(ctx.clock));
    return (await articles.findArticleById(trx, article.id))!;
  });
}

/**
 * Cancel the article's scheduled publish: a draft waiting for its time is a draft again, a live
 * article stays published as it is. Refused when nothing is scheduled.
 */
export async function unscheduleArticle(ctx: Ctx, ws: Workspace, ref: string): Promise<Article> {
  const article = await requireArticle(ctx, ws, ref);
  return withTransaction(ctx.db, async (trx) => {
    const current = await decideAbout(trx, ctx, article);
    if (!current.scheduledAt) throw badRequest('not_scheduled', `Article "${article.slug}" has no scheduled publish`);
    await articles.unscheduleRow(trx, article.id, nowIso(ctx.clock));
    return (await articles.findArticleById(trx, article.id))!;
  });
}

/** After the nth failure in a row a scheduled publish is tried again after 1, 2, 4 ... minutes, at most an hour. */
export const publishRetryDelay = (failures: number): number => Math.min(60_000 * 2 ** Math.max(0, failures - 1), 3_600_000);

/**
 * Publish every scheduled article whose time has come; used by the daemon's scheduler. A publish
 * that fails stays scheduled with the error recorded on the article (svc articles show, svc
 * doctor, the MCP tools show it) and is tried again later (as a draft, with the error only in the
 * log, nobody would notice it was never published).
 */
export async function publishDueArticles(ctx: Ctx, loadWorkspace: (id: string) => Promise<Workspace>): Promise<number> {
  const due = await articles.dueScheduledRows(ctx.db, nowIso(ctx.clock));
  let published = 0;
  for (const article of due) {
    try {
      const ws = await loadWorkspace(article.workspaceId);
      if (await publishArticle(ctx, ws, article.id, { onlyIfScheduled: true })) published++;
    } catch (err) {
      logJobFailure(ctx, err, 'scheduled publish failed', { articleId: article.id });
      const now = ctx.clock.now();
      const failures = (article.publishError?.failures ?? 0) + 1;
      await articles.recordPublishFailure(ctx.db, article.id, {
        message: toAppError(err).message,
        at: now.toISOString(),
        retryAt: new Date(now.getTime() + publishRetryDelay(failures)).toISOString(),
      });
    }
  }
  return published;
}

async function takeDown(trx: Trx, ctx: Ctx, ws: Workspace, articleId: string): Promise<void> {
  await removeSnapshot(trx, articleId, nowIso(ctx.clock));
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

export type { Connector };

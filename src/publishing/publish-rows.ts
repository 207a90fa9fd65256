import type { Ctx } from '../context.js';
import type { Trx } from '../db/connect.js';
import { badRequest } from '../errors.js';
import { nowIso } from '../lib/clock.js';
import * as articles from '../articles/store.js';
import type { ArticleStatus } from '../articles/inputs.js';
import type { Article } from '../articles/types.js';
import { bumpContentVersion } from '../workspaces/store.js';
import type { Workspace } from '../workspaces/types.js';
import { type Connector, type ConnectorKind, listConnectors } from '../connectors/store.js';
import * as publications from '../connectors/publications.js';
import type { Publication } from '../connectors/publications.js';
import { writeSnapshots } from '../content/snapshot-store.js';
import { type RenderedBody, renderBody } from '../content/snapshot.js';
import { enqueueArticleEvent, refuseWhileUnpublishing } from '../webhooks/outbox.js';

export interface PublishResult {
  article: Article;
  targets: Array<{ kind: ConnectorKind; event: 'article.published' | 'article.updated' }>;
}

/** The enabled connectors of the workspace (or only `to`); refuses when there is none. */
export async function destinations(ctx: Ctx, ws: Workspace, to?: ConnectorKind): Promise<Connector[]> {
  const connectors = (await listConnectors(ctx.db, ws.id)).filter((c) => c.enabled && (!to || c.kind === to));
  if (connectors.length === 0) {
    throw badRequest('no_destination', to ? `Workspace ${ws.name} has no enabled ${to} connector` : `Workspace ${ws.name} has nowhere to publish to`, {
      hint: 'Connect a destination first: svc blog-key generate (content API) or svc webhook set --url URL (webhook)',
    });
  }
  return connectors;
}

/**
 * The times of an article's first publish to a destination (decisions.md, "Imported history"):
 * the date it had on the site it was imported from, unless that lies in the future (then now:
 * the person asked for now; imports schedule future dates instead); the update time is its
 * imported lastmod, kept between that and now. Articles written here get now for both.
 */
export function firstPublishTimes(article: Pick<Article, 'importedPublishedAt' | 'importedUpdatedAt'>, now: string): { publishedAt: string; updatedAt: string } {
  const publishedAt = article.importedPublishedAt && article.importedPublishedAt <= now ? article.importedPublishedAt : now;
  const lastmod = article.importedUpdatedAt ?? publishedAt;
  return { publishedAt, updatedAt: lastmod < publishedAt ? publishedAt : lastmod > now ? now : lastmod };
}

/**
 * Publish these articles inside the caller's transaction: claim them (only those still in state
 * `onlyIf`, when given), record their publications, enqueue the webhook events, store the
 * headless snapshots together and bump the content version once, so the content API serves the
 * new state when the transaction commits. Articles another process claimed first are left out.
 * A batch costs a few queries, not a few per article (svc articles import --publish).
 */
export async function publishRows(trx: Trx, ctx: Ctx, ws: Workspace, list: Article[], connectors: Connector[], onlyIf?: ArticleStatus): Promise<PublishResult[]> {
  const now = nowIso(ctx.clock);
  const claimed = new Set(await articles.claimForPublish(trx, list.map((a) => a.id), onlyIf, now));
  const byId = new Map((await articles.findArticlesByIds(trx, [...claimed])).map((a) => [a.id, a]));
  const order = list.filter((a) => claimed.has(a.id) && byId.has(a.id)).map((a) => byId.get(a.id)!);
  // The claim holds the rows' locks: an unpublish waiting for its receiver would undo this publish.
  await refuseWhileUnpublishing(trx, ctx, order);
  const existing = await publications.findMany(trx, order.map((a) => a.id), connectors.map((c) => c.id));
  const firsts: Publication[] = [];
  const republished: Array<{ articleId: string; connectorId: string }> = [];
  const events: Array<Parameters<typeof enqueueArticleEvent>[2]> = [];
  const snapshots: Array<{ article: Article; publication: Publication; rendered: RenderedBody }> = [];
  const results: PublishResult[] = [];
  for (const article of order) {
    const targets: PublishResult['targets'] = [];
    // Rendered once for the content snapshot and the webhook event alike (rendering is the costly part).
    let body: RenderedBody | undefined;
    const rendered = () => (body ??= renderBody(article.bodyMarkdown));
    for (const connector of connectors) {
      const prev = existing.get(`${article.id} ${connector.id}`);
      let publication: Publication;
      if (prev) {
        publication = { ...prev, updatedAt: now, lastError: null, lastErrorAt: null };
        republished.push({ articleId: article.id, connectorId: connector.id });
      } else {
        const first = firstPublishTimes(article, now);
        publication = { articleId: article.id, connectorId: connector.id, workspaceId: ws.id, firstPublishedAt: first.publishedAt, updatedAt: first.updatedAt, publishedUrl: null, lastError: null, lastErrorAt: null };
        firsts.push(publication);
      }
      const event = prev ? 'article.updated' : 'article.published';
      if (connector.kind === 'headless') snapshots.push({ article, publication, rendered: rendered() });
      else events.push({ event, workspace: ws, connector, article, publication, rendered: rendered() });
      targets.push({ kind: connector.kind, event });
    }
    results.push({ article, targets });
  }
  await publications.saveMany(trx, firsts, republished, now);
  for (const e of events) await enqueueArticleEvent(trx, ctx, e);
  if (snapshots.length > 0) {
    await writeSnapshots(trx, ctx, ws, snapshots);
    await bumpContentVersion(trx, ws.id);
  }
  return results;
}

/** After commit: the content API drops its cache, the webhook worker looks at its queue. */
export function announce(ctx: Ctx, ws: Workspace, kinds: ConnectorKind[]): void {
  ctx.events.emit('content.changed', { workspaceId: ws.id });
  if (kinds.includes('webhook')) ctx.events.emit('webhooks.enqueued', { workspaceId: ws.id });
}

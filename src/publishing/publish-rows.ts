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
import { type SnapshotEntry, writeSnapshots } from '../content/snapshot-store.js';
import type { PackedSnapshot } from '../content/snapshot.js';
import type { RenderedSnapshot, SnapshotInput } from './snapshot-render.js';
import type { RenderedBody } from '../lib/markdown.js';
import { enqueueArticleEvent, refuseWhileUnpublishing } from '../webhooks/outbox.js';

/** Loaded by the render workers only (Renderer.callEach). */
const SNAPSHOT_RENDER = new URL('./snapshot-render.js', import.meta.url);

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
 * imported lastmod, kept between that and now. Articles written here get now for both. The
 * same rule sets the article's firstPublishedAt in the claim (articles/store.ts claimForPublish).
 */
export function firstPublishTimes(article: Pick<Article, 'importedPublishedAt' | 'importedUpdatedAt' | 'firstPublishedAt'>, now: string): { publishedAt: string; updatedAt: string } {
  // Published before (and taken down since): it keeps its first date (decisions.md), updated now.
  if (article.firstPublishedAt) return { publishedAt: article.firstPublishedAt, updatedAt: now };
  const publishedAt = article.importedPublishedAt && article.importedPublishedAt <= now ? article.importedPublishedAt : now;
  const lastmod = article.importedUpdatedAt ?? publishedAt;
  return { publishedAt, updatedAt: lastmod < publishedAt ? publishedAt : lastmod > now ? now : lastmod };
}

/**
 * Bodies rendered before the transaction, by article id, with the markdown each was rendered
 * from; with `snapshot`, its content snapshot made ahead (renderAhead) and what it was made from.
 */
export type RenderedBodies = Map<string, { source: string; body: RenderedBody; snapshot?: { made: SnapshotSource; packed: PackedSnapshot } }>;

/** What a snapshot is made of: the article and its publication's times. */
interface SnapshotSource {
  article: Article;
  publishedAt: string;
  updatedAt: string;
}

/** Fields of an article the publish's claim writes (its status and publish bookkeeping): the snapshot takes its times from the publication. */
const CLAIMED = new Set<string>(['status', 'scheduledAt', 'firstPublishedAt', 'publishedRevision', 'publishError']);

/**
 * Whether a snapshot made from `made` is the one `article` published with `publication` would
 * make: every other field the same (a list field item by item), so any edit since tells them apart.
 */
function sameSource(made: SnapshotSource, article: Article, publication: Pick<Publication, 'firstPublishedAt' | 'updatedAt'>): boolean {
  if (made.publishedAt !== publication.firstPublishedAt || made.updatedAt !== publication.updatedAt) return false;
  const a = made.article as unknown as Record<string, unknown>;
  const b = article as unknown as Record<string, unknown>;
  if (Object.keys(a).length !== Object.keys(b).length) return false;
  for (const key in a) {
    if (CLAIMED.has(key) || a[key] === b[key]) continue;
    const x = a[key];
    const y = b[key];
    if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length || x.some((v, i) => v !== y[i])) return false;
  }
  return true;
}

/**
 * Render a batch ahead of its transaction. With a content API to publish to, the render workers
 * also make each article's content snapshot as a first publish would (a republish usually
 * matches too): building, serialising and deflating it then costs the publishing thread
 * nothing. publishRows uses a snapshot only when it was made from what it publishes (sameSource),
 * else it builds one from the body.
 */
export async function renderAhead(ctx: Ctx, ws: Workspace, list: Article[], connectors: Connector[]): Promise<RenderedBodies> {
  if (!connectors.some((c) => c.kind === 'headless')) return renderBodies(ctx, list);
  const now = nowIso(ctx.clock);
  const made = list.map((article) => ({ article, ...firstPublishTimes(article, now) }));
  const out = await ctx.renderer.callEach<SnapshotInput, RenderedSnapshot>(SNAPSHOT_RENDER, 'renderSnapshots', made.map((m) => ({ ws, ...m })), (m) => m.article.slug);
  // Bytes come back from a worker as a Uint8Array; the drivers bind a Buffer (the same memory) as a blob.
  for (const { packed } of out) packed.packed = Buffer.from(packed.packed.buffer, packed.packed.byteOffset, packed.packed.byteLength);
  return new Map(list.map((a, i) => [a.id, { source: a.bodyMarkdown, body: out[i].body, snapshot: { made: made[i], packed: out[i].packed } }]));
}

/**
 * Render the articles' bodies in the render workers, all at once (the pool runs one per core), so
 * a publish transaction never waits for marked. Refuses a body beyond the limits by name (a
 * batch that fails is rendered again one by one by publishMany, which names the article).
 */
export async function renderBodies(ctx: Ctx, list: Article[]): Promise<RenderedBodies> {
  const bodies = list.length === 1 ? [await ctx.renderer.body(list[0].bodyMarkdown, list[0].slug)] : await ctx.renderer.bodies(list.map((a) => ({ markdown: a.bodyMarkdown, label: a.slug })));
  return new Map(list.map((a, i) => [a.id, { source: a.bodyMarkdown, body: bodies[i] }]));
}

/**
 * Publish these articles inside the caller's transaction: claim them (only those still in state
 * `onlyIf`, when given), record their publications, enqueue the webhook events, store the
 * headless snapshots together and bump the content version once, so the content API serves the
 * new state when the transaction commits. Articles another process claimed first are left out.
 * A batch costs a few queries, not a few per article (svc articles import --publish). Each body
 * is `rendered` (renderBodies) unless it changed since, then it is rendered here.
 */
export async function publishRows(trx: Trx, ctx: Ctx, ws: Workspace, list: Article[], connectors: Connector[], rendered: RenderedBodies, onlyIf?: ArticleStatus): Promise<PublishResult[]> {
  const now = nowIso(ctx.clock);
  const byId = new Map((await articles.claimForPublish(trx, list.map((a) => a.id), onlyIf, now)).map((a) => [a.id, a]));
  const order = list.filter((a) => byId.has(a.id)).map((a) => byId.get(a.id)!);
  // The times of a first publish are judged on the article as it was before this claim set its firstPublishedAt.
  const asListed = new Map(list.map((a) => [a.id, a]));
  // The claim holds the rows' locks: an unpublish waiting for its receiver would undo this publish.
  await refuseWhileUnpublishing(trx, ctx, order);
  const existing = await publications.findMany(trx, order.map((a) => a.id), connectors.map((c) => c.id));
  const firsts: Publication[] = [];
  const republished: Array<{ articleId: string; connectorId: string }> = [];
  const events: Array<Parameters<typeof enqueueArticleEvent>[2]> = [];
  const snapshots: SnapshotEntry[] = [];
  const results: PublishResult[] = [];
  for (const article of order) {
    const targets: PublishResult['targets'] = [];
    // Rendered once for the content snapshot and the webhook event alike.
    const prerendered = rendered.get(article.id);
    const ahead = prerendered?.source === article.bodyMarkdown ? prerendered : undefined;
    // Edited since it was rendered ahead (rare): rendered here, inside the transaction.
    const body = ahead?.body ?? (await ctx.renderer.body(article.bodyMarkdown, article.slug, { holdingLock: true }));
    for (const connector of connectors) {
      const prev = existing.get(`${article.id} ${connector.id}`);
      let publication: Publication;
      if (prev) {
        publication = { ...prev, updatedAt: now, lastError: null, lastErrorAt: null };
        republished.push({ articleId: article.id, connectorId: connector.id });
      } else {
        const first = firstPublishTimes(asListed.get(article.id)!, now);
        publication = { articleId: article.id, connectorId: connector.id, workspaceId: ws.id, firstPublishedAt: first.publishedAt, updatedAt: first.updatedAt, publishedUrl: null, lastError: null, lastErrorAt: null };
        firsts.push(publication);
      }
      const event = prev ? 'article.updated' : 'article.published';
      if (connector.kind === 'headless') {
        const made = ahead?.snapshot;
        snapshots.push(made && sameSource(made.made, article, publication) ? { article, publication, packed: made.packed } : { article, publication, rendered: body });
      } else events.push({ event, workspace: ws, connector, article, publication, rendered: body });
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

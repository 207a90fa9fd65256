import type { Ctx } from '../context.js';
import * as articles from '../articles/store.js';
import { getArticle } from '../articles/service.js';
import type { Article } from '../articles/types.js';
import { findConnector } from '../connectors/store.js';
import * as publications from '../connectors/publications.js';
import type { Publication } from '../connectors/publications.js';
import { articleUrl } from '../content/article-url.js';
import { deleteEndedPreviews, deletePreviewsBeyond, findPreviewByHash, insertPreview, revokePreviews } from '../content/preview-store.js';
import { withTransaction } from '../db/tx.js';
import { relatedPosts } from '../content/query-store.js';
import { buildSnapshot } from '../content/snapshot.js';
import { AppError } from '../errors.js';
import { iso, nowIso } from '../lib/clock.js';
import { randomBase62, sha256Hex } from '../lib/crypto.js';
import { newId } from '../lib/ids.js';
import { normaliseSlug } from '../lib/slug.js';
import { getWorkspace } from '../workspaces/service.js';
import type { Workspace } from '../workspaces/types.js';
import { firstPublishTimes } from './publish-rows.js';

/** `svc_preview_` + 32 base62 characters (190 bits); only its SHA-256 is stored. */
const TOKEN_PREFIX = 'svc_preview_';
const TOKEN = /^svc_preview_[0-9A-Za-z]{32}$/;

/** Ended previews are forgotten this long after they end (kept a while so a late visitor gets the same 404). */
const KEEP_ENDED_MS = 7 * 86_400_000;

/**
 * Preview links one article keeps: a newer one ends the oldest beyond it. An editor's key makes
 * one per call (120 a minute, each up to 30 days), and nothing else bounded them.
 */
export const PREVIEWS_PER_ARTICLE = 20;

export interface PreviewGrant {
  id: string;
  token: string;
  articleId: string;
  slug: string;
  expiresAt: string;
  /** Site URL + content path + slug + `?preview=token`; null when the workspace has no site or website URL. */
  url: string | null;
}

/**
 * A preview token for one article (docs/content-api.md, Draft previews): the content API shows
 * its current draft to the workspace's blog key, `GET /articles/{slug}?preview=TOKEN`, until the
 * token expires (`content.previewTtl`, default 24 h, or `ttlMs`) or is revoked.
 */
export async function createPreview(ctx: Ctx, ws: Workspace, ref: string, opts: { ttlMs?: number } = {}): Promise<PreviewGrant> {
  const article = await getArticle(ctx, ws, ref);
  const ttl = opts.ttlMs ?? ctx.config.content.previewTtl;
  if (!(ttl >= 1000)) throw new AppError('invalid_input', 400, 'A preview must last at least one second');
  const now = ctx.clock.now();
  const token = `${TOKEN_PREFIX}${randomBase62(32)}`;
  const expiresAt = iso(new Date(now.getTime() + ttl));
  const id = newId('prv');
  await withTransaction(ctx.db, async (trx) => {
    await deleteEndedPreviews(trx, iso(new Date(now.getTime() - KEEP_ENDED_MS)));
    // Room is made before the insert, so the new link is never the one a tie of times ends.
    await deletePreviewsBeyond(trx, article.id, PREVIEWS_PER_ARTICLE - 1);
    await insertPreview(trx, { id, tokenHash: sha256Hex(token), workspaceId: ws.id, articleId: article.id, createdAt: iso(now), expiresAt, revokedAt: null });
  });
  const page = articleUrl(ws, article.slug);
  return { id, token, articleId: article.id, slug: article.slug, expiresAt, url: page ? `${page}?preview=${token}` : null };
}

/** Revoke every live preview of the article: the site gets 404 for them from the next request. */
export async function revokeArticlePreviews(ctx: Ctx, ws: Workspace, ref: string): Promise<{ article: Article; revoked: number }> {
  const article = await getArticle(ctx, ws, ref);
  return { article, revoked: await revokePreviews(ctx.db, article.id, nowIso(ctx.clock)) };
}

const noPreview = () => new AppError('not_found', 404, 'No preview for this token and article: it expired, was revoked, or is for another article or site');

/**
 * The serialized `{ data: Article }` of the article's current draft, built by the snapshot
 * builder exactly as a publish now would build it (dates, related posts, URL), for the reader of
 * `workspaceId` presenting `token` at `slug` (the article's current slug). Nothing is stored.
 */
export async function previewArticle(ctx: Ctx, workspaceId: string, slug: string, token: string): Promise<string> {
  if (!TOKEN.test(token)) throw noPreview();
  const grant = await findPreviewByHash(ctx.db, sha256Hex(token));
  const now = nowIso(ctx.clock);
  if (!grant || grant.workspaceId !== workspaceId || grant.revokedAt !== null || grant.expiresAt <= now) throw noPreview();
  const article = await articles.findArticleById(ctx.db, grant.articleId);
  if (!article || article.workspaceId !== workspaceId || normaliseSlug(article.slug) !== slug) throw noPreview();
  const ws = await getWorkspace(ctx, workspaceId);
  const rendered = await ctx.renderer.cachedBody(`${article.id} ${article.updatedAt}`, article.bodyMarkdown, article.slug);
  const snap = buildSnapshot(ws, article, await publicationNow(ctx, ws, article, now), rendered);
  const related = await relatedPosts(ctx.db, ws.id, {
    id: article.id,
    slug: article.slug,
    category: snap.index.category.slug,
    tags: snap.index.tags.map((t) => t.slug),
    updatedAt: snap.index.updatedAt,
    json: '',
  });
  return JSON.stringify({ data: { ...snap.article, relatedPosts: related } });
}

/** The headless publication a publish now would record: the existing one moved to now, or a first one. */
async function publicationNow(ctx: Ctx, ws: Workspace, article: Article, now: string): Promise<Publication> {
  const connector = await findConnector(ctx.db, ws.id, 'headless');
  const prev = connector ? await publications.find(ctx.db, article.id, connector.id) : undefined;
  if (prev) return { ...prev, updatedAt: now };
  const first = firstPublishTimes(article, now);
  return { articleId: article.id, connectorId: connector?.id ?? '', workspaceId: ws.id, firstPublishedAt: first.publishedAt, updatedAt: first.updatedAt, publishedUrl: null, lastError: null, lastErrorAt: null };
}

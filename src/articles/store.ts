import type { Knex } from 'knex';
import { type Queryable, writeOn } from '../db/connect.js';
import { insertRows } from '../db/insert-rows.js';
import { slugForms } from '../lib/slug.js';
import { type KeywordRival, keywordFamily } from './keyword-family.js';
import type { ContentType } from './categories.js';
import { ARTICLE_STATUSES, type ArticleStatus } from './inputs.js';
import type { Article, PublishError } from './types.js';

type Row = Record<string, any>;

export const toArticle = (r: Row): Article => ({
  id: r.id,
  workspaceId: r.workspace_id,
  title: r.title,
  slug: r.slug,
  contentType: r.content_type as ContentType,
  bodyMarkdown: r.body_markdown,
  metaTitle: r.meta_title ?? null,
  metaDescription: r.meta_description ?? null,
  focusKeyword: r.focus_keyword ?? null,
  secondaryKeywords: JSON.parse(r.secondary_keywords ?? '[]'),
  featuredImageUrl: r.featured_image_url ?? null,
  imageAlt: r.image_alt ?? null,
  author: r.author ?? null,
  targetLength: Number(r.target_length ?? 0),
  seoScore: r.seo_score === null || r.seo_score === undefined ? null : Number(r.seo_score),
  status: r.status as ArticleStatus,
  scheduledAt: r.scheduled_at ?? null,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  importedPublishedAt: r.imported_published_at ?? null,
  importedUpdatedAt: r.imported_updated_at ?? null,
  firstPublishedAt: r.first_published_at ?? null,
  revision: Number(r.revision ?? 0),
  publishedRevision: r.published_revision === null || r.published_revision === undefined ? null : Number(r.published_revision),
  auditedRevision: r.audited_revision === null || r.audited_revision === undefined ? null : Number(r.audited_revision),
  publishError: r.publish_error
    ? { message: r.publish_error, at: r.publish_error_at, failures: Number(r.publish_failures ?? 1), retryAt: r.publish_retry_at ?? null }
    : null,
});

/** Domain fields -> columns and how each value is stored (made once: toRow runs for every row of an import). */
const COLUMNS: Record<string, [string, (v: any) => unknown]> = {
  id: ['id', (v) => v],
  workspaceId: ['workspace_id', (v) => v],
  title: ['title', (v) => v],
  slug: ['slug', (v) => v],
  contentType: ['content_type', (v) => v],
  bodyMarkdown: ['body_markdown', (v) => v],
  metaTitle: ['meta_title', (v) => v],
  metaDescription: ['meta_description', (v) => v],
  focusKeyword: ['focus_keyword', (v) => v],
  secondaryKeywords: ['secondary_keywords', (v) => JSON.stringify(v)],
  featuredImageUrl: ['featured_image_url', (v) => v],
  imageAlt: ['image_alt', (v) => v],
  author: ['author', (v) => v],
  targetLength: ['target_length', (v) => v],
  seoScore: ['seo_score', (v) => v],
  status: ['status', (v) => v],
  scheduledAt: ['scheduled_at', (v) => v],
  createdAt: ['created_at', (v) => v],
  updatedAt: ['updated_at', (v) => v],
  importedPublishedAt: ['imported_published_at', (v) => v],
  importedUpdatedAt: ['imported_updated_at', (v) => v],
  firstPublishedAt: ['first_published_at', (v) => v],
};

/** Domain fields -> columns; only the keys present in `a` are written. */
export function toRow(a: Partial<Article>): Row {
  const row: Row = {};
  for (const [key, value] of Object.entries(a)) {
    if (value === undefined || !COLUMNS[key]) continue;
    const [column, convert] = COLUMNS[key];
    row[column] = convert(value);
  }
  // Indexed, so conflicts are found by one lookup, not by reading every article of the workspace.
  if (a.focusKeyword !== undefined) row.focus_family = (a.focusKeyword && keywordFamily(a.focusKeyword)) || null;
  return row;
}

export async function insertArticle(db: Queryable, article: Article): Promise<void> {
  await writeOn(db)('articles').insert(toRow(article));
}

/** Many new articles in a few multi-row statements. */
export async function insertArticles(db: Queryable, list: Article[]): Promise<void> {
  await insertRows(db, 'articles', list.map(toRow));
}

/** An edit: the fields in `patch`, and a new revision (the live copy now differs from it). */
export async function updateArticleRow(db: Queryable, id: string, patch: Partial<Article>): Promise<void> {
  await writeOn(db)('articles').where({ id }).update(toRow(patch)).increment('revision', 1);
}

/**
 * Take the article's row lock for the rest of the transaction (a no-op write: a row lock on
 * PostgreSQL, the write lock on SQLite), so decisions about one article (publish, unpublish,
 * delete) are made one after another. False when the article no longer exists.
 */
export async function lockArticle(trx: Queryable, id: string): Promise<boolean> {
  return Number(await trx('articles').where({ id }).update({ updated_at: trx.ref('updated_at') })) === 1;
}

export async function deleteArticleRow(db: Queryable, id: string): Promise<void> {
  await writeOn(db)('articles').where({ id }).delete();
}

/** By id, or by slug in any normalisation and case (slugForms: also finds slugs stored in NFD). */
export async function findArticle(db: Queryable, workspaceId: string, idOrSlug: string): Promise<Article | undefined> {
  const row = await db('articles')
    .where({ workspace_id: workspaceId })
    .andWhere((q) => q.where({ id: idOrSlug }).orWhereIn('slug', slugForms(idOrSlug)))
    .first();
  return row ? toArticle(row) : undefined;
}

/** The id of another article whose slug is `slug` in some normalisation, if any. */
export async function articleWithSlug(db: Queryable, workspaceId: string, slug: string, exceptId?: string): Promise<string | undefined> {
  const q = db('articles').where({ workspace_id: workspaceId }).whereIn('slug', slugForms(slug));
  if (exceptId) q.whereNot({ id: exceptId });
  return (await q.first('id'))?.id;
}

export async function findArticleById(db: Queryable, id: string): Promise<Article | undefined> {
  const row = await db('articles').where({ id }).first();
  return row ? toArticle(row) : undefined;
}

export async function listArticleRows(
  db: Queryable,
  workspaceId: string,
  opts: { status?: ArticleStatus; limit: number; offset: number },
): Promise<{ articles: Article[]; total: number }> {
  const base = db('articles').where({ workspace_id: workspaceId });
  if (opts.status) base.andWhere({ status: opts.status });
  const newest = (q: Knex.QueryBuilder) => q.orderBy('created_at', 'desc').orderBy('id', 'desc');
  // Every status: the page is taken from each status's first rows, each read in order from the
  // (workspace_id, status, created_at) index. As one statement, SQLite (no statistics in a
  // deployed file) read and sorted every article of the workspace for a page of 50.
  const byStatus = (status: ArticleStatus) => newest(db('articles').where({ workspace_id: workspaceId, status })).limit(opts.offset + opts.limit);
  const everyStatus = () => {
    const union = db.select('*').from(byStatus(ARTICLE_STATUSES[0]).as('s0'));
    ARTICLE_STATUSES.slice(1).forEach((status, i) => union.unionAll(db.select('*').from(byStatus(status).as(`s${i + 1}`))));
    return db.select('*').from(union.as('u'));
  };
  const page: Knex.QueryBuilder = opts.status ? newest(base.clone()) : everyStatus();
  const [countRow, rows] = await Promise.all([
    base.clone().count<{ n: number }>({ n: '*' }).first(),
    newest(page).limit(opts.limit).offset(opts.offset),
  ]);
  return { articles: rows.map(toArticle), total: Number(countRow?.n ?? 0) };
}

/**
 * A publish is scheduled (scheduled_at set: a draft waiting as `scheduled`, or a live article
 * staying `published` until its scheduled republish), its time has come and no retry pause runs.
 */
const isDue = (q: Knex.QueryBuilder, nowIsoValue: string) =>
  q
    .whereNotNull('scheduled_at')
    .andWhere('scheduled_at', '<=', nowIsoValue)
    .andWhere((w) => w.whereNull('publish_retry_at').orWhere('publish_retry_at', '<=', nowIsoValue));

export async function dueScheduledRows(db: Queryable, nowIsoValue: string, limit = 50): Promise<Article[]> {
  // Every status named: the (status, scheduled_at) index is then sought for each; without a
  // status SQLite read the whole table on every scheduler tick.
  const rows = await isDue(db('articles').whereIn('status', ARTICLE_STATUSES), nowIsoValue)
    .orderBy('scheduled_at')
    .limit(limit);
  return rows.map(toArticle);
}

/** The keywords every article of the workspace targets (keyword research matches them), without bodies. */
export async function listArticleKeywordRows(db: Queryable, workspaceId: string): Promise<Array<Pick<Article, 'id' | 'slug' | 'title' | 'status' | 'focusKeyword' | 'secondaryKeywords'>>> {
  const rows = await db('articles').where({ workspace_id: workspaceId }).select('id', 'slug', 'title', 'status', 'focus_keyword', 'secondary_keywords');
  return rows.map((r: Row) => ({ id: r.id, slug: r.slug, title: r.title, status: r.status as ArticleStatus, focusKeyword: r.focus_keyword ?? null, secondaryKeywords: JSON.parse(r.secondary_keywords ?? '[]') }));
}

const RIVAL_COLUMNS = ['id', 'slug', 'title', 'status', 'focus_keyword'] as const;
const toRival = (r: Row): KeywordRival => ({ id: r.id, slug: r.slug, title: r.title, status: r.status as ArticleStatus, focusKeyword: r.focus_keyword ?? null });

/** The other articles of the workspace whose focus keyword is `family` in some spelling (keywordFamily). */
export async function articlesInFocusFamily(db: Queryable, workspaceId: string, family: string, exceptId: string): Promise<KeywordRival[]> {
  const rows = await db('articles').where({ workspace_id: workspaceId, focus_family: family }).whereNot({ id: exceptId }).orderBy('created_at').select(...RIVAL_COLUMNS);
  return rows.map(toRival);
}

/** The workspace's articles with these slugs (at most 500, NFC lower case), without bodies. */
export async function articleKeysBySlug(db: Queryable, workspaceId: string, slugs: string[]): Promise<KeywordRival[]> {
  if (slugs.length === 0) return [];
  const rows = await db('articles').where({ workspace_id: workspaceId }).whereIn('slug', slugs.flatMap(slugForms)).select(...RIVAL_COLUMNS);
  return rows.map(toRival);
}

const NO_PUBLISH_ERROR = { publish_error: null, publish_error_at: null, publish_failures: 0, publish_retry_at: null };

/**
 * Mark articles published (the first step of a publish transaction). With `onlyIf`, only those
 * still in that state: a scheduled publish or a bulk publish of drafts then runs once even with
 * several processes. `scheduled` claims only articles still due at `nowIsoValue`: one moved to a
 * later time after the scheduler read it waits for that time. Returns the articles this caller
 * got, as the claim left them (RETURNING: on PostgreSQL a row another transaction claimed
 * meanwhile is re-checked and left out).
 */
export async function claimForPublish(db: Queryable, ids: string[], onlyIf: ArticleStatus | undefined, nowIsoValue: string): Promise<Article[]> {
  const claimed: Article[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const batch = writeOn(db)('articles').whereIn('id', ids.slice(i, i + 500));
    if (onlyIf === 'scheduled') isDue(batch, nowIsoValue);
    else if (onlyIf) batch.andWhere({ status: onlyIf });
    const rows = await batch.update(
      {
        status: 'published',
        scheduled_at: null,
        ...NO_PUBLISH_ERROR,
        published_revision: db.ref('revision'),
        // The first publish ever: an imported post's old date unless it lies ahead (then now).
        first_published_at: db.raw('coalesce(first_published_at, case when imported_published_at <= ? then imported_published_at else ? end)', [nowIsoValue, nowIsoValue]),
      },
      '*',
    );
    claimed.push(...rows.map(toArticle));
  }
  return claimed;
}

/** Articles by id (one query per 500), in no particular order. */
export async function findArticlesByIds(db: Queryable, ids: string[]): Promise<Article[]> {
  const out: Article[] = [];
  for (let i = 0; i < ids.length; i += 500) out.push(...(await db('articles').whereIn('id', ids.slice(i, i + 500))).map(toArticle));
  return out;
}

/**
 * Schedule articles (each at its own time); a new schedule clears an earlier failure. A live
 * article stays `published` (the content API still serves it) with its republish scheduled.
 */
export async function scheduleRows(db: Queryable, items: Array<{ id: string; at: string }>, nowIsoValue: string): Promise<void> {
  const status = db.raw("case when status = 'published' then 'published' else 'scheduled' end");
  for (const { id, at } of items) {
    await writeOn(db)('articles').where({ id }).update({ status, scheduled_at: at, updated_at: nowIsoValue, ...NO_PUBLISH_ERROR });
  }
}

/** Cancel the article's scheduled publish: a waiting draft is a draft again, a live article stays published. */
export async function unscheduleRow(db: Queryable, id: string, nowIsoValue: string): Promise<void> {
  const status = db.raw("case when status = 'published' then 'published' else 'draft' end");
  await writeOn(db)('articles').where({ id }).update({ status, scheduled_at: null, updated_at: nowIsoValue, ...NO_PUBLISH_ERROR });
}

/** The article is no longer live (unpublish): a draft, with no publish scheduled. */
export async function markTakenDown(db: Queryable, id: string, nowIsoValue: string): Promise<void> {
  await writeOn(db)('articles').where({ id }).update({ status: 'draft', scheduled_at: null, updated_at: nowIsoValue, ...NO_PUBLISH_ERROR });
}

/** Record a failed scheduled publish on the article (still scheduled, retried at `retryAt`). */
export async function recordPublishFailure(db: Queryable, id: string, failure: Omit<PublishError, 'failures'>): Promise<void> {
  await writeOn(db)('articles')
    .where({ id })
    .whereNotNull('scheduled_at')
    .update({ publish_error: failure.message.slice(0, 2000), publish_error_at: failure.at, publish_retry_at: failure.retryAt })
    .increment('publish_failures', 1);
}

/** Scheduled articles whose last publish failed, oldest failure first (svc doctor). */
export async function failedScheduledRows(db: Queryable, limit = 100): Promise<Article[]> {
  const rows = await db('articles').whereNotNull('scheduled_at').whereNotNull('publish_error').orderBy('publish_error_at').limit(limit);
  return rows.map(toArticle);
}

/** Which of these slugs are taken in the workspace (one query per 500). */
export async function takenSlugs(db: Queryable, workspaceId: string, slugs: string[]): Promise<Set<string>> {
  const taken = new Set<string>();
  for (let i = 0; i < slugs.length; i += 500) {
    // Slugs stored in NFD by earlier versions clash with their NFC spelling (slugForms).
    const rows = await db('articles').where({ workspace_id: workspaceId }).whereIn('slug', slugs.slice(i, i + 500).flatMap(slugForms)).select('slug');
    for (const r of rows) taken.add((r.slug as string).normalize('NFC'));
  }
  return taken;
}

/**
 * The articles named by ids or slugs (two queries per 500 refs); unknown refs are simply absent.
 * By id, then by slug: with the two lists ORed in one statement, SQLite read every article of the
 * workspace to test them.
 */
export async function findArticles(db: Queryable, workspaceId: string, refs: string[]): Promise<Article[]> {
  const found = new Map<string, Article>();
  for (let i = 0; i < refs.length; i += 500) {
    const chunk = refs.slice(i, i + 500);
    // By id alone, the workspace checked here: SQLite (no statistics) would rather walk the
    // workspace's index than look up many ids.
    const byId = (await db('articles').whereIn('id', chunk)).filter((row) => row.workspace_id === workspaceId);
    const bySlug = await db('articles').where({ workspace_id: workspaceId }).whereIn('slug', chunk.flatMap(slugForms));
    for (const row of [...byId, ...bySlug]) if (!found.has(row.id)) found.set(row.id, toArticle(row));
  }
  return [...found.values()];
}

/** Every draft of the workspace. */
export async function draftRows(db: Queryable, workspaceId: string): Promise<Article[]> {
  return (await db('articles').where({ workspace_id: workspaceId, status: 'draft' }).orderBy('created_at').orderBy('id')).map(toArticle);
}

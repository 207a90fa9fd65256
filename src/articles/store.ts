import type { Queryable } from '../db/connect.js';
import type { ContentType } from './categories.js';
import type { ArticleStatus } from './inputs.js';
import type { Article } from './types.js';

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
});

/** Domain fields -> columns; only the keys present in `a` are written. */
export function toRow(a: Partial<Article>): Row {
  const map: Record<string, [string, (v: any) => unknown]> = {
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
  };
  const row: Row = {};
  for (const [key, value] of Object.entries(a)) {
    if (value === undefined || !map[key]) continue;
    const [column, convert] = map[key];
    row[column] = convert(value);
  }
  return row;
}

export async function insertArticle(db: Queryable, article: Article): Promise<void> {
  await db('articles').insert(toRow(article));
}

export async function updateArticleRow(db: Queryable, id: string, patch: Partial<Article>): Promise<void> {
  await db('articles').where({ id }).update(toRow(patch));
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
  await db('articles').where({ id }).delete();
}

export async function findArticle(db: Queryable, workspaceId: string, idOrSlug: string): Promise<Article | undefined> {
  const row = await db('articles')
    .where({ workspace_id: workspaceId })
    .andWhere((q) => q.where({ id: idOrSlug }).orWhere({ slug: idOrSlug }))
    .first();
  return row ? toArticle(row) : undefined;
}

export async function findArticleById(db: Queryable, id: string): Promise<Article | undefined> {
  const row = await db('articles').where({ id }).first();
  return row ? toArticle(row) : undefined;
}

export async function slugsStartingWith(db: Queryable, workspaceId: string, base: string): Promise<Set<string>> {
  const rows = await db('articles').where({ workspace_id: workspaceId }).andWhere('slug', 'like', `${base}%`).select('slug');
  return new Set(rows.map((r: Row) => r.slug as string));
}

export async function listArticleRows(
  db: Queryable,
  workspaceId: string,
  opts: { status?: ArticleStatus; limit: number; offset: number },
): Promise<{ articles: Article[]; total: number }> {
  const base = db('articles').where({ workspace_id: workspaceId });
  if (opts.status) base.andWhere({ status: opts.status });
  const [countRow, rows] = await Promise.all([
    base.clone().count<{ n: number }>({ n: '*' }).first(),
    base.clone().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(opts.limit).offset(opts.offset),
  ]);
  return { articles: rows.map(toArticle), total: Number(countRow?.n ?? 0) };
}

/** Articles whose scheduled time has come, across workspaces. */
export async function dueScheduledRows(db: Queryable, nowIsoValue: string, limit = 50): Promise<Article[]> {
  const rows = await db('articles').where({ status: 'scheduled' }).andWhere('scheduled_at', '<=', nowIsoValue).orderBy('scheduled_at').limit(limit);
  return rows.map(toArticle);
}

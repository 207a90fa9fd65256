import type { Ctx } from '../context.js';
import { articleRow, pageRows } from './query-store.js';
import type { ArticleIndex } from './schemas.js';
import type { StoredArticle } from './snapshot.js';

/** What the content API serves for the slug, not the working copy; null for a draft, an unpublished or an unknown slug. */
export async function publishedArticle(ctx: Ctx, workspaceId: string, slug: string): Promise<StoredArticle | null> {
  const row = await articleRow(ctx.db, workspaceId, slug);
  return row ? (JSON.parse(row.json) as StoredArticle) : null;
}

/** The newest `limit` published snapshots' index entries, and how many are published in all. */
export async function publishedIndex(ctx: Ctx, workspaceId: string, limit: number): Promise<{ articles: ArticleIndex[]; total: number }> {
  const { rows, total } = await pageRows(ctx.db, workspaceId, { page: 0, limit });
  return { articles: rows.map((r) => JSON.parse(r) as ArticleIndex), total };
}

/** The front matter of a published snapshot as a Markdown document (the MCP resource). */
export function publishedFrontMatter(a: StoredArticle): Record<string, unknown> {
  return {
    title: a.title,
    slug: a.slug,
    url: a.url,
    metaTitle: a.metaTitle,
    metaDescription: a.metaDescription,
    focusKeyword: a.focusKeyword,
    category: a.category.slug,
    tags: a.tags.map((t) => t.slug),
    author: a.author,
    image: a.image,
    imageAlt: a.imageAlt,
    publishedAt: a.publishedAt,
    updatedAt: a.updatedAt,
  };
}

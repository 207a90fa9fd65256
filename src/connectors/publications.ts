import type { Queryable } from '../db/connect.js';
import type { Article } from '../articles/types.js';
import type { Connector } from './store.js';

/** Article x connector: when it was first published there, last updated, its URL and last error. */
export interface Publication {
  articleId: string;
  connectorId: string;
  workspaceId: string;
  firstPublishedAt: string;
  updatedAt: string;
  publishedUrl: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
}

type Row = Record<string, any>;

const toPublication = (r: Row): Publication => ({
  articleId: r.article_id,
  connectorId: r.connector_id,
  workspaceId: r.workspace_id,
  firstPublishedAt: r.first_published_at,
  updatedAt: r.updated_at,
  publishedUrl: r.published_url ?? null,
  lastError: r.last_error ?? null,
  lastErrorAt: r.last_error_at ?? null,
});

export async function find(db: Queryable, articleId: string, connectorId: string): Promise<Publication | undefined> {
  const row = await db('publications').where({ article_id: articleId, connector_id: connectorId }).first();
  return row ? toPublication(row) : undefined;
}

export async function listForArticle(db: Queryable, articleId: string): Promise<Publication[]> {
  return (await db('publications').where({ article_id: articleId })).map(toPublication);
}

/** First publish inserts (publishedAt = now); a republish keeps publishedAt and moves updatedAt. */
export async function upsert(
  db: Queryable,
  args: { article: Article; connector: Connector; now: string; existing?: Publication },
): Promise<Publication> {
  const { article, connector, now, existing } = args;
  if (existing) {
    await db('publications').where({ article_id: article.id, connector_id: connector.id }).update({ updated_at: now, last_error: null, last_error_at: null });
    return { ...existing, updatedAt: now, lastError: null, lastErrorAt: null };
  }
  const row = { article_id: article.id, connector_id: connector.id, workspace_id: article.workspaceId, first_published_at: now, updated_at: now };
  await db('publications').insert(row);
  return toPublication(row);
}

export async function setPublishedUrl(db: Queryable, articleId: string, connectorId: string, url: string): Promise<void> {
  await db('publications').where({ article_id: articleId, connector_id: connectorId }).update({ published_url: url });
}

export async function recordError(db: Queryable, articleId: string, connectorId: string, error: string, at: string): Promise<void> {
  await db('publications').where({ article_id: articleId, connector_id: connectorId }).update({ last_error: error.slice(0, 2000), last_error_at: at });
}

export async function removeAllForArticle(db: Queryable, articleId: string): Promise<void> {
  await db('publications').where({ article_id: articleId }).delete();
}

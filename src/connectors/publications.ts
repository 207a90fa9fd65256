import { type Queryable, writeOn } from '../db/connect.js';
import { rowsByKeys } from '../db/by-keys.js';
import { insertRows } from '../db/insert-rows.js';
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

export async function setPublishedUrl(db: Queryable, articleId: string, connectorId: string, url: string): Promise<void> {
  await writeOn(db)('publications').where({ article_id: articleId, connector_id: connectorId }).update({ published_url: url });
}

export async function recordError(db: Queryable, articleId: string, connectorId: string, error: string, at: string): Promise<void> {
  await writeOn(db)('publications').where({ article_id: articleId, connector_id: connectorId }).update({ last_error: error.slice(0, 2000), last_error_at: at });
}

export async function removeAllForArticle(db: Queryable, articleId: string): Promise<void> {
  await writeOn(db)('publications').where({ article_id: articleId }).delete();
}

/**
 * The publications of these articles on these connectors, keyed `articleId connectorId`. Found by
 * article (the primary key's first column), the connectors kept here: asked for by both,
 * PostgreSQL went through the connector's index and read every publication of the connector for
 * each batch (with or without statistics), so an import read more rows per article as it grew.
 */
export async function findMany(db: Queryable, articleIds: string[], connectorIds: string[]): Promise<Map<string, Publication>> {
  const wanted = new Set(connectorIds);
  const rows = await rowsByKeys(db, 'publications', 'article_id', articleIds);
  return new Map(rows.filter((r) => wanted.has(r.connector_id)).map((r) => [`${r.article_id} ${r.connector_id}`, toPublication(r)]));
}

/**
 * Record a batch of publishes: first publishes insert rows (their times given, see
 * publishing/publish-rows.ts firstPublishTimes), republishes move updatedAt to now and clear the
 * last error.
 */
export async function saveMany(db: Queryable, firsts: Publication[], republished: Array<{ articleId: string; connectorId: string }>, now: string): Promise<void> {
  const rows = firsts.map((p) => ({ article_id: p.articleId, connector_id: p.connectorId, workspace_id: p.workspaceId, first_published_at: p.firstPublishedAt, updated_at: p.updatedAt }));
  await insertRows(db, 'publications', rows);
  const byConnector = new Map<string, string[]>();
  for (const r of republished) byConnector.set(r.connectorId, [...(byConnector.get(r.connectorId) ?? []), r.articleId]);
  for (const [connectorId, ids] of byConnector) {
    for (let i = 0; i < ids.length; i += 500) {
      await writeOn(db)('publications').where({ connector_id: connectorId }).whereIn('article_id', ids.slice(i, i + 500)).update({ updated_at: now, last_error: null, last_error_at: null });
    }
  }
}

import { type Queryable, type Row, writeOn } from '../db/connect.js';

export interface PreviewRow {
  id: string;
  workspaceId: string;
  articleId: string;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
}

const toPreview = (r: Row): PreviewRow => ({ id: r.id, workspaceId: r.workspace_id, articleId: r.article_id, createdAt: r.created_at, expiresAt: r.expires_at, revokedAt: r.revoked_at ?? null });

export async function insertPreview(db: Queryable, p: PreviewRow & { tokenHash: string }): Promise<void> {
  await writeOn(db)('content_previews').insert({ id: p.id, token_hash: p.tokenHash, workspace_id: p.workspaceId, article_id: p.articleId, created_at: p.createdAt, expires_at: p.expiresAt, revoked_at: null });
}

export async function findPreviewByHash(db: Queryable, tokenHash: string): Promise<PreviewRow | undefined> {
  const row = await db('content_previews').where({ token_hash: tokenHash }).first();
  return row ? toPreview(row) : undefined;
}

/** Revoke the article's live previews; returns how many. */
export async function revokePreviews(db: Queryable, articleId: string, now: string): Promise<number> {
  return writeOn(db)('content_previews').where({ article_id: articleId }).whereNull('revoked_at').andWhere('expires_at', '>', now).update({ revoked_at: now });
}

/** Forget previews that ended (expired or revoked) before `before`. */
export async function deleteEndedPreviews(db: Queryable, before: string): Promise<number> {
  return writeOn(db)('content_previews').where('expires_at', '<', before).orWhere('revoked_at', '<', before).delete();
}

/** Forgets the article's previews beyond the newest `keep` (by creation, then id). */
export async function deletePreviewsBeyond(db: Queryable, articleId: string, keep: number): Promise<number> {
  return writeOn(db)('content_previews')
    .where({ article_id: articleId })
    .whereNotIn('id', db('content_previews').where({ article_id: articleId }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(keep).select('id'))
    .delete();
}

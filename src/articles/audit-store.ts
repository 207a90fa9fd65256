import { type Queryable, writeOn } from '../db/connect.js';
import type { AuditResult } from './audit.js';

export interface StoredAudit extends AuditResult {
  articleId: string;
  auditedAt: string;
}

/** Keep the latest audit of the article and its score on the article itself, with the revision it judged. */
export async function saveAudit(db: Queryable, workspaceId: string, articleId: string, result: AuditResult, at: string, revision: number): Promise<void> {
  await writeOn(db)('article_audits')
    .insert({ article_id: articleId, workspace_id: workspaceId, score: result.score, result: JSON.stringify(result), audited_at: at })
    .onConflict('article_id')
    .merge(['score', 'result', 'audited_at']);
  // The revision judged: any edit after it makes the score stale (the article results say so).
  await writeOn(db)('articles').where({ id: articleId }).update({ seo_score: result.score, audited_revision: revision });
}

export async function findAudit(db: Queryable, articleId: string): Promise<StoredAudit | undefined> {
  const row = await db('article_audits').where({ article_id: articleId }).first();
  if (!row) return undefined;
  const result = JSON.parse(row.result) as AuditResult;
  // Audits stored before warnings existed have none.
  return { ...result, warnings: result.warnings ?? [], articleId, auditedAt: row.audited_at };
}

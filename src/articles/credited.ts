import type { Ctx } from '../context.js';
import { withTransaction } from '../db/tx.js';
import { AppError } from '../errors.js';
import { publishArticle } from '../content/publish.js';
import { spendCredit } from '../workspaces/usage.js';
import type { Workspace } from '../workspaces/types.js';
import { type AuditResult, auditArticle } from './audit.js';
import { findAudit, saveAudit, type StoredAudit } from './audit-store.js';
import type { ArticleCreateInput } from './inputs.js';
import { getArticle, insertDraft } from './service.js';
import type { Article } from './types.js';

// Operations that spend a monthly credit (agent tools). The credit is spent in the transaction
// that does the work, so a refused or failed operation spends nothing.

/**
 * Create an article spending one `articles` credit; with auto-publish on it is then published
 * (like createArticle). A publish failure after creation keeps the article and the credit.
 */
export async function createArticleSpendingCredit(ctx: Ctx, ws: Workspace, input: ArticleCreateInput): Promise<{ article: Article; published: boolean }> {
  const draft = await withTransaction(ctx.db, async (trx) => {
    await spendCredit(trx, ws, 'articles', ctx.clock.now());
    return insertDraft({ ...ctx, db: trx }, ws, input);
  });
  if (!ws.autoPublish) return { article: draft, published: false };
  try {
    const result = await publishArticle(ctx, ws, draft.id);
    return { article: result?.article ?? draft, published: Boolean(result) };
  } catch (err) {
    if (err instanceof AppError && err.code === 'no_destination') return { article: draft, published: false };
    throw err;
  }
}

/** Audit the article spending one `audits` credit; stores the result and the article's seoScore. */
export async function auditArticleSpendingCredit(ctx: Ctx, ws: Workspace, ref: string): Promise<{ article: Article; audit: AuditResult; auditedAt: string }> {
  const article = await getArticle(ctx, ws, ref);
  const audit = auditArticle(article);
  const auditedAt = ctx.clock.now().toISOString();
  await withTransaction(ctx.db, async (trx) => {
    await spendCredit(trx, ws, 'audits', ctx.clock.now());
    await saveAudit(trx, ws.id, article.id, audit, auditedAt);
  });
  return { article: { ...article, seoScore: audit.score }, audit, auditedAt };
}

/** The latest stored audit of an article, if it was ever audited. */
export async function latestAudit(ctx: Ctx, ws: Workspace, ref: string): Promise<StoredAudit | undefined> {
  const article = await getArticle(ctx, ws, ref);
  return findAudit(ctx.db, article.id);
}

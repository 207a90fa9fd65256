import type { Ctx } from '../context.js';
import { withTransaction } from '../db/tx.js';
import { spendCredit } from '../workspaces/usage.js';
import type { Workspace } from '../workspaces/types.js';
import { findAudit, saveAudit, type StoredAudit } from './audit-store.js';
import { type AuditResult, MAX_CHECKED_ARTICLE_LINKS, siteWarnings } from './audit.js';
import { focusKeywordRivals, getArticle } from './service.js';
import { articleKeysBySlug } from './store.js';
import type { Article } from './types.js';

// Audits spend a monthly credit (agent tools); article creation with credits is publishing/create.ts. The credit is spent in the transaction
// that does the work, so a refused or failed operation spends nothing.

/**
 * Audit the article spending one `audits` credit; stores the result and the article's seoScore.
 * `articlePrefix`: what the site's article URLs start with (content/article-url.ts urlPrefix), so
 * links to the site's own articles are checked.
 */
export async function auditArticleSpendingCredit(ctx: Ctx, ws: Workspace, ref: string, articlePrefix: string | null): Promise<{ article: Article; audit: AuditResult; auditedAt: string }> {
  const article = await getArticle(ctx, ws, ref);
  const origins = [ws.siteUrl, ws.websiteUrl].filter((u): u is string => !!u);
  const { articleLinks, ...audit } = await ctx.renderer.audit(article, { origins, articlePrefix });
  const slugs = articleLinks.slice(0, MAX_CHECKED_ARTICLE_LINKS).map((l) => l.slug);
  const [targets, rivals] = await Promise.all([articleKeysBySlug(ctx.db, ws.id, slugs), focusKeywordRivals(ctx, ws, article)]);
  audit.warnings.push(...siteWarnings(articleLinks, targets, article.focusKeyword, rivals));
  const auditedAt = ctx.clock.now().toISOString();
  await withTransaction(ctx.db, async (trx) => {
    await spendCredit(trx, ws, 'audits', ctx.clock.now());
    await saveAudit(trx, ws.id, article.id, audit, auditedAt, article.revision);
  });
  return { article: { ...article, seoScore: audit.score, auditedRevision: article.revision }, audit, auditedAt };
}

/** The latest stored audit of an article, if it was ever audited. */
export async function latestAudit(ctx: Ctx, ws: Workspace, ref: string): Promise<StoredAudit | undefined> {
  const article = await getArticle(ctx, ws, ref);
  return findAudit(ctx.db, article.id);
}

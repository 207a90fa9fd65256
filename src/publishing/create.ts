import type { Ctx } from '../context.js';
import { withTransaction } from '../db/tx.js';
import { AppError } from '../errors.js';
import type { ArticleCreateInput } from '../articles/inputs.js';
import { insertDraft, refuseDuplicate } from '../articles/service.js';
import type { Article } from '../articles/types.js';
import { spendCredit } from '../workspaces/usage.js';
import type { Workspace } from '../workspaces/types.js';
import { publishArticle } from './publish.js';

/**
 * Create an article; when the workspace has auto-publish on, it is published at once.
 * With `spendCredit` (agent tools) one `articles` credit is spent in the transaction that
 * inserts the draft, so a refused or failed creation spends nothing. A publish failure after
 * creation keeps the article (and the credit). With `refuseDuplicate` (agent tools) an article whose
 * title matches an existing one is refused before anything is spent.
 */
export async function createArticle(
  ctx: Ctx,
  ws: Workspace,
  input: ArticleCreateInput,
  opts: { spendCredit?: boolean; refuseDuplicate?: boolean } = {},
): Promise<{ article: Article; published: boolean }> {
  if (opts.refuseDuplicate) await refuseDuplicate(ctx, ws, input);
  const draft = opts.spendCredit
    ? await withTransaction(ctx.db, async (trx) => {
        await spendCredit(trx, ws, 'articles', ctx.clock.now());
        return insertDraft({ ...ctx, db: trx }, ws, input);
      })
    : await insertDraft(ctx, ws, input);
  if (!ws.autoPublish) return { article: draft, published: false };
  try {
    const result = await publishArticle(ctx, ws, draft.id);
    return { article: result?.article ?? draft, published: Boolean(result) };
  } catch (err) {
    // Auto-publish with nowhere to publish to keeps the draft; the caller is told it was not published.
    if (err instanceof AppError && err.code === 'no_destination') return { article: draft, published: false };
    throw err;
  }
}

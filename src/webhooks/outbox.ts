import type { Ctx } from '../context.js';
import type { Trx } from '../db/connect.js';
import type { Article } from '../articles/types.js';
import type { Connector } from '../content/connectors.js';
import type { Publication } from '../content/publications.js';
import type { Workspace } from '../workspaces/types.js';

export type ArticleEventName = 'article.published' | 'article.updated' | 'article.unpublished' | 'article.deleted';

export interface ArticleEventArgs {
  event: ArticleEventName;
  workspace: Workspace;
  connector: Connector;
  article: Article;
  publication: Publication;
}

// PLACEHOLDER (issue 4 fills this in): write the event to the durable outbox in `trx`.
export async function enqueueArticleEvent(_trx: Trx, _ctx: Ctx, _args: ArticleEventArgs): Promise<void> {}

export type UnpublishOutcome = { ok: true } | { ok: false; error: string; status?: number };

// PLACEHOLDER (issue 4 fills this in): deliver article.unpublished now and wait for the answer.
export async function deliverUnpublishNow(_ctx: Ctx, _args: Omit<ArticleEventArgs, 'event'>): Promise<UnpublishOutcome> {
  return { ok: false, error: 'webhook delivery is not implemented yet' };
}

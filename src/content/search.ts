import type { Ctx } from '../context.js';
import { findArticlesByIds } from '../articles/store.js';
import type { Article } from '../articles/types.js';
import type { Workspace } from '../workspaces/types.js';
import { searchRows } from './search-store.js';
import { parseSearchQuery } from './search-terms.js';

/** The content API's search for MCP `list_articles`: the articles found are published (their drafts may differ). */
export async function searchPublishedArticles(ctx: Ctx, ws: Workspace, opts: { query: string; limit: number; offset: number }): Promise<{ articles: Article[]; total: number }> {
  const { rows, total } = await searchRows(ctx.db, ws.id, parseSearchQuery(opts.query, 'query'), { offset: opts.offset, limit: opts.limit });
  const ids = rows.map((r) => (JSON.parse(r) as { id: string }).id);
  const found = new Map((await findArticlesByIds(ctx.db, ids)).map((a) => [a.id, a]));
  return { articles: ids.flatMap((id) => found.get(id) ?? []), total };
}

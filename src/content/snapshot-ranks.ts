import type { Queryable } from '../db/connect.js';

/**
 * Dense ranks: the position of a row (0 = oldest) in (published_at, article_id) order within a
 * group (a workspace, a workspace's category, a workspace's tag). A page at any depth is then
 * `rank <= top - page * limit ORDER BY rank DESC LIMIT limit`: an index seek, no OFFSET.
 * New posts are the newest almost always, so inserting costs one seek and no shift.
 */
export interface RankGroup {
  table: 'content_index' | 'content_tags';
  where: Record<string, string>;
  column: 'ws_rank' | 'cat_rank' | 'rank';
}

/** The rank a row with this key gets: one more than the newest row older than it. */
export async function rankFor(db: Queryable, g: RankGroup, publishedAt: string, articleId: string): Promise<number> {
  const row = await db(g.table)
    .where(g.where)
    .andWhere((q) => q.where('published_at', '<', publishedAt).orWhere((q2) => q2.where('published_at', '=', publishedAt).andWhere('article_id', '<', articleId)))
    .orderBy(g.column, 'desc')
    .first(g.column);
  return row ? Number(row[g.column]) + 1 : 0;
}

/** Make room at `rank` (rows at or above it move up by one). */
export async function openSlot(db: Queryable, g: RankGroup, rank: number): Promise<void> {
  await db(g.table).where(g.where).andWhere(g.column, '>=', rank).increment(g.column, 1);
}

/** Close the gap left at `rank` by a removed row. */
export async function closeSlot(db: Queryable, g: RankGroup, rank: number): Promise<void> {
  await db(g.table).where(g.where).andWhere(g.column, '>', rank).decrement(g.column, 1);
}

/** Number of rows in the group: the top rank + 1 (an index seek, not a COUNT). */
export async function groupSize(db: Queryable, g: RankGroup): Promise<number> {
  const row = await db(g.table).where(g.where).orderBy(g.column, 'desc').first(g.column);
  return row ? Number(row[g.column]) + 1 : 0;
}

/**
 * groupSize for many categories or tags of a workspace at once (one grouped query per 500):
 * what bulk paths use instead of one query per group. Absent groups are empty.
 */
export async function groupSizes(db: Queryable, workspaceId: string, kind: 'category' | 'tag', slugs: string[]): Promise<Map<string, number>> {
  const [table, column, rank] = kind === 'category' ? ['content_index', 'category', 'cat_rank'] : ['content_tags', 'tag', 'rank'];
  const out = new Map<string, number>();
  const unique = [...new Set(slugs)];
  for (let i = 0; i < unique.length; i += 500) {
    const rows = await db(table).where({ workspace_id: workspaceId }).whereIn(column, unique.slice(i, i + 500)).groupBy(column).select(column).max({ top: rank });
    for (const r of rows as Array<Record<string, unknown>>) out.set(String(r[column]), Number(r.top) + 1);
  }
  return out;
}

export const wsGroup = (workspaceId: string): RankGroup => ({ table: 'content_index', where: { workspace_id: workspaceId }, column: 'ws_rank' });
export const catGroup = (workspaceId: string, category: string): RankGroup => ({ table: 'content_index', where: { workspace_id: workspaceId, category }, column: 'cat_rank' });
export const tagGroup = (workspaceId: string, tag: string): RankGroup => ({ table: 'content_tags', where: { workspace_id: workspaceId, tag }, column: 'rank' });

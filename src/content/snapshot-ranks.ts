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
 * groupSize for many categories or tags of a workspace at once, in one statement per 100: each
 * group's top rank is an index seek (a grouped max() read every row of the groups: a publish
 * tagged with a 10,000-post tag read 10,000 rows). Absent groups are empty.
 */
export async function groupSizes(db: Queryable, workspaceId: string, kind: 'category' | 'tag', slugs: string[]): Promise<Map<string, number>> {
  const [table, column, rank] = kind === 'category' ? ['content_index', 'category', 'cat_rank'] : ['content_tags', 'tag', 'rank'];
  const out = new Map<string, number>();
  const unique = [...new Set(slugs)];
  const seek = `select cast(? as text) as slug, (select "${rank}" from "${table}" where workspace_id = ? and "${column}" = ? order by "${rank}" desc limit 1) as top`;
  for (let i = 0; i < unique.length; i += 100) {
    const chunk = unique.slice(i, i + 100);
    const union = chunk.map(() => seek).join(' union all ');
    const rows = (await db.from(db.raw(`(${union}) as g`, chunk.flatMap((slug) => [slug, workspaceId, slug]))).select('slug', 'top')) as Array<{ slug: string; top: unknown }>;
    for (const r of rows) if (r.top !== null && r.top !== undefined) out.set(r.slug, Number(r.top) + 1);
  }
  return out;
}

export const wsGroup = (workspaceId: string): RankGroup => ({ table: 'content_index', where: { workspace_id: workspaceId }, column: 'ws_rank' });
export const catGroup = (workspaceId: string, category: string): RankGroup => ({ table: 'content_index', where: { workspace_id: workspaceId, category }, column: 'cat_rank' });
export const tagGroup = (workspaceId: string, tag: string): RankGroup => ({ table: 'content_tags', where: { workspace_id: workspaceId, tag }, column: 'rank' });

import type { Queryable, Trx } from '../db/connect.js';
import { insertRows } from '../db/insert-rows.js';
import { catGroup, groupSize, groupSizes, tagGroup, wsGroup } from './snapshot-ranks.js';
import { BLOCK_SIZE, lastBlock, rebuildBlock, splitIfOversized } from './sitemap-blocks.js';
import { indexForSearch } from './search-store.js';
import { type Snapshot, packArticle } from './snapshot.js';
import { type TermChange, refreshTerms } from './terms-store.js';

type Row = Record<string, any>;

/**
 * Store a run of new snapshots in a few statements, whatever its size: articles not yet in the
 * index, sorted oldest first, with no served article dated within the run (the caller checks).
 * Newer than everything served, they are appended; older (an imported archive under posts
 * written here), the newer rows of each group move up by the run's length in one statement and
 * the run fills the gap, its sitemap block split as it grows.
 */
export async function insertRun(trx: Trx, workspaceId: string, snaps: Snapshot[]): Promise<void> {
  if (snaps.length === 0) return;
  const last = snaps[snaps.length - 1].index.publishedAt;
  const categories = snaps.map((x) => x.index.category.slug);
  const tags = snaps.flatMap((x) => x.index.tags.map((t) => t.slug));
  // Where each group's part of the run starts: its size less the rows newer than the run.
  const newer = await newerCounts(trx, workspaceId, last, categories, tags);
  const base = new Map<string, number>([['', (await groupSize(trx, wsGroup(workspaceId))) - (newer.get('') ?? 0)]]);
  for (const [slug, n] of await groupSizes(trx, workspaceId, 'category', categories)) base.set(`c:${slug}`, n - (newer.get(`c:${slug}`) ?? 0));
  for (const [slug, n] of await groupSizes(trx, workspaceId, 'tag', tags)) base.set(`t:${slug}`, n - (newer.get(`t:${slug}`) ?? 0));
  const length = new Map<string, number>([['', snaps.length]]);
  for (const key of [...categories.map((c) => `c:${c}`), ...tags.map((t) => `t:${t}`)]) length.set(key, (length.get(key) ?? 0) + 1);
  for (const [key, n] of newer) {
    if (n === 0) continue;
    const g = key === '' ? wsGroup(workspaceId) : key.startsWith('c:') ? catGroup(workspaceId, key.slice(2)) : tagGroup(workspaceId, key.slice(2));
    await trx(g.table).where(g.where).andWhere(g.column, '>=', base.get(key) ?? 0).increment(g.column, length.get(key)!);
  }
  const next = new Map(base);
  const take = (key: string) => {
    const rank = next.get(key) ?? 0;
    next.set(key, rank + 1);
    return rank;
  };
  const appending = (newer.get('') ?? 0) === 0;
  let { block, size } = appending ? await lastBlock(trx, workspaceId) : { block: await neighbourBlock(trx, workspaceId, base.get('')!, snaps.length), size: 0 };
  const blocks = new Set<number>([block]);
  const indexRows: Row[] = [];
  const articleRows: Row[] = [];
  const tagRows: Row[] = [];
  for (const snap of snaps) {
    const { index } = snap;
    const wsRank = take('');
    const catRank = take(`c:${index.category.slug}`);
    if (appending && size >= BLOCK_SIZE) {
      block += 1;
      size = 0;
      blocks.add(block);
    }
    size += 1;
    indexRows.push({ ...indexRow(workspaceId, snap), article_id: index.id, ws_rank: wsRank, cat_rank: catRank, sitemap_block: block });
    articleRows.push({ article_id: index.id, article: packArticle(snap) });
    for (const tag of index.tags) {
      tagRows.push({ workspace_id: workspaceId, tag: tag.slug, article_id: index.id, published_at: index.publishedAt, rank: take(`t:${tag.slug}`), category: index.category.slug });
    }
  }
  await insertRows(trx, 'content_index', indexRows);
  await insertRows(trx, 'content_articles', articleRows);
  await insertRows(trx, 'content_tags', tagRows);
  await indexForSearch(trx, snaps.map((x) => ({ articleId: x.index.id, workspaceId, article: x.article, textTerms: x.searchTerms })));
  if (!appending) await splitIfOversized(trx, workspaceId, block, blocks);
  for (const b of blocks) await rebuildBlock(trx, workspaceId, b);
  await refreshTerms(trx, workspaceId, snaps.flatMap(termsOf));
}

/** Rows dated after `publishedAt` in the workspace, its categories and its tags (key '' / 'c:slug' / 't:slug'). */
async function newerCounts(db: Queryable, workspaceId: string, publishedAt: string, categories: string[], tags: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const ws = await db('content_index').where({ workspace_id: workspaceId }).andWhere('published_at', '>', publishedAt).count({ n: '*' }).first();
  out.set('', Number(ws?.n ?? 0));
  if (out.get('') === 0) return out;
  for (const [table, column, prefix, slugs] of [['content_index', 'category', 'c:', categories], ['content_tags', 'tag', 't:', tags]] as const) {
    const unique = [...new Set(slugs)];
    for (let i = 0; i < unique.length; i += 500) {
      const rows = await db(table).where({ workspace_id: workspaceId }).whereIn(column, unique.slice(i, i + 500)).andWhere('published_at', '>', publishedAt).groupBy(column).select(column).count({ n: '*' });
      for (const r of rows as Row[]) out.set(`${prefix}${r[column]}`, Number(r.n));
    }
  }
  return out;
}

/** The sitemap block a run inserted at `rank` joins: its older neighbour's, else its newer one's (already moved up by `length`). */
async function neighbourBlock(db: Queryable, workspaceId: string, rank: number, length: number): Promise<number> {
  const older = rank > 0 ? await db('content_index').where({ workspace_id: workspaceId, ws_rank: rank - 1 }).first('sitemap_block') : undefined;
  const row = older ?? (await db('content_index').where({ workspace_id: workspaceId, ws_rank: rank + length }).first('sitemap_block'));
  return Number(row?.sitemap_block ?? 0);
}

export const indexRow = (workspaceId: string, snap: Snapshot): Row => ({
  workspace_id: workspaceId,
  slug: snap.index.slug,
  category: snap.index.category.slug,
  published_at: snap.index.publishedAt,
  updated_at: snap.index.updatedAt,
  tags: JSON.stringify(snap.index.tags.map((t) => t.slug)),
  index_json: JSON.stringify(snap.index),
  sitemap_json: snap.sitemapEntry,
});

/** The categories and tags a stored snapshot is listed under, at its updatedAt. */
export const termsOf = (snap: Snapshot): TermChange[] => [
  { kind: 'category', slug: snap.index.category.slug, title: snap.index.category.title, lastmod: snap.index.updatedAt },
  ...snap.index.tags.map((t) => ({ kind: 'tag' as const, slug: t.slug, title: t.title, lastmod: snap.index.updatedAt })),
];

/** Record when the workspace's served content changed; on PostgreSQL the upsert also serialises writers of one workspace. */
export async function touchState(db: Queryable, workspaceId: string, at: string): Promise<void> {
  await db('content_state').insert({ workspace_id: workspaceId, changed_at: at }).onConflict('workspace_id').merge(['changed_at']);
}

import type { Ctx } from '../context.js';
import type { Queryable, Trx } from '../db/connect.js';
import { rowsByKeys } from '../db/by-keys.js';
import type { Article } from '../articles/types.js';
import type { Workspace } from '../workspaces/types.js';
import type { Publication } from '../connectors/publications.js';
import { nowIso } from '../lib/clock.js';
import { indexRow, insertRun, termsOf, touchState } from './bulk-store.js';
import { type RankGroup, catGroup, closeSlot, openSlot, rankFor, tagGroup, wsGroup } from './snapshot-ranks.js';
import { blockFor, rebuildBlock, splitIfOversized } from './sitemap-blocks.js';
import { indexForSearch, removeFromSearch } from './search-store.js';
import { type RenderedBody, type Snapshot, buildSnapshot, packArticle } from './snapshot.js';
import { type TermChange, refreshTerms } from './terms-store.js';

type Row = Record<string, any>;

/** (publishedAt, id) order: the order of ranks, oldest first. */
const byRank = (a: Snapshot, b: Snapshot) =>
  a.index.publishedAt < b.index.publishedAt ? -1 : a.index.publishedAt > b.index.publishedAt ? 1 : a.index.id < b.index.id ? -1 : a.index.id > b.index.id ? 1 : 0;

/**
 * Compute the snapshots of articles being published and store them (called by the publish
 * transaction, for one article or a batch). A republish replaces the snapshot, and its ranks
 * stay put when publishedAt and category did not change. New posts newer than everything served
 * are appended in bulk; older ones (an imported archive under newer posts) are slotted in.
 */
export async function writeSnapshots(trx: Trx, ctx: Ctx, ws: Workspace, entries: Array<{ article: Article; publication: Publication; rendered: RenderedBody }>): Promise<void> {
  if (entries.length === 0) return;
  const now = nowIso(ctx.clock);
  // First: on PostgreSQL this upsert also serialises writers of one workspace, so the ranks
  // read below cannot move under us.
  await touchState(trx, ws.id, now);
  const snaps = entries.map((e) => buildSnapshot(ws, e.article, e.publication, e.rendered)).sort(byRank);
  const indexed = new Set((await rowsByKeys(trx, 'content_index', 'article_id', snaps.map((x) => x.index.id), ['article_id'])).map((r) => r.article_id as string));
  for (const snap of snaps.filter((x) => indexed.has(x.index.id))) await saveSnapshot(trx, ws.id, snap, now);
  const fresh = snaps.filter((x) => !indexed.has(x.index.id));
  if (fresh.length === 0) return;
  // A run no served article falls within goes in at once; otherwise each finds its own place.
  const within = await trx('content_index')
    .where({ workspace_id: ws.id })
    .andWhere('published_at', '>=', fresh[0].index.publishedAt)
    .andWhere('published_at', '<=', fresh[fresh.length - 1].index.publishedAt)
    .first('article_id');
  if (within) for (const snap of fresh) await saveSnapshot(trx, ws.id, snap, now);
  else await insertRun(trx, ws.id, fresh);
}

/** Remove the article's snapshot (unpublish, delete); a no-op when it has none. */
export async function removeSnapshot(trx: Trx, articleId: string, now: string): Promise<void> {
  const old = await trx('content_index').where({ article_id: articleId }).first();
  if (!old) return;
  await touchState(trx, old.workspace_id, now);
  const tags: string[] = JSON.parse(old.tags);
  await removeIndexRow(trx, old);
  for (const tag of tags) await removeTag(trx, old.workspace_id, tag, articleId);
  await trx('content_articles').where({ article_id: articleId }).delete();
  await removeFromSearch(trx, articleId);
  await rebuildBlock(trx, old.workspace_id, Number(old.sitemap_block));
  await refreshTerms(trx, old.workspace_id, [{ kind: 'category', slug: old.category, lastmod: now }, ...tags.map((slug) => ({ kind: 'tag' as const, slug, lastmod: now }))]);
}

/** Store one snapshot, inserting it at its rank (the caller has touched the workspace state). */
async function saveSnapshot(trx: Trx, workspaceId: string, snap: Snapshot, now: string): Promise<void> {
  const { index } = snap;
  const old = await trx('content_index').where({ article_id: index.id }).first();
  const oldTags: string[] = old ? JSON.parse(old.tags) : [];
  const newTags = index.tags.map((t) => t.slug);
  const row = indexRow(workspaceId, snap);
  const blocks = new Set<number>();
  if (old && old.published_at === index.publishedAt && old.category === index.category.slug) {
    await trx('content_index').where({ article_id: index.id }).update(row);
    blocks.add(Number(old.sitemap_block));
    for (const tag of oldTags.filter((t) => !newTags.includes(t))) await removeTag(trx, workspaceId, tag, index.id);
    for (const tag of newTags.filter((t) => !oldTags.includes(t))) await insertTag(trx, workspaceId, tag, index.id, index.publishedAt, index.category.slug);
  } else {
    if (old) {
      await removeIndexRow(trx, old);
      for (const tag of oldTags) await removeTag(trx, workspaceId, tag, index.id);
      blocks.add(Number(old.sitemap_block));
    }
    const wsRank = await insertAt(trx, wsGroup(workspaceId), index.publishedAt, index.id);
    const catRank = await insertAt(trx, catGroup(workspaceId, index.category.slug), index.publishedAt, index.id);
    const block = await blockFor(trx, workspaceId, wsRank);
    blocks.add(block);
    await trx('content_index').insert({ ...row, article_id: index.id, ws_rank: wsRank, cat_rank: catRank, sitemap_block: block });
    await splitIfOversized(trx, workspaceId, block, blocks);
    for (const tag of newTags) await insertTag(trx, workspaceId, tag, index.id, index.publishedAt, index.category.slug);
  }
  await trx('content_articles').insert({ article_id: index.id, article: packArticle(snap) }).onConflict('article_id').merge();
  await indexForSearch(trx, [{ articleId: index.id, workspaceId, article: snap.article, textTerms: snap.searchTerms }]);
  for (const b of blocks) await rebuildBlock(trx, workspaceId, b);
  const left: TermChange[] = [
    ...(old && old.category !== index.category.slug ? [{ kind: 'category' as const, slug: old.category as string, lastmod: now }] : []),
    ...oldTags.filter((t) => !newTags.includes(t)).map((slug) => ({ kind: 'tag' as const, slug, lastmod: now })),
  ];
  await refreshTerms(trx, workspaceId, [...termsOf(snap), ...left]);
}

async function insertAt(db: Queryable, g: RankGroup, publishedAt: string, articleId: string): Promise<number> {
  const rank = await rankFor(db, g, publishedAt, articleId);
  await openSlot(db, g, rank);
  return rank;
}

async function removeIndexRow(db: Queryable, old: Row): Promise<void> {
  await db('content_index').where({ article_id: old.article_id }).delete();
  await closeSlot(db, wsGroup(old.workspace_id), Number(old.ws_rank));
  await closeSlot(db, catGroup(old.workspace_id, old.category), Number(old.cat_rank));
}

async function insertTag(db: Queryable, workspaceId: string, tag: string, articleId: string, publishedAt: string, category: string): Promise<void> {
  const rank = await insertAt(db, tagGroup(workspaceId, tag), publishedAt, articleId);
  await db('content_tags').insert({ workspace_id: workspaceId, tag, article_id: articleId, published_at: publishedAt, rank, category });
}

async function removeTag(db: Queryable, workspaceId: string, tag: string, articleId: string): Promise<void> {
  const row = await db('content_tags').where({ workspace_id: workspaceId, tag, article_id: articleId }).first('rank');
  if (!row) return;
  await db('content_tags').where({ workspace_id: workspaceId, tag, article_id: articleId }).delete();
  await closeSlot(db, tagGroup(workspaceId, tag), Number(row.rank));
}

/** The slugs the content API serves these articles under (an article not served is absent). */
export async function servedSlugs(db: Queryable, articleIds: string[]): Promise<Map<string, string>> {
  const rows = await rowsByKeys(db, 'content_index', 'article_id', articleIds, ['article_id', 'slug']);
  return new Map(rows.map((r) => [r.article_id as string, r.slug as string]));
}

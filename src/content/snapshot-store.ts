import type { Ctx } from '../context.js';
import type { Queryable, Trx } from '../db/connect.js';
import type { Article } from '../articles/types.js';
import type { Workspace } from '../workspaces/types.js';
import type { Publication } from '../connectors/publications.js';
import { type RankGroup, catGroup, closeSlot, groupSize, openSlot, rankFor, tagGroup, wsGroup } from './snapshot-ranks.js';
import { BLOCK_SIZE, blockFor, lastBlock, rebuildBlock } from './sitemap-blocks.js';
import { type Snapshot, buildSnapshot } from './snapshot.js';

type Row = Record<string, any>;

/**
 * Compute the article's snapshot and store it (called by publishArticle inside its transaction).
 * A republish replaces it; ranks stay put when publishedAt and category did not change.
 */
export async function writeSnapshot(trx: Trx, _ctx: Ctx, ws: Workspace, article: Article, publication: Publication): Promise<void> {
  await saveSnapshot(trx, ws.id, buildSnapshot(ws, article, publication));
}

/** Remove the article's snapshot (unpublish, delete); a no-op when it has none. */
export async function removeSnapshot(trx: Trx, articleId: string): Promise<void> {
  const old = await trx('content_index').where({ article_id: articleId }).first();
  if (!old) return;
  const now = new Date().toISOString();
  await touchState(trx, old.workspace_id, now);
  const tags: string[] = JSON.parse(old.tags);
  await removeIndexRow(trx, old);
  for (const tag of tags) await removeTag(trx, old.workspace_id, tag, articleId);
  await trx('content_articles').where({ article_id: articleId }).delete();
  await rebuildBlock(trx, old.workspace_id, Number(old.sitemap_block));
  await refreshTerms(trx, old.workspace_id, [old.category], tags, now, null);
}

export async function saveSnapshot(trx: Trx, workspaceId: string, snap: Snapshot): Promise<void> {
  const { index } = snap;
  const at = index.updatedAt;
  await touchState(trx, workspaceId, at);
  const old = await trx('content_index').where({ article_id: index.id }).first();
  const oldTags: string[] = old ? JSON.parse(old.tags) : [];
  const newTags = index.tags.map((t) => t.slug);
  const row = indexRow(workspaceId, snap);
  const blocks = new Set<number>();
  if (old && old.published_at === index.publishedAt && old.category === index.category.slug) {
    await trx('content_index').where({ article_id: index.id }).update(row);
    blocks.add(Number(old.sitemap_block));
    for (const tag of oldTags.filter((t) => !newTags.includes(t))) await removeTag(trx, workspaceId, tag, index.id);
    for (const tag of newTags.filter((t) => !oldTags.includes(t))) await insertTag(trx, workspaceId, tag, index.id, index.publishedAt);
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
    for (const tag of newTags) await insertTag(trx, workspaceId, tag, index.id, index.publishedAt);
  }
  await trx('content_articles').insert({ article_id: index.id, article_json: JSON.stringify(snap.article) }).onConflict('article_id').merge();
  for (const b of blocks) await rebuildBlock(trx, workspaceId, b);
  await refreshTerms(trx, workspaceId, [...new Set([old?.category, index.category.slug].filter(Boolean))], [...new Set([...oldTags, ...newTags])], at, snap);
}

/**
 * Bulk path for seeding (benchmarks, imports): snapshots of articles not yet in the index,
 * sorted oldest first and newer than everything already there, appended in batched inserts.
 */
export async function appendSnapshots(trx: Trx, workspaceId: string, snaps: Snapshot[]): Promise<void> {
  if (snaps.length === 0) return;
  const last = snaps[snaps.length - 1].index;
  await touchState(trx, workspaceId, last.updatedAt);
  const next = new Map<string, number>();
  const take = async (key: string, g: RankGroup) => {
    const rank = next.get(key) ?? (await groupSize(trx, g));
    next.set(key, rank + 1);
    return rank;
  };
  let { block, size } = await lastBlock(trx, workspaceId);
  const blocks = new Set<number>([block]);
  const indexRows: Row[] = [];
  const articleRows: Row[] = [];
  const tagRows: Row[] = [];
  for (const snap of snaps) {
    const { index } = snap;
    const wsRank = await take('', wsGroup(workspaceId));
    const catRank = await take(`c:${index.category.slug}`, catGroup(workspaceId, index.category.slug));
    if (size >= BLOCK_SIZE) {
      block += 1;
      size = 0;
      blocks.add(block);
    }
    size += 1;
    indexRows.push({ ...indexRow(workspaceId, snap), article_id: index.id, ws_rank: wsRank, cat_rank: catRank, sitemap_block: block });
    articleRows.push({ article_id: index.id, article_json: JSON.stringify(snap.article) });
    for (const tag of index.tags) {
      tagRows.push({ workspace_id: workspaceId, tag: tag.slug, article_id: index.id, published_at: index.publishedAt, rank: await take(`t:${tag.slug}`, tagGroup(workspaceId, tag.slug)) });
    }
  }
  await insertChunks(trx, 'content_index', indexRows, 100);
  await insertChunks(trx, 'content_articles', articleRows, 200);
  await insertChunks(trx, 'content_tags', tagRows, 200);
  for (const b of blocks) await rebuildBlock(trx, workspaceId, b);
  const categories = [...new Set(snaps.map((s) => s.index.category.slug))];
  const tags = [...new Set(snaps.flatMap((s) => s.index.tags.map((t) => t.slug)))];
  const titles = new Map(snaps.flatMap((s) => [[`c:${s.index.category.slug}`, s.index.category.title], ...s.index.tags.map((t) => [`t:${t.slug}`, t.title] as [string, string])]));
  await refreshTerms(trx, workspaceId, categories, tags, last.updatedAt, null, titles);
}

async function insertChunks(db: Queryable, table: string, rows: Row[], size: number): Promise<void> {
  for (let i = 0; i < rows.length; i += size) await db(table).insert(rows.slice(i, i + size));
}

const indexRow = (workspaceId: string, snap: Snapshot): Row => ({
  workspace_id: workspaceId,
  slug: snap.index.slug,
  category: snap.index.category.slug,
  published_at: snap.index.publishedAt,
  updated_at: snap.index.updatedAt,
  tags: JSON.stringify(snap.index.tags.map((t) => t.slug)),
  index_json: JSON.stringify(snap.index),
  sitemap_json: snap.sitemapEntry,
});

/** Record when the workspace's served content changed; on PostgreSQL the upsert also serialises writers of one workspace. */
async function touchState(db: Queryable, workspaceId: string, at: string): Promise<void> {
  await db('content_state').insert({ workspace_id: workspaceId, changed_at: at }).onConflict('workspace_id').merge(['changed_at']);
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

async function insertTag(db: Queryable, workspaceId: string, tag: string, articleId: string, publishedAt: string): Promise<void> {
  const rank = await insertAt(db, tagGroup(workspaceId, tag), publishedAt, articleId);
  await db('content_tags').insert({ workspace_id: workspaceId, tag, article_id: articleId, published_at: publishedAt, rank });
}

async function removeTag(db: Queryable, workspaceId: string, tag: string, articleId: string): Promise<void> {
  const row = await db('content_tags').where({ workspace_id: workspaceId, tag, article_id: articleId }).first('rank');
  if (!row) return;
  await db('content_tags').where({ workspace_id: workspaceId, tag, article_id: articleId }).delete();
  await closeSlot(db, tagGroup(workspaceId, tag), Number(row.rank));
}

/** Counts (top rank + 1) and lastmod of the categories and tags a change touched; empty ones go. */
async function refreshTerms(db: Queryable, workspaceId: string, categories: string[], tags: string[], at: string, snap: Snapshot | null, titles = new Map<string, string>()): Promise<void> {
  if (snap) {
    titles.set(`c:${snap.index.category.slug}`, snap.index.category.title);
    for (const t of snap.index.tags) titles.set(`t:${t.slug}`, t.title);
  }
  const terms = [
    ...categories.map((slug) => ({ kind: 'category', slug, group: catGroup(workspaceId, slug), title: titles.get(`c:${slug}`) })),
    ...tags.map((slug) => ({ kind: 'tag', slug, group: tagGroup(workspaceId, slug), title: titles.get(`t:${slug}`) })),
  ];
  for (const term of terms) {
    const count = await groupSize(db, term.group);
    const key = { workspace_id: workspaceId, kind: term.kind, slug: term.slug };
    if (count === 0) {
      await db('content_terms').where(key).delete();
    } else if (term.title !== undefined) {
      await db('content_terms').insert({ ...key, title: term.title, count, lastmod: at }).onConflict(['workspace_id', 'kind', 'slug']).merge(['title', 'count', 'lastmod']);
    } else {
      await db('content_terms').where(key).update({ count, lastmod: at });
    }
  }
}

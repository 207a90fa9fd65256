import type { Knex } from 'knex';
import type { Ctx } from '../context.js';
import type { Queryable, Trx } from '../db/connect.js';
import { rowsByKeys } from '../db/by-keys.js';
import { insertRows } from '../db/insert-rows.js';
import type { Article } from '../articles/types.js';
import type { Workspace } from '../workspaces/types.js';
import type { Publication } from '../connectors/publications.js';
import { nowIso } from '../lib/clock.js';
import { indexForSearch, removeFromSearch } from './search-store.js';
import type { RenderedBody } from '../lib/markdown.js';
import { type PackedSnapshot, type Snapshot, buildSnapshot, packSnapshot } from './snapshot.js';

type Row = Record<string, any>;

/*
 * The served snapshots, stored so that every list is an index seek, all written in the
 * transaction that publishes or removes the article:
 * - Dense ranks: a row's position (0 = oldest) in (published_at, article_id) order within its
 *   group: the workspace (ws_rank), its category (cat_rank), a tag (content_tags.rank). A page at
 *   any depth is a range of ranks, no OFFSET. New rows are nearly always the newest: inserting
 *   them moves nothing; otherwise the newer rows of each group move up in one statement.
 * - Sitemap blocks: the joined entries of about BLOCK_SIZE consecutive rows
 *   (content_sitemap_blocks), so the sitemap is a few hundred rows at 100,000 articles.
 * - Terms: each category's and tag's count and lastmod (content_terms).
 */

/** (publishedAt, id) order: the order of ranks, oldest first. */
const byRank = (a: PackedSnapshot, b: PackedSnapshot) =>
  a.index.publishedAt < b.index.publishedAt ? -1 : a.index.publishedAt > b.index.publishedAt ? 1 : a.index.id < b.index.id ? -1 : a.index.id > b.index.id ? 1 : 0;

/** An article being published: its body rendered, or its snapshot already made from it (publishMany makes them while the batch before is written). */
export type SnapshotEntry = { article: Article; publication: Publication } & ({ rendered: RenderedBody } | { packed: PackedSnapshot });

/**
 * Compute and store the snapshots of articles being published (one or a batch). A republish that
 * keeps publishedAt, category and tags is updated in place; any other is removed and inserted
 * again like a new one. New snapshots go in as one run when no served article is dated among
 * them (appended when they are the newest, as almost always), else one at a time.
 */
export async function writeSnapshots(trx: Trx, ctx: Ctx, ws: Workspace, entries: SnapshotEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const now = nowIso(ctx.clock);
  // First: on PostgreSQL this upsert also serialises writers of one workspace, so the ranks
  // read below cannot move under us.
  await touchState(trx, ws.id, now);
  const snaps = entries.map((e) => ('packed' in e ? e.packed : packSnapshot(buildSnapshot(ws, e.article, e.publication, e.rendered)))).sort(byRank);
  const stored = new Map((await rowsByKeys(trx, 'content_index', 'article_id', snaps.map((x) => x.index.id))).map((r) => [r.article_id as string, r]));
  const fresh: PackedSnapshot[] = [];
  const changes: TermChange[] = [];
  for (const snap of snaps) {
    const old = stored.get(snap.index.id);
    const tags = snap.index.tags.map((t) => t.slug);
    const oldTags: string[] = old ? JSON.parse(old.tags) : [];
    if (old && old.published_at === snap.index.publishedAt && old.category === snap.index.category.slug && sameSet(oldTags, tags)) {
      await trx('content_index').where({ article_id: snap.index.id }).update(indexRow(ws.id, snap));
      await trx('content_articles').where({ article_id: snap.index.id }).update({ article: snap.packed });
      await indexForSearch(trx, [searchEntry(ws.id, snap)]);
      await rebuildBlock(trx, ws.id, Number(old.sitemap_block));
      changes.push(...termsOf(snap));
      continue;
    }
    if (old) {
      await dropRows(trx, old);
      if (old.category !== snap.index.category.slug) changes.push({ kind: 'category', slug: old.category, lastmod: now });
      changes.push(...oldTags.filter((t) => !tags.includes(t)).map((slug) => ({ kind: 'tag' as const, slug, lastmod: now })));
    }
    fresh.push(snap);
  }
  if (fresh.length > 0) {
    const within = await trx('content_index')
      .where({ workspace_id: ws.id })
      .andWhere('published_at', '>=', fresh[0].index.publishedAt)
      .andWhere('published_at', '<=', fresh[fresh.length - 1].index.publishedAt)
      .first('article_id');
    for (const run of within ? fresh.map((x) => [x]) : [fresh]) await insertRun(trx, ws.id, run);
  }
  await refreshTerms(trx, ws.id, changes);
}

/** Remove the article's snapshot (unpublish, delete); a no-op when it has none. */
export async function removeSnapshot(trx: Trx, articleId: string, now: string): Promise<void> {
  const old = await trx('content_index').where({ article_id: articleId }).first();
  if (!old) return;
  await touchState(trx, old.workspace_id, now);
  await dropRows(trx, old);
  const tags: string[] = JSON.parse(old.tags);
  await refreshTerms(trx, old.workspace_id, [{ kind: 'category', slug: old.category, lastmod: now }, ...tags.map((slug) => ({ kind: 'tag' as const, slug, lastmod: now }))]);
}

/** Every row of a stored snapshot but its terms' counts: the gaps in its ranks closed, its sitemap block rebuilt. */
async function dropRows(trx: Trx, old: Row): Promise<void> {
  const { workspace_id: workspaceId, article_id: articleId } = old;
  await trx('content_index').where({ article_id: articleId }).delete();
  await closeSlot(trx, wsGroup(workspaceId), Number(old.ws_rank));
  await closeSlot(trx, catGroup(workspaceId, old.category), Number(old.cat_rank));
  for (const tag of JSON.parse(old.tags) as string[]) {
    const row = await trx('content_tags').where({ workspace_id: workspaceId, tag, article_id: articleId }).first('rank');
    if (!row) continue;
    await trx('content_tags').where({ workspace_id: workspaceId, tag, article_id: articleId }).delete();
    await closeSlot(trx, tagGroup(workspaceId, tag), Number(row.rank));
  }
  await trx('content_articles').where({ article_id: articleId }).delete();
  await removeFromSearch(trx, articleId);
  await rebuildBlock(trx, workspaceId, Number(old.sitemap_block));
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));

const searchEntry = (workspaceId: string, snap: PackedSnapshot) => ({ articleId: snap.index.id, workspaceId, article: snap.article, textTerms: snap.searchTerms });

/**
 * Store a run of new snapshots in a few statements, whatever its size: articles not in the
 * index, sorted oldest first, with no served article ranked among them (the caller checks; a run
 * of one always qualifies). The newer rows of each group move up by the run's length and the run
 * fills the gap, its sitemap block split as it grows; a run newer than everything is appended.
 */
export async function insertRun(trx: Trx, workspaceId: string, snaps: PackedSnapshot[]): Promise<void> {
  if (snaps.length === 0) return;
  const last = snaps[snaps.length - 1].index;
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
    articleRows.push({ article_id: index.id, article: snap.packed });
    for (const tag of index.tags) {
      tagRows.push({ workspace_id: workspaceId, tag: tag.slug, article_id: index.id, published_at: index.publishedAt, rank: take(`t:${tag.slug}`), category: index.category.slug });
    }
  }
  await insertRows(trx, 'content_index', indexRows);
  await insertRows(trx, 'content_articles', articleRows);
  await insertRows(trx, 'content_tags', tagRows);
  await indexForSearch(trx, snaps.map((x) => searchEntry(workspaceId, x)), true);
  if (!appending) await splitIfOversized(trx, workspaceId, block, blocks);
  for (const b of blocks) await rebuildBlock(trx, workspaceId, b);
  // Every group the run touched now holds its rows before the run and the run's.
  const sizes = new Map<string, number>();
  for (const [key, n] of length) if (key !== '') sizes.set(`${key.startsWith('c:') ? 'category' : 'tag'}:${key.slice(2)}`, (base.get(key) ?? 0) + (newer.get(key) ?? 0) + n);
  await refreshTerms(trx, workspaceId, snaps.flatMap(termsOf), sizes);
}

/** Rows ranked after `last` in the workspace, its categories and its tags (key '' / 'c:slug' / 't:slug'). */
async function newerCounts(db: Queryable, workspaceId: string, last: Snapshot['index'], categories: string[], tags: string[]): Promise<Map<string, number>> {
  // The `>=` bound is what the index seeks by; with the OR alone SQLite read every row of the group.
  const after = (q: Knex.QueryBuilder) => q.where('published_at', '>=', last.publishedAt).andWhere((w) => w.where('published_at', '>', last.publishedAt).orWhere('article_id', '>', last.id));
  const out = new Map<string, number>();
  const ws = await after(db('content_index').where({ workspace_id: workspaceId })).count({ n: '*' }).first();
  out.set('', Number(ws?.n ?? 0));
  if (out.get('') === 0) return out;
  for (const [table, column, prefix, slugs] of [['content_index', 'category', 'c:', categories], ['content_tags', 'tag', 't:', tags]] as const) {
    const unique = [...new Set(slugs)];
    for (let i = 0; i < unique.length; i += 500) {
      const rows = await after(db(table).where({ workspace_id: workspaceId }).whereIn(column, unique.slice(i, i + 500))).groupBy(column).select(column).count({ n: '*' });
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

const indexRow = (workspaceId: string, snap: PackedSnapshot): Row => ({
  workspace_id: workspaceId,
  slug: snap.index.slug,
  category: snap.index.category.slug,
  published_at: snap.index.publishedAt,
  updated_at: snap.index.updatedAt,
  tags: JSON.stringify(snap.index.tags.map((t) => t.slug)),
  index_json: snap.indexJson,
  sitemap_json: snap.sitemapEntry,
});

/** Record when the workspace's served content changed; on PostgreSQL the upsert also serialises writers of one workspace. */
export async function touchState(db: Queryable, workspaceId: string, at: string): Promise<void> {
  await db('content_state').insert({ workspace_id: workspaceId, changed_at: at }).onConflict('workspace_id').merge(['changed_at']);
}

/** The slugs the content API serves these articles under (an article not served is absent). */
export async function servedSlugs(db: Queryable, articleIds: string[]): Promise<Map<string, string>> {
  const rows = await rowsByKeys(db, 'content_index', 'article_id', articleIds, ['article_id', 'slug']);
  return new Map(rows.map((r) => [r.article_id as string, r.slug as string]));
}

// Ranks.

export interface RankGroup {
  table: 'content_index' | 'content_tags';
  where: Record<string, string>;
  column: 'ws_rank' | 'cat_rank' | 'rank';
}

export const wsGroup = (workspaceId: string): RankGroup => ({ table: 'content_index', where: { workspace_id: workspaceId }, column: 'ws_rank' });
export const catGroup = (workspaceId: string, category: string): RankGroup => ({ table: 'content_index', where: { workspace_id: workspaceId, category }, column: 'cat_rank' });
export const tagGroup = (workspaceId: string, tag: string): RankGroup => ({ table: 'content_tags', where: { workspace_id: workspaceId, tag }, column: 'rank' });

/** Close the gap left at `rank` by a removed row. */
async function closeSlot(db: Queryable, g: RankGroup, rank: number): Promise<void> {
  await db(g.table).where(g.where).andWhere(g.column, '>', rank).decrement(g.column, 1);
}

/** Number of rows in the group: the top rank + 1 (an index seek, not a COUNT). */
export async function groupSize(db: Queryable, g: RankGroup): Promise<number> {
  const row = await db(g.table).where(g.where).orderBy(g.column, 'desc').first(g.column);
  return row ? Number(row[g.column]) + 1 : 0;
}

/**
 * groupSize for many categories or tags of a workspace, one statement per 100: each group's top
 * rank is an index seek (a grouped max() would read every row of the groups). Absent groups are empty.
 */
async function groupSizes(db: Queryable, workspaceId: string, kind: 'category' | 'tag', slugs: string[]): Promise<Map<string, number>> {
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

// Sitemap blocks.

/** Articles per sitemap block (a block can grow past it when older posts are inserted in the middle). */
const BLOCK_SIZE = 256;

async function blockSize(db: Queryable, workspaceId: string, block: number): Promise<number> {
  const row = await db('content_index').where({ workspace_id: workspaceId, sitemap_block: block }).count<{ n: number }>({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/** The newest block and how many rows it holds (for appending). */
async function lastBlock(db: Queryable, workspaceId: string): Promise<{ block: number; size: number }> {
  const row = await db('content_index').where({ workspace_id: workspaceId }).orderBy('ws_rank', 'desc').first('sitemap_block');
  if (!row) return { block: 0, size: 0 };
  const block = Number(row.sitemap_block);
  return { block, size: await blockSize(db, workspaceId, block) };
}

/**
 * Split a block grown past twice BLOCK_SIZE (older posts inserted in the middle), so no rebuild
 * joins thousands of entries: blocks above it move up by one and its newer half becomes the block
 * above it. `touched` (the blocks the caller will rebuild) is renumbered and gains both halves.
 */
async function splitIfOversized(db: Queryable, workspaceId: string, block: number, touched: Set<number>): Promise<void> {
  const size = await blockSize(db, workspaceId, block);
  if (size <= 2 * BLOCK_SIZE) return;
  const ws = { workspace_id: workspaceId };
  await db('content_index').where(ws).andWhere('sitemap_block', '>', block).increment('sitemap_block', 1);
  // (workspace_id, block) is the key of the joined blocks: park them at negative numbers, then
  // bring them back one higher, so no row collides with another on the way (PostgreSQL checks
  // the key row by row).
  await db('content_sitemap_blocks').where(ws).andWhere('block', '>', block).update({ block: db.raw('-1 - ??', ['block']) });
  await db('content_sitemap_blocks').where(ws).andWhere('block', '<', 0).update({ block: db.raw('0 - ??', ['block']) });
  const middle = await db('content_index').where({ ...ws, sitemap_block: block }).orderBy('ws_rank').offset(Math.floor(size / 2)).first('ws_rank');
  await db('content_index').where({ ...ws, sitemap_block: block }).andWhere('ws_rank', '>=', Number(middle.ws_rank)).update({ sitemap_block: block + 1 });
  const renumbered = [...touched].map((b) => (b > block ? b + 1 : b));
  touched.clear();
  for (const b of [...renumbered, block, block + 1]) touched.add(b);
  // A run inserted at once may leave either half still oversized.
  await splitIfOversized(db, workspaceId, block + 1, touched);
  await splitIfOversized(db, workspaceId, block, touched);
}

/**
 * Re-join a block's entries from its rows, newest first; an empty block is removed. The rows are
 * put in order here: with an ORDER BY, SQLite (no statistics in a deployed file) walked the
 * workspace's whole rank index to skip the sort of a few hundred rows.
 */
async function rebuildBlock(db: Queryable, workspaceId: string, block: number): Promise<void> {
  const rows: Array<{ sitemap_json: string; ws_rank: number | string }> = await db('content_index').where({ workspace_id: workspaceId, sitemap_block: block }).select('sitemap_json', 'ws_rank');
  const key = { workspace_id: workspaceId, block };
  if (rows.length === 0) {
    await db('content_sitemap_blocks').where(key).delete();
    return;
  }
  const entries = rows.sort((a, b) => Number(b.ws_rank) - Number(a.ws_rank)).map((r) => r.sitemap_json).join(',');
  await db('content_sitemap_blocks').insert({ ...key, entries }).onConflict(['workspace_id', 'block']).merge(['entries']);
}

/** The whole sitemap's article entries, newest first. */
export async function sitemapEntries(db: Queryable, workspaceId: string): Promise<string[]> {
  const rows = await db('content_sitemap_blocks').where({ workspace_id: workspaceId }).orderBy('block', 'desc').select('entries');
  return rows.map((r: { entries: string }) => r.entries);
}

// Terms.

/** A category or tag a change touched, with the lastmod that change gives it. */
interface TermChange {
  kind: 'category' | 'tag';
  slug: string;
  /** Known when the change added or updated a post in it; a removal-only change keeps the stored title. */
  title?: string;
  /** The updatedAt of the post added or updated in it, or now for a removal; the stored lastmod never goes backwards. */
  lastmod: string;
}

/** The categories and tags a stored snapshot is listed under, at its updatedAt. */
const termsOf = (snap: Pick<Snapshot, 'index'>): TermChange[] => [
  { kind: 'category', slug: snap.index.category.slug, title: snap.index.category.title, lastmod: snap.index.updatedAt },
  ...snap.index.tags.map((t) => ({ kind: 'tag' as const, slug: t.slug, title: t.title, lastmod: snap.index.updatedAt })),
];

/**
 * Counts (top rank + 1) and lastmod of the categories and tags a change touched, in a few
 * queries; empty ones go. `known`: counts the caller already has ('category:slug', 'tag:slug').
 */
async function refreshTerms(db: Queryable, workspaceId: string, changes: TermChange[], known = new Map<string, number>()): Promise<void> {
  const byKey = new Map<string, TermChange>();
  for (const c of changes) {
    const prev = byKey.get(`${c.kind}:${c.slug}`);
    byKey.set(`${c.kind}:${c.slug}`, prev ? { ...prev, title: c.title ?? prev.title, lastmod: c.lastmod > prev.lastmod ? c.lastmod : prev.lastmod } : c);
  }
  const merged = [...byKey.values()];
  const counts = new Map(known);
  for (const kind of ['category', 'tag'] as const) {
    const slugs = merged.filter((t) => t.kind === kind && !known.has(`${kind}:${t.slug}`)).map((t) => t.slug);
    for (const [slug, n] of await groupSizes(db, workspaceId, kind, slugs)) counts.set(`${kind}:${slug}`, n);
  }
  // A term's lastmod never goes backwards: each statement keeps the later of the stored one and the change's.
  const gone: TermChange[] = [];
  const upserts: Record<string, unknown>[] = [];
  for (const term of merged) {
    const count = counts.get(`${term.kind}:${term.slug}`) ?? 0;
    const key = { workspace_id: workspaceId, kind: term.kind, slug: term.slug };
    if (count === 0) gone.push(term);
    else if (term.title !== undefined) upserts.push({ ...key, title: term.title, count, lastmod: term.lastmod });
    else await db('content_terms').where(key).update({ count, lastmod: db.raw('case when lastmod > ? then lastmod else ? end', [term.lastmod, term.lastmod]) });
  }
  const later = db.raw('case when ?? > ?? then ?? else ?? end', ['content_terms.lastmod', 'excluded.lastmod', 'content_terms.lastmod', 'excluded.lastmod']);
  for (let i = 0; i < upserts.length; i += 100) {
    await db('content_terms')
      .insert(upserts.slice(i, i + 100))
      .onConflict(['workspace_id', 'kind', 'slug'])
      .merge({ title: db.raw('??', ['excluded.title']), count: db.raw('??', ['excluded.count']), lastmod: later });
  }
  for (const kind of ['category', 'tag'] as const) {
    const slugs = gone.filter((t) => t.kind === kind).map((t) => t.slug);
    for (let i = 0; i < slugs.length; i += 500) await db('content_terms').where({ workspace_id: workspaceId, kind }).whereIn('slug', slugs.slice(i, i + 500)).delete();
  }
}

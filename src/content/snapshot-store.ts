import type { Knex } from 'knex';
import type { Ctx } from '../context.js';
import { type Queryable, type Row, type Trx, writeOn } from '../db/connect.js';
import { rowsByKeys } from '../db/by-keys.js';
import { insertRows } from '../db/insert-rows.js';
import type { Article } from '../articles/types.js';
import type { Workspace } from '../workspaces/types.js';
import type { Publication } from '../connectors/publications.js';
import { nowIso } from '../lib/clock.js';
import { indexForSearch, removeFromSearch } from './search-store.js';
import type { RenderedBody } from '../lib/markdown.js';
import { type PackedSnapshot, type Snapshot, buildSnapshot, packSnapshot } from './snapshot.js';

// Dense ranks (0 = oldest), sitemap blocks and term counts, written in the publishing transaction (docs/architecture.md).

/** The order of ranks. */
const byRank = (a: PackedSnapshot, b: PackedSnapshot) =>
  a.index.publishedAt < b.index.publishedAt ? -1 : a.index.publishedAt > b.index.publishedAt ? 1 : a.index.id < b.index.id ? -1 : a.index.id > b.index.id ? 1 : 0;

/** An article being published: its rendered body, or its snapshot (publishMany makes them while the batch before is written). */
export type SnapshotEntry = { article: Article; publication: Publication } & ({ rendered: RenderedBody } | { packed: PackedSnapshot });

/** A republish that keeps publishedAt, category and tags is updated in place; any other is removed and inserted again. */
export async function writeSnapshots(trx: Trx, ctx: Ctx, ws: Workspace, entries: SnapshotEntry[]): Promise<void> {
  const now = nowIso(ctx.clock);
  // First: on PostgreSQL it serialises writers of the workspace, so the ranks read below hold.
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

/** Unpublish, delete; a no-op without a snapshot. */
export async function removeSnapshot(trx: Trx, articleId: string, now: string): Promise<void> {
  const old = await trx('content_index').where({ article_id: articleId }).first();
  if (!old) return;
  await touchState(trx, old.workspace_id, now);
  await dropRows(trx, old);
  const tags: string[] = JSON.parse(old.tags);
  await refreshTerms(trx, old.workspace_id, [{ kind: 'category', slug: old.category, lastmod: now }, ...tags.map((slug) => ({ kind: 'tag' as const, slug, lastmod: now }))]);
}

/** Every row of a stored snapshot but its terms' counts. */
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
  await removeFromSearch(trx, [articleId]);
  await rebuildBlock(trx, workspaceId, Number(old.sitemap_block));
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));

const searchEntry = (workspaceId: string, snap: PackedSnapshot) => ({ articleId: snap.index.id, workspaceId, article: snap.article, textTerms: snap.searchTerms });

/** New snapshots, oldest first, with no served one ranked among them: each group's newer rows move up by the run's length. */
export async function insertRun(trx: Trx, workspaceId: string, snaps: PackedSnapshot[]): Promise<void> {
  const categories = snaps.map((x) => x.index.category.slug);
  const tags = snaps.flatMap((x) => x.index.tags.map((t) => t.slug));
  // Where each group's part of the run starts: its size less the rows newer than the run.
  const newer = await newerCounts(trx, workspaceId, snaps[snaps.length - 1].index, categories, tags);
  const base = new Map<string, number>([['', (await groupSize(trx, wsGroup(workspaceId))) - (newer.get('') ?? 0)]]);
  for (const [slug, n] of await groupSizes(trx, workspaceId, 'category', categories)) base.set(`category:${slug}`, n - (newer.get(`category:${slug}`) ?? 0));
  for (const [slug, n] of await groupSizes(trx, workspaceId, 'tag', tags)) base.set(`tag:${slug}`, n - (newer.get(`tag:${slug}`) ?? 0));
  const length = new Map<string, number>([['', snaps.length]]);
  for (const key of [...categories.map((c) => `category:${c}`), ...tags.map((t) => `tag:${t}`)]) length.set(key, (length.get(key) ?? 0) + 1);
  for (const [key, n] of newer) {
    if (n === 0) continue;
    const g = key === '' ? wsGroup(workspaceId) : key.startsWith('tag:') ? tagGroup(workspaceId, key.slice(4)) : catGroup(workspaceId, key.slice(9));
    await trx(g.table).where(g.where).andWhere(g.column, '>=', base.get(key) ?? 0).increment(g.column, length.get(key)!);
  }
  // From here `base` holds each group's next rank.
  const take = (key: string) => base.set(key, (base.get(key) ?? 0) + 1).get(key)! - 1;
  const appending = (newer.get('') ?? 0) === 0;
  let { block, size } = appending ? await lastBlock(trx, workspaceId) : { block: await neighbourBlock(trx, workspaceId, base.get('')!, snaps.length), size: 0 };
  const blocks = new Set<number>([block]);
  const indexRows: Row[] = [];
  const articleRows: Row[] = [];
  const tagRows: Row[] = [];
  for (const snap of snaps) {
    const { index } = snap;
    if (appending && size >= BLOCK_SIZE) {
      block += 1;
      size = 0;
      blocks.add(block);
    }
    size += 1;
    indexRows.push({ ...indexRow(workspaceId, snap), article_id: index.id, ws_rank: take(''), cat_rank: take(`category:${index.category.slug}`), sitemap_block: block });
    articleRows.push({ article_id: index.id, article: snap.packed });
    for (const tag of index.tags) {
      tagRows.push({ workspace_id: workspaceId, tag: tag.slug, article_id: index.id, published_at: index.publishedAt, rank: take(`tag:${tag.slug}`), category: index.category.slug });
    }
  }
  await insertRows(trx, 'content_index', indexRows);
  await insertRows(trx, 'content_articles', articleRows);
  await insertRows(trx, 'content_tags', tagRows);
  await indexForSearch(trx, snaps.map((x) => searchEntry(workspaceId, x)), true);
  if (!appending) await splitIfOversized(trx, workspaceId, block, blocks);
  for (const b of blocks) await rebuildBlock(trx, workspaceId, b);
  const sizes = new Map<string, number>();
  for (const key of length.keys()) if (key !== '') sizes.set(key, base.get(key)! + (newer.get(key) ?? 0));
  await refreshTerms(trx, workspaceId, snaps.flatMap(termsOf), sizes);
}

/** Rows ranked after `last` in the workspace ('') and the categories and tags ('category:slug', 'tag:slug'). */
async function newerCounts(db: Queryable, workspaceId: string, last: Snapshot['index'], categories: string[], tags: string[]): Promise<Map<string, number>> {
  // The `>=` bound is what the index seeks by; with the OR alone SQLite read every row of the group.
  const after = (q: Knex.QueryBuilder) => q.where('published_at', '>=', last.publishedAt).andWhere((w) => w.where('published_at', '>', last.publishedAt).orWhere('article_id', '>', last.id));
  const ws = await after(db('content_index').where({ workspace_id: workspaceId })).count({ n: '*' }).first();
  const out = new Map([['', Number(ws?.n ?? 0)]]);
  if (out.get('') === 0) return out;
  for (const [table, column, slugs] of [['content_index', 'category', categories], ['content_tags', 'tag', tags]] as const) {
    const unique = [...new Set(slugs)];
    for (let i = 0; i < unique.length; i += 500) {
      const rows = await after(db(table).where({ workspace_id: workspaceId }).whereIn(column, unique.slice(i, i + 500))).groupBy(column).select(column).count({ n: '*' });
      for (const r of rows as Row[]) out.set(`${column}:${r[column]}`, Number(r.n));
    }
  }
  return out;
}

/** A run inserted at `rank` joins its older neighbour's block, else its newer one's (moved up by `length`). */
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

/** On PostgreSQL the upsert also serialises writers of one workspace. */
export async function touchState(db: Queryable, workspaceId: string, at: string): Promise<void> {
  await writeOn(db)('content_state').insert({ workspace_id: workspaceId, changed_at: at }).onConflict('workspace_id').merge(['changed_at']);
}

export async function servedSlugs(db: Queryable, articleIds: string[]): Promise<Map<string, string>> {
  const rows = await rowsByKeys(db, 'content_index', 'article_id', articleIds, ['article_id', 'slug']);
  return new Map(rows.map((r) => [r.article_id as string, r.slug as string]));
}

export interface RankGroup {
  table: 'content_index' | 'content_tags';
  where: Record<string, string>;
  column: 'ws_rank' | 'cat_rank' | 'rank';
}

export const wsGroup = (workspaceId: string): RankGroup => ({ table: 'content_index', where: { workspace_id: workspaceId }, column: 'ws_rank' });
export const catGroup = (workspaceId: string, category: string): RankGroup => ({ table: 'content_index', where: { workspace_id: workspaceId, category }, column: 'cat_rank' });
export const tagGroup = (workspaceId: string, tag: string): RankGroup => ({ table: 'content_tags', where: { workspace_id: workspaceId, tag }, column: 'rank' });

async function closeSlot(db: Queryable, g: RankGroup, rank: number): Promise<void> {
  await writeOn(db)(g.table).where(g.where).andWhere(g.column, '>', rank).decrement(g.column, 1);
}

/** The top rank + 1: an index seek, not a COUNT. */
export async function groupSize(db: Queryable, g: RankGroup): Promise<number> {
  const row = await db(g.table).where(g.where).orderBy(g.column, 'desc').first(g.column);
  return row ? Number(row[g.column]) + 1 : 0;
}

/** groupSize of many, one statement per 100 (a grouped max() would read every row of the groups). */
async function groupSizes(db: Queryable, workspaceId: string, kind: 'category' | 'tag', slugs: string[]): Promise<Map<string, number>> {
  const [table, column, rank] = kind === 'category' ? ['content_index', 'category', 'cat_rank'] : ['content_tags', 'tag', 'rank'];
  const out = new Map<string, number>();
  const unique = [...new Set(slugs)];
  const seek = `select cast(? as text) as slug, (select "${rank}" from "${table}" where workspace_id = ? and "${column}" = ? order by "${rank}" desc limit 1) as top`;
  for (let i = 0; i < unique.length; i += 100) {
    const chunk = unique.slice(i, i + 100);
    const rows = (await db.from(db.raw(`(${chunk.map(() => seek).join(' union all ')}) as g`, chunk.flatMap((slug) => [slug, workspaceId, slug]))).select('slug', 'top')) as Array<{ slug: string; top: unknown }>;
    for (const r of rows) if (r.top !== null && r.top !== undefined) out.set(r.slug, Number(r.top) + 1);
  }
  return out;
}

/** Articles per sitemap block (one grows past it when older posts are inserted in the middle). */
const BLOCK_SIZE = 256;

async function blockSize(db: Queryable, workspaceId: string, block: number): Promise<number> {
  return Number((await db('content_index').where({ workspace_id: workspaceId, sitemap_block: block }).count<{ n: number }>({ n: '*' }).first())?.n ?? 0);
}

async function lastBlock(db: Queryable, workspaceId: string): Promise<{ block: number; size: number }> {
  const row = await db('content_index').where({ workspace_id: workspaceId }).orderBy('ws_rank', 'desc').first('sitemap_block');
  const block = Number(row?.sitemap_block ?? 0);
  return { block, size: row ? await blockSize(db, workspaceId, block) : 0 };
}

/** Split a block past twice BLOCK_SIZE, so no rebuild joins thousands of entries; `touched` (to rebuild) is renumbered. */
async function splitIfOversized(db: Queryable, workspaceId: string, block: number, touched: Set<number>): Promise<void> {
  const size = await blockSize(db, workspaceId, block);
  if (size <= 2 * BLOCK_SIZE) return;
  const ws = { workspace_id: workspaceId };
  await writeOn(db)('content_index').where(ws).andWhere('sitemap_block', '>', block).increment('sitemap_block', 1);
  // Parked at negative numbers first: PostgreSQL checks the (workspace_id, block) key row by row.
  await writeOn(db)('content_sitemap_blocks').where(ws).andWhere('block', '>', block).update({ block: db.raw('-1 - ??', ['block']) });
  await writeOn(db)('content_sitemap_blocks').where(ws).andWhere('block', '<', 0).update({ block: db.raw('0 - ??', ['block']) });
  const middle = await db('content_index').where({ ...ws, sitemap_block: block }).orderBy('ws_rank').offset(Math.floor(size / 2)).first('ws_rank');
  await writeOn(db)('content_index').where({ ...ws, sitemap_block: block }).andWhere('ws_rank', '>=', Number(middle.ws_rank)).update({ sitemap_block: block + 1 });
  const renumbered = [...touched].map((b) => (b > block ? b + 1 : b));
  touched.clear();
  for (const b of [...renumbered, block, block + 1]) touched.add(b);
  // A run inserted at once may leave either half still oversized.
  await splitIfOversized(db, workspaceId, block + 1, touched);
  await splitIfOversized(db, workspaceId, block, touched);
}

/**
 * Re-join a block's entries, newest first, sorted here: with an ORDER BY, SQLite (no statistics
 * in a deployed file) walked the workspace's whole rank index to skip sorting a few hundred rows.
 */
async function rebuildBlock(db: Queryable, workspaceId: string, block: number): Promise<void> {
  const rows: Array<{ sitemap_json: string; ws_rank: number | string }> = await db('content_index').where({ workspace_id: workspaceId, sitemap_block: block }).select('sitemap_json', 'ws_rank');
  const key = { workspace_id: workspaceId, block };
  const entries = rows.sort((a, b) => Number(b.ws_rank) - Number(a.ws_rank)).map((r) => r.sitemap_json).join(',');
  if (rows.length === 0) await writeOn(db)('content_sitemap_blocks').where(key).delete();
  else await writeOn(db)('content_sitemap_blocks').insert({ ...key, entries }).onConflict(['workspace_id', 'block']).merge(['entries']);
}

export async function sitemapEntries(db: Queryable, workspaceId: string): Promise<string[]> {
  return db('content_sitemap_blocks').where({ workspace_id: workspaceId }).orderBy('block', 'desc').pluck('entries');
}

/** A category or tag a change touched; no title for a removal (the stored one stays). */
interface TermChange {
  kind: 'category' | 'tag';
  slug: string;
  title?: string;
  lastmod: string;
}

const termsOf = (snap: Pick<Snapshot, 'index'>): TermChange[] => [
  { kind: 'category', slug: snap.index.category.slug, title: snap.index.category.title, lastmod: snap.index.updatedAt },
  ...snap.index.tags.map((t) => ({ kind: 'tag' as const, slug: t.slug, title: t.title, lastmod: snap.index.updatedAt })),
];

/** Counts and lastmod of the terms a change touched; empty ones go. `known`: counts by 'category:slug', 'tag:slug'. */
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
    else await writeOn(db)('content_terms').where(key).update({ count, lastmod: db.raw('case when lastmod > ? then lastmod else ? end', [term.lastmod, term.lastmod]) });
  }
  const later = db.raw('case when ?? > ?? then ?? else ?? end', ['content_terms.lastmod', 'excluded.lastmod', 'content_terms.lastmod', 'excluded.lastmod']);
  for (let i = 0; i < upserts.length; i += 100) {
    await writeOn(db)('content_terms')
      .insert(upserts.slice(i, i + 100))
      .onConflict(['workspace_id', 'kind', 'slug'])
      .merge({ title: db.raw('??', ['excluded.title']), count: db.raw('??', ['excluded.count']), lastmod: later });
  }
  for (const kind of ['category', 'tag'] as const) {
    const slugs = gone.filter((t) => t.kind === kind).map((t) => t.slug);
    for (let i = 0; i < slugs.length; i += 500) await writeOn(db)('content_terms').where({ workspace_id: workspaceId, kind }).whereIn('slug', slugs.slice(i, i + 500)).delete();
  }
}

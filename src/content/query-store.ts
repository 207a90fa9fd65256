import { type Db, type Queryable, type Row, isPostgres } from '../db/connect.js';
import { onPostgresPool, preparedRows } from '../db/prepared.js';
import type { RelatedPost, TermCount } from './schemas.js';
import { slugForms } from '../lib/slug.js';
import type { UrlSettings } from './article-url.js';
import type { ContentRoute } from './responses.js';
import { catGroup, groupSize, tagGroup, wsGroup } from './snapshot-store.js';
import { articleJson } from './snapshot.js';

export type PageQuery = Pick<Extract<ContentRoute, { kind: 'page' }>, 'page' | 'limit' | 'category' | 'tag'>;

/** Serialized ArticleIndex rows of one page, newest first, and the true total. */
export async function pageRows(db: Queryable, workspaceId: string, q: PageQuery): Promise<{ rows: string[]; total: number }> {
  if (q.category !== undefined && q.tag !== undefined) return bothFilters(db, workspaceId, q);
  const group = q.tag !== undefined ? tagGroup(workspaceId, q.tag) : q.category !== undefined ? catGroup(workspaceId, q.category) : wsGroup(workspaceId);
  const total = await groupSize(db, group);
  const top = total - 1 - q.page * q.limit; // rank of the page's newest row
  if (top < 0) return { rows: [], total };
  // Ranks are dense, so the page is exactly the ranks (top - limit, top]. Bounded on both sides,
  // so a PostgreSQL planner without statistics cannot read every row below the page.
  const rank = group.table === 'content_tags' ? 'g.rank' : `ci.${group.column}`;
  const from = group.table === 'content_tags' ? db('content_tags as g').join('content_index as ci', 'ci.article_id', 'g.article_id').where({ 'g.workspace_id': workspaceId, 'g.tag': q.tag }) : db('content_index as ci').where(group.where);
  return { rows: await from.andWhere(rank, '<=', top).andWhere(rank, '>', top - q.limit).orderBy(rank, 'desc').limit(q.limit).pluck('ci.index_json'), total };
}

// Category and tag together (AND): bounded by the tag's size.
async function bothFilters(db: Queryable, workspaceId: string, q: PageQuery): Promise<{ rows: string[]; total: number }> {
  const base = () =>
    db('content_tags as g').join('content_index as ci', 'ci.article_id', 'g.article_id').where({ 'g.workspace_id': workspaceId, 'g.tag': q.tag, 'ci.category': q.category });
  const total = Number((await base().count<{ n: number }>({ n: '*' }).first())?.n ?? 0);
  if (q.page * q.limit >= total) return { rows: [], total };
  return { rows: await base().orderBy('g.rank', 'desc').offset(q.page * q.limit).limit(q.limit).pluck('ci.index_json'), total };
}

export interface ArticleRow {
  id: string;
  /** As stored (slugs stored before NFC was the rule may be in NFD). */
  slug: string;
  category: string;
  tags: string[];
  updatedAt: string;
  json: string;
}

export async function articleRow(db: Queryable, workspaceId: string, slug: string): Promise<ArticleRow | undefined> {
  const row = await db('content_index as ci')
    .join('content_articles as ca', 'ca.article_id', 'ci.article_id')
    .where({ 'ci.workspace_id': workspaceId })
    .whereIn('ci.slug', slugForms(slug))
    .first('ci.article_id', 'ci.slug', 'ci.category', 'ci.tags', 'ci.updated_at', 'ci.index_json', 'ca.article');
  return row ? { id: row.article_id, slug: row.slug, category: row.category, tags: JSON.parse(row.tags), updatedAt: row.updated_at, json: articleJson(row.index_json, row.article) } : undefined;
}

/** The spelling a tag slug is stored in (an older tag may be in NFD): read only for slugs with two spellings. */
export async function storedTag(db: Queryable, workspaceId: string, tag: string): Promise<string> {
  const forms = slugForms(tag);
  if (forms.length === 1) return forms[0];
  const stored: string[] = await db('content_terms').where({ workspace_id: workspaceId, kind: 'tag' }).whereIn('slug', forms).pluck('slug');
  return stored.includes(forms[0]) ? forms[0] : (stored[0] ?? forms[0]);
}

export async function urlSettings(db: Queryable, workspaceId: string): Promise<(UrlSettings & { updatedAt: string }) | null> {
  const row = await db('workspaces').where({ id: workspaceId }).first('site_url', 'website_url', 'content_path', 'updated_at');
  return row ? { siteUrl: row.site_url ?? null, websiteUrl: row.website_url, contentPath: row.content_path, updatedAt: row.updated_at } : null;
}

/** How many of each tag's newest posts are considered for related posts (keeps the cost flat). */
const RELATED_WINDOW = 100;

/** Up to 3: most shared tags, then same category, then newest; the category's newest fill what is left. */
export async function relatedPosts(db: Queryable, workspaceId: string, a: ArticleRow): Promise<RelatedPost[]> {
  const tags = [...new Set(a.tags)];
  const picked: Row[] = tags.length ? await sharingTags(db, workspaceId, a, tags) : [];
  if (picked.length < 3) {
    picked.push(
      ...(await db('content_index')
        .where({ workspace_id: workspaceId, category: a.category })
        .whereNotIn('article_id', [a.id, ...picked.map((r) => r.article_id as string)])
        .orderBy('cat_rank', 'desc')
        .limit(3 - picked.length)
        .select('article_id', 'index_json')),
    );
  }
  return picked.map((r) => {
    const index = JSON.parse(r.index_json);
    return { id: index.id, headline: index.headline, slug: index.slug };
  });
}

/**
 * Windows read from the content_tags_window index alone, and only the 3 winners' index rows, so no
 * index JSON goes through a sort. A tag row an older daemon wrote has no category: its index row has it.
 */
async function sharingTags(db: Queryable, workspaceId: string, a: ArticleRow, tags: string[]): Promise<Row[]> {
  const windows = tags
    .map(() => `select * from (select article_id, category, published_at from content_tags where workspace_id = ? and tag = ? order by rank desc limit ${RELATED_WINDOW}) as w`)
    .join(' union all ');
  const category = 'coalesce(c.category, (select category from content_index as o where o.article_id = c.article_id))';
  const grouped = `select c.article_id, count(*) as shared, max(case when ${category} = ? then 1 else 0 end) as same, max(c.published_at) as at from (${windows}) as c where c.article_id <> ? group by c.article_id`;
  // A sort that keeps its best 3, numbered in the database's collation, put back in that order here.
  const best = `select article_id, shared, same, at from (${grouped}) as g order by shared desc, same desc, at desc, article_id desc limit 3`;
  const ranked = `select article_id, row_number() over (order by shared desc, same desc, at desc, article_id desc) as pos from (${best}) as b`;
  // On PostgreSQL by key in a lateral subquery (as db/by-keys.ts), so no plan scans content_index.
  const index = isPostgres(db)
    ? 'cross join lateral (select index_json from content_index where article_id = s.article_id offset 0) as ci'
    : 'join content_index as ci on ci.article_id = s.article_id';
  const sql = `select s.article_id, s.pos, ci.index_json from (${ranked}) as s ${index}`;
  const result = await db.raw(sql, [a.category, ...tags.flatMap((tag) => [workspaceId, tag]), a.id] as never);
  const rows: Row[] = isPostgres(db) ? (result as { rows: Row[] }).rows : (result as Row[]);
  return rows.sort((x, y) => Number(x.pos) - Number(y.pos));
}

export type TermRow = TermCount & { lastmod: string };

export async function termRows(db: Queryable, workspaceId: string, kind: 'category' | 'tag'): Promise<TermRow[]> {
  return db('content_terms').where({ workspace_id: workspaceId, kind }).orderBy('count', 'desc').orderBy('slug').select('title', 'slug', 'count', 'lastmod');
}

/** When the workspace's content last changed; before its first publish, when it was created (every 200 carries Last-Modified). */
export async function changedAt(db: Queryable, workspaceId: string): Promise<string | null> {
  const row = await db('workspaces as w')
    .leftJoin('content_state as cs', 'cs.workspace_id', 'w.id')
    .where('w.id', workspaceId)
    .first('cs.changed_at', 'w.created_at');
  return row ? (row.changed_at ?? row.created_at) : null;
}

/** By primary key; a workspace that does not exist is absent. */
export async function contentVersions(db: Queryable, workspaceIds: string[]): Promise<Map<string, number>> {
  // Every cached GET waits for this read: on PostgreSQL a named statement (knex's building of it cost 15-20 % of a cached GET's CPU).
  if (onPostgresPool(db)) {
    const rows = await preparedRows(db as Db, 'svc_content_versions', 'select id, content_version from workspaces where id = any($1::text[])', [workspaceIds]);
    return new Map(rows.map(([id, version]) => [id as string, Number(version)]));
  }
  const versions = new Map<string, number>();
  // In slices: SQLite bounds a statement's parameters.
  for (let i = 0; i < workspaceIds.length; i += 500) {
    for (const row of await db('workspaces').whereIn('id', workspaceIds.slice(i, i + 500)).select('id', 'content_version')) versions.set(row.id, Number(row.content_version));
  }
  return versions;
}

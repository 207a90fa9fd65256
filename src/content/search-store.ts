import type { Knex } from 'knex';
import { isPostgres, type Queryable, type Row, writeOn } from '../db/connect.js';
import { rowsByKeys } from '../db/by-keys.js';
import { type SearchQuery, searchDocument } from './search-terms.js';
import { type StoredArticle, articleJson } from './snapshot.js';
import { htmlSearchTerms } from '../lib/markdown.js';
import type { PageQuery } from './query-store.js';

// SQLite: contentless FTS5, rowid = content_search.id. PostgreSQL: a 'simple' tsvector, title A and body D, under a GIN index.

/** The most matches a search ranks and counts (Page.total); see searchRows. */
export const MATCH_CAP = 1000;

/** Title column weight against the body's (bm25 on SQLite; A vs D is 10:1 in ts_rank too). */
const TITLE_WEIGHT = 10;

export interface SearchEntry {
  articleId: string;
  workspaceId: string;
  article: Pick<StoredArticle, 'title' | 'outline' | 'metaDescription'>;
  textTerms: string;
}

/** `fresh`: none of them is indexed yet, so there is nothing to replace. */
export async function indexForSearch(db: Queryable, entries: SearchEntry[], fresh = false): Promise<void> {
  for (let i = 0; i < entries.length; i += 200) {
    const chunk = entries.slice(i, i + 200);
    const docs = chunk.map((e) => ({ ...e, doc: searchDocument(e.article, e.textTerms) }));
    if (isPostgres(db)) {
      await db('content_search')
        .insert(docs.map((d) => ({ article_id: d.articleId, workspace_id: d.workspaceId, document: db.raw("setweight(to_tsvector('simple', ?), 'A') || setweight(to_tsvector('simple', ?), 'D')", [d.doc.title, d.doc.body]) })))
        .onConflict('article_id')
        .merge(['workspace_id', 'document']);
      continue;
    }
    if (!fresh) await removeFromSearch(db, chunk.map((e) => e.articleId));
    const rows: Row[] = await writeOn(db)('content_search').insert(docs.map((d) => ({ article_id: d.articleId, workspace_id: d.workspaceId }))).returning(['id', 'article_id']);
    const byArticle = new Map(docs.map((d) => [d.articleId, d.doc]));
    await writeOn(db)('content_search_fts').insert(rows.map((r) => ({ rowid: r.id, ...byArticle.get(r.article_id)! })));
  }
}

export async function removeFromSearch(db: Queryable, articleIds: string[]): Promise<void> {
  if (!isPostgres(db)) await writeOn(db)('content_search_fts').whereIn('rowid', db('content_search').whereIn('article_id', articleIds).select('id')).delete();
  await writeOn(db)('content_search').whereIn('article_id', articleIds).delete();
}

/** Index every stored snapshot again from scratch (migrations, `svc db copy`); a migration passes how its snapshots were stored then. */
export async function rebuildSearchIndex(db: Queryable, articleOf = (r: Row): SearchEntry['article'] & Pick<StoredArticle, 'html'> => JSON.parse(articleJson(r.index_json, r.article))): Promise<number> {
  if (!isPostgres(db)) await writeOn(db)('content_search_fts').delete();
  await writeOn(db)('content_search').delete();
  let done = 0;
  let after = '';
  for (;;) {
    const rows: Row[] = await db('content_articles as ca')
      .join('content_index as ci', 'ci.article_id', 'ca.article_id')
      .where('ca.article_id', '>', after)
      .orderBy('ca.article_id')
      .limit(500)
      .select('ca.*', 'ci.workspace_id', 'ci.index_json');
    if (rows.length === 0) return done;
    const entries = rows.map((r) => {
      const article = articleOf(r);
      return { articleId: r.article_id, workspaceId: r.workspace_id, article, textTerms: htmlSearchTerms(article.html) };
    });
    await indexForSearch(db, entries, true);
    done += rows.length;
    after = rows[rows.length - 1].article_id;
  }
}

/** `cap`: MATCH_CAP unless a test lowers it. */
type SearchFilter = Omit<PageQuery, 'page'> & { offset: number; cap?: number };

/** Serialized ArticleIndex rows of one page of matches, best first (then newest), and the number of matches (at most MATCH_CAP). */
export async function searchRows(db: Queryable, workspaceId: string, query: SearchQuery, f: SearchFilter): Promise<{ rows: string[]; total: number }> {
  const pg = isPostgres(db);
  const match = pg ? pgQuery(query) : { sql: 'content_search_fts MATCH ?', bindings: [ftsQuery(query)] };
  const candidates = pg
    ? db('content_search as s').join('content_index as ci', 'ci.article_id', 's.article_id').whereRaw(`s.document @@ ${match.sql}`, match.bindings)
    : // CROSS JOIN: SQLite's planner otherwise starts from the workspace's rows and runs the
      // MATCH once per row (cost growing with the workspace); the full-text match goes first.
      db('content_search_fts').crossJoin('content_search as s', 's.id', 'content_search_fts.rowid').crossJoin('content_index as ci', 'ci.article_id', 's.article_id').whereRaw(match.sql, match.bindings);
  candidates.where('s.workspace_id', workspaceId);
  if (f.category !== undefined) candidates.where('ci.category', f.category);
  if (f.tag !== undefined) candidates.whereExists((sub: Knex.QueryBuilder) => sub.select(db.raw('1')).from('content_tags as g').where({ 'g.workspace_id': workspaceId, 'g.tag': f.tag }).whereRaw('g.article_id = ci.article_id'));
  // At most MATCH_CAP matches are ranked (SQLite: the most recently indexed; PostgreSQL: the
  // first the index yields), so a word in every article costs like one in a thousand.
  const score = pg ? db.raw(`ts_rank(s.document, ${match.sql}, 1) as score`, match.bindings) : db.raw(`-bm25(content_search_fts, ${TITLE_WEIGHT}.0, 1.0) as score`);
  candidates.select('ci.article_id as id', 'ci.published_at as at', score).limit(f.cap ?? MATCH_CAP);
  if (!pg) candidates.orderBy('content_search_fts.rowid', 'desc');
  const found: Row[] = await candidates;
  found.sort((a, b) => Number(b.score) - Number(a.score) || (a.at < b.at ? 1 : a.at > b.at ? -1 : 0) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const ids = found.slice(f.offset, f.offset + f.limit).map((r) => r.id as string);
  const json = new Map((await rowsByKeys(db, 'content_index', 'article_id', ids, ['article_id', 'index_json'])).map((r) => [r.article_id, r.index_json as string]));
  return { rows: ids.flatMap((id) => json.get(id) ?? []), total: found.length };
}

/** FTS5: every part a quoted string (so no query syntax gets through), implicitly ANDed. */
function ftsQuery(q: SearchQuery): string {
  const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;
  return [...q.words.map(quote), ...q.phrases.map((p) => quote(p.join(' '))), ...q.prefixes.map((c) => `${quote(c)}*`)].join(' ');
}

/** PostgreSQL: parsed by the same 'simple' configuration as the documents, ANDed. */
function pgQuery(q: SearchQuery): { sql: string; bindings: string[] } {
  const parts = [
    ...(q.words.length ? [["plainto_tsquery('simple', ?)", q.words.join(' ')]] : []),
    ...q.phrases.map((p) => ["phraseto_tsquery('simple', ?)", p.join(' ')]),
    // Prefixes are letters only (search-terms.ts), so quoting cannot be escaped out of.
    ...q.prefixes.map((c) => ["to_tsquery('simple', ?)", `'${c}':*`]),
  ];
  return { sql: `(${parts.map((p) => p[0]).join(' && ')})`, bindings: parts.map((p) => p[1]) };
}

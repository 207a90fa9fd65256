import { createHash } from 'node:crypto';
import type { Queryable } from '../db/connect.js';
import * as q from './query-store.js';
import { sitemapEntries } from './snapshot-store.js';
import { searchRows } from './search-store.js';
import { parseSearchQuery } from './search-terms.js';
import type { CachedResponse } from './delivery.js';
import { isValidSlug } from '../lib/slug.js';
import { articleJsonWithUrl, sitemapEntriesWithUrls, urlPrefix } from './article-url.js';

/** What a content API request asks for, validated (see http/content-api.ts). */
export type ContentRoute =
  | { kind: 'page'; page: number; limit: number; category?: string; tag?: string; q?: string }
  | { kind: 'article'; slug: string }
  | { kind: 'categories' }
  | { kind: 'tags' }
  | { kind: 'sitemap' };

export function routeKey(r: ContentRoute): string {
  switch (r.kind) {
    case 'page':
      return `page\0${r.page}\0${r.limit}\0${r.category ?? '\u0001'}\0${r.tag ?? '\u0001'}${r.q === undefined ? '' : `\0q\0${r.q}`}`;
    case 'article':
      return `article\0${r.slug}`;
    default:
      return r.kind;
  }
}

/** Lists and the sitemap are concatenations of JSON serialized at publish time; nothing is rendered here. */
export async function buildResponse(db: Queryable, workspaceId: string, route: ContentRoute, version: number): Promise<CachedResponse> {
  switch (route.kind) {
    case 'page': {
      const page = (rows: string[], total: number) => `{"data":{"articles":[${rows.join(',')}],"total":${total},"page":${route.page},"limit":${route.limit}}}`;
      // A filter that is no slug at all names nothing: the empty Page of an unknown slug, on every database.
      if ([route.category, route.tag].some((s) => s !== undefined && !isValidSlug(s))) return ok(page([], 0), await q.changedAt(db, workspaceId), version);
      const tag = route.tag === undefined ? undefined : await q.storedTag(db, workspaceId, route.tag);
      const listed = route.q === undefined ? q.pageRows(db, workspaceId, { ...route, tag }) : searchRows(db, workspaceId, parseSearchQuery(route.q), { ...route, tag, offset: route.page * route.limit });
      const [{ rows, total }, changed] = await Promise.all([listed, q.changedAt(db, workspaceId)]);
      return ok(page(rows, total), changed, version);
    }
    case 'article': {
      const [row, settings] = isValidSlug(route.slug) ? await Promise.all([q.articleRow(db, workspaceId, route.slug), q.urlSettings(db, workspaceId)]) : [];
      if (!row) return { status: 404, body: Buffer.from(JSON.stringify({ error: { code: 'not_found', message: `Article "${route.slug}" not found` } })), etag: null, lastModified: null, version };
      const related = await q.relatedPosts(db, workspaceId, row);
      const article = articleJsonWithUrl(row.json, row.slug, settings ? urlPrefix(settings) : null);
      // The json is an object literal: append relatedPosts before its closing brace.
      return ok(`{"data":${article.json.slice(0, -1)},"relatedPosts":${JSON.stringify(related)}}}`, later(row.updatedAt, article.changed ? settings?.updatedAt : undefined), version);
    }
    case 'categories':
    case 'tags': {
      const [terms, changed] = await Promise.all([q.termRows(db, workspaceId, route.kind === 'tags' ? 'tag' : 'category'), q.changedAt(db, workspaceId)]);
      return ok(JSON.stringify({ data: terms.map(({ title, slug, count }) => ({ title, slug, count })) }), changed, version);
    }
    case 'sitemap': {
      const [blocks, categories, tags, changed, settings] = await Promise.all([
        sitemapEntries(db, workspaceId),
        q.termRows(db, workspaceId, 'category'),
        q.termRows(db, workspaceId, 'tag'),
        q.changedAt(db, workspaceId),
        q.urlSettings(db, workspaceId),
      ]);
      const articles = sitemapEntriesWithUrls(blocks.join(','), settings ? urlPrefix(settings) : null);
      const terms = (rows: q.TermRow[]) => JSON.stringify(rows.map(({ slug, lastmod }) => ({ slug, lastmod })));
      const lastModified = changed && later(changed, articles.changed ? settings?.updatedAt : undefined);
      return ok(`{"data":{"articles":[${articles.entries}],"categories":${terms(categories)},"tags":${terms(tags)}}}`, lastModified, version);
    }
  }
}

/** The later of two ISO times: a response composed with newer settings changed when they did. */
const later = (a: string, b: string | undefined): string => (b !== undefined && b > a ? b : a);

function ok(json: string, changed: string | null, version: number): CachedResponse {
  const body = Buffer.from(json);
  return { status: 200, body, etag: `"${createHash('sha1').update(body).digest('base64url')}"`, lastModified: changed ? new Date(changed).toUTCString() : null, version };
}

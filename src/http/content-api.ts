import type { Middleware } from 'koa';
import type { App } from '../app.js';
import { CODINGS, type Coding, ContentDelivery } from '../content/delivery.js';
import type { ContentRoute } from '../content/responses.js';
import { AppError, invalidParameter, notFound, toAppError } from '../errors.js';
import { chooseEncoding } from '../lib/accept-encoding.js';
import { bearerToken } from '../lib/bearer.js';
import { SLUG_MAX, normaliseSlug } from '../lib/slug.js';
import { charLength } from '../lib/validate.js';
import { parseSearchQuery } from '../content/search-terms.js';
import { previewArticle } from '../publishing/previews.js';
import { contentApiDocumentIn } from './openapi.js';
import { isNotModified } from './middleware/conditional-get.js';
import { CORS_HEADERS, PREFLIGHT_HEADERS } from './middleware/cors.js';
import { logFailure } from '../lib/failure-log.js';

const PREFIX = '/api/v1/content';
// Exactly the specification's value (decisions.md); what caches may do with it: docs/content-api.md.
const CACHE_CONTROL = 'private, max-age=60';
const JSON_TYPE = 'application/json; charset=utf-8';

type Path = { kind: 'articles' } | { kind: 'article'; slug: string } | { kind: 'categories' | 'tags' | 'sitemap' } | { kind: 'openapi' };
/** A path as matched, before the method is checked: an article's segment is still undecoded. */
type MatchedPath = Exclude<Path, { kind: 'article' }> | { kind: 'article'; segment: string };

/** Route patterns for the metrics labels: never the slug itself. */
const PATTERNS: Record<Path['kind'], string> = {
  articles: `${PREFIX}/articles`,
  article: `${PREFIX}/articles/:slug`,
  categories: `${PREFIX}/categories`,
  tags: `${PREFIX}/tags`,
  sitemap: `${PREFIX}/sitemap`,
  openapi: `${PREFIX}/openapi.json`,
};

/** A content API request, as the Koa route and the server's direct path (content-direct.ts) both see it. */
export interface ContentRequest {
  method: string;
  /** The URL's path as sent (not decoded). */
  path: string;
  querystring: string;
  /** A request header by lower-case name; '' when absent. */
  header(name: string): string;
  requestId: string;
  /** The client's address, proxy settings applied (Koa's ctx.ip); asked for only when needed. */
  address(): string;
}

/** What to send, whichever way the request came in. */
export interface ContentAnswer {
  status: number;
  headers: Record<string, string>;
  /** null for answers without a body (204, 304). */
  body: Buffer | null;
  /** The metrics label: the route's pattern, never the slug. */
  route: string;
}

export interface ContentApi {
  /** Whether `path` is the content API's. */
  owns(path: string): boolean;
  /** The answer to a request; never rejects (errors are answers in the API's envelope). */
  answer(req: ContentRequest): Promise<ContentAnswer>;
  /** The same answers as a Koa route, for requests that go through the middleware chain. */
  middleware: Middleware;
}

/**
 * GET /api/v1/content/{articles, articles/:slug, categories, tags, sitemap} (spec: Content API).
 * Pipeline: CORS -> route -> method -> blog key -> rate limit -> query -> cached response in the
 * negotiated coding (br, gzip or identity; Vary: Accept-Encoding, an ETag per coding) ->
 * conditional GET. Errors render here, so they carry CORS headers too. Every rule is in
 * answer(): the server calls it directly for most requests (content-direct.ts) and the Koa route
 * for the others, so both send the same.
 */
export function createContentApi(app: App): ContentApi {
  const delivery = new ContentDelivery(app, app.searches);
  app.onClose(() => delivery.close());
  const encodingFor = codingChooser();

  const owns = (path: string) => path.startsWith(PREFIX) && (path.length === PREFIX.length || path[PREFIX.length] === '/');

  async function answer(req: ContentRequest): Promise<ContentAnswer> {
    // Object.assign, not a spread: V8 makes adding keys to a spread copy ~100x slower (6 us a request).
    const headers: Record<string, string> = Object.assign({}, CORS_HEADERS);
    let route = `${PREFIX}/*`; // the metrics label until the path is known
    try {
      const matched = matchPath(req.path.slice(PREFIX.length));
      route = PATTERNS[matched.kind];
      if (req.method === 'OPTIONS') return { status: 204, headers: Object.assign({}, PREFLIGHT_HEADERS), body: null, route };
      // The method is decided before the slug is read: a POST is a 405 whatever its slug.
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        headers.Allow = 'GET, HEAD, OPTIONS';
        throw new AppError('method_not_allowed', 405, `Method ${req.method} is not allowed: the content API is read-only (GET)`);
      }
      const path: Path = matched.kind === 'article' ? articlePath(matched.segment) : matched;
      if (path.kind === 'openapi') return await documentAnswer(req, encodingFor(req.header('accept-encoding')), headers, route);
      const query: Query = req.querystring ? new URLSearchParams(req.querystring) : NO_QUERY;
      const key = presentedKey(req.header, query);
      const reader = await app.limits.blogKey(req.address, () => delivery.authenticate(key));
      // The spec's message; the details say when the request carried no key at all (the usual setup mistake).
      if (!reader) throw new AppError('invalid_key', 401, 'Invalid blog key', key ? {} : { details: { keySent: false, detail: NO_KEY } });
      const wait = app.limits.content(reader.keyHash);
      if (wait) await wait;
      if (path.kind === 'article' && query.has('preview')) {
        headers['X-Robots-Tag'] = 'noindex';
        return await previewAnswer(app, reader.workspaceId, path.slug, query, headers, route);
      }
      const delivered = delivery.respond(reader, toRoute(path, query), encodingFor(req.header('accept-encoding')));
      const res = delivered instanceof Promise ? await delivered : delivered;
      // A cached 404 (an unknown slug) is an error: no-store, like every error.
      headers['Cache-Control'] = res.status === 200 ? CACHE_CONTROL : 'no-store';
      if (res.lastModified) headers['Last-Modified'] = res.lastModified;
      if (res.etag) {
        // Every answer with a body the coding could change says so, 304s included (RFC 9110 15.4.5).
        headers.Vary = 'Accept-Encoding';
        headers.ETag = res.etag;
        if (isNotModified(req.header, res.etag, res.lastModified)) return { status: 304, headers, body: null, route };
      }
      headers['Content-Type'] = JSON_TYPE;
      if (res.encoding) headers['Content-Encoding'] = res.encoding;
      return { status: res.status, headers, body: res.body, route };
    } catch (err) {
      const e = toAppError(err);
      logFailure(app, err, e, req.requestId, 'content API request failed');
      headers['Cache-Control'] = 'no-store';
      headers['Content-Type'] = JSON_TYPE;
      const retry = e.details?.retryAfterSeconds;
      if (typeof retry === 'number') headers['Retry-After'] = String(retry);
      const body = { error: { code: e.code, message: e.expose ? e.message : 'Internal error', ...(e.expose ? e.details : {}) } };
      return { status: e.status, headers, body: Buffer.from(JSON.stringify(body)), route };
    }
  }

  const middleware: Middleware = async (ctx, next) => {
    if (!owns(ctx.path)) return next();
    const a = await answer({ method: ctx.method, path: ctx.path, querystring: ctx.querystring, header: (name) => ctx.get(name), requestId: ctx.state.requestId, address: () => ctx.ip });
    ctx.state.route = a.route;
    ctx.set(a.headers);
    ctx.status = a.status;
    ctx.body = a.body;
  };

  return { owns, answer, middleware };
}

/** The OpenAPI document (http/openapi.ts): public, no key, the same for every daemon of a version; ETag, 304 and compression like every answer. */
async function documentAnswer(req: ContentRequest, coding: Coding | 'identity', headers: Record<string, string>, route: string): Promise<ContentAnswer> {
  const doc = await contentApiDocumentIn(coding);
  Object.assign(headers, { 'Cache-Control': 'public, max-age=3600', Vary: 'Accept-Encoding', ETag: doc.etag });
  if (isNotModified(req.header, doc.etag, null)) return { status: 304, headers, body: null, route };
  headers['Content-Type'] = JSON_TYPE;
  if (doc.encoding) headers['Content-Encoding'] = doc.encoding;
  return { status: 200, headers, body: doc.body, route };
}

/** A draft preview (publishing/previews.ts): built per request, never cached, never indexed. */
async function previewAnswer(app: App, workspaceId: string, slug: string, query: Query, headers: Record<string, string>, route: string): Promise<ContentAnswer> {
  const tokens = query.getAll('preview');
  if (tokens.length > 1) throw invalidParameter('preview', 'The preview parameter may be given once');
  const body = await previewArticle(app, workspaceId, slug, tokens[0].trim());
  return { status: 200, headers: { ...headers, 'Cache-Control': 'no-store', 'Content-Type': JSON_TYPE }, body: Buffer.from(body), route };
}

/** What the API reads of a query string: URLSearchParams, or NO_QUERY. */
type Query = Pick<URLSearchParams, 'get' | 'getAll' | 'has'>;

/** The query of every request that has none (most of them): read-only, so sharing it is safe. */
const NO_QUERY: Query = Object.freeze({ get: () => null, getAll: () => [], has: () => false });
const ARTICLES: MatchedPath = { kind: 'articles' };
const ARTICLE_PREFIX = '/articles/';

function matchPath(rest: string): MatchedPath {
  // The two common shapes, without splitting (a split per cached request shows in its CPU): /articles and /articles/{slug}.
  if (rest === '/articles') return ARTICLES;
  if (rest.startsWith(ARTICLE_PREFIX) && rest.length > ARTICLE_PREFIX.length && !rest.includes('/', ARTICLE_PREFIX.length)) return { kind: 'article', segment: rest.slice(ARTICLE_PREFIX.length) };
  const parts = rest.split('/').filter(Boolean);
  if (parts.length === 1 && (parts[0] === 'articles' || parts[0] === 'categories' || parts[0] === 'tags' || parts[0] === 'sitemap')) {
    return parts[0] === 'articles' ? { kind: 'articles' } : { kind: parts[0] };
  }
  if (parts.length === 1 && parts[0] === 'openapi.json') return { kind: 'openapi' };
  if (parts.length === 2 && parts[0] === 'articles') return { kind: 'article', segment: parts[1] };
  throw new AppError('not_found', 404, `No content API route ${PREFIX}${rest}: use /articles, /articles/{slug}, /categories, /tags, /sitemap or /openapi.json`);
}

/** /articles/{segment}: the slug decoded and normalised like stored slugs. */
function articlePath(segment: string): Path {
  let slug = segment;
  if (segment.includes('%')) {
    try {
      slug = decodeURIComponent(segment);
    } catch {
      throw notFound('article', segment);
    }
  }
  slug = normaliseSlug(slug);
  // Longer than any slug may be: a 404 that touches neither the cache nor the database (made-up slugs cost nothing).
  if (slug.length > SLUG_MAX && charLength(slug) > SLUG_MAX) throw notFound('article', slug);
  return { kind: 'article', slug };
}

/**
 * The coding to send for an Accept-Encoding value. Clients send a handful of distinct values:
 * each one's choice is remembered (bounded), per API, not per process.
 */
function codingChooser(): (acceptEncoding: string) => Coding | 'identity' {
  const chosen = new Map<string, Coding | 'identity'>();
  return (acceptEncoding) => {
    let coding = chosen.get(acceptEncoding);
    if (coding === undefined) {
      if (chosen.size >= 100) chosen.clear();
      coding = chooseEncoding(acceptEncoding, CODINGS);
      chosen.set(acceptEncoding, coding);
    }
    return coding;
  };
}

const NO_KEY = 'No key was sent: send the blog key as Authorization: Bearer svc_blog_... (or X-Api-Key, or ?key=)';

/** Spec: Authentication. Bearer header first, then X-Api-Key, then ?key=. */
function presentedKey(header: ContentRequest['header'], query: Query): string {
  const bearer = bearerToken(header('authorization'));
  if (bearer) return bearer;
  const apiKey = header('x-api-key').trim();
  if (apiKey) return apiKey;
  return query.get('key')?.trim() ?? '';
}

function toRoute(path: Exclude<Path, { kind: 'openapi' }>, query: Query): ContentRoute {
  if (path.kind !== 'articles') return path;
  return {
    kind: 'page',
    page: integer(query, 'page', 0, 0, Number.MAX_SAFE_INTEGER, 'The page parameter must be a whole number, 0 or more (pages are zero-based)'),
    limit: integer(query, 'limit', 10, 1, 100, 'The limit parameter must be a whole number from 1 to 100'),
    category: slugParameter(query, 'category'),
    tag: slugParameter(query, 'tag'),
    ...searchParameter(query),
  };
}

/** `q`: search (docs/content-api.md, Search); given once, checked here so a bad one is a 400. */
function searchParameter(query: Query): { q?: string } {
  const values = query.getAll('q');
  if (values.length === 0) return {};
  if (values.length > 1) throw invalidParameter('q', 'The q parameter may be given once');
  parseSearchQuery(values[0]);
  return { q: values[0].trim() };
}

function integer(query: Query, name: string, fallback: number, min: number, max: number, message: string): number {
  const values = query.getAll(name);
  if (values.length === 0) return fallback;
  if (values.length > 1) throw invalidParameter(name, `The ${name} parameter may be given once`);
  const raw = values[0].trim();
  if (!/^[-+]?\d+$/.test(raw)) throw invalidParameter(name, message);
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min || n > max) throw invalidParameter(name, message);
  return n;
}

/** A category or tag filter, given once; normalised like stored slugs (NFC, lower case), so any spelling finds it. */
function slugParameter(query: Query, name: string): string | undefined {
  const values = query.getAll(name);
  if (values.length > 1) throw invalidParameter(name, `The ${name} parameter may be given once`);
  return values.length ? normaliseSlug(values[0]) : undefined;
}

import type { Context, Middleware } from 'koa';
import type { App } from '../app.js';
import { CODINGS } from '../content/compression.js';
import { ContentDelivery } from '../content/delivery.js';
import type { ContentRoute } from '../content/responses.js';
import { AppError, invalidParameter, notFound, toAppError } from '../errors.js';
import { chooseEncoding } from '../lib/accept-encoding.js';
import { bearerToken } from '../lib/bearer.js';
import { normaliseSlug } from '../lib/slug.js';
import { isNotModified } from './middleware/conditional-get.js';
import { answerPreflight, setCorsHeaders } from './middleware/cors.js';

const PREFIX = '/api/v1/content';
const CACHE_CONTROL = 'private, max-age=60';
const JSON_TYPE = 'application/json; charset=utf-8';

type Path = { kind: 'articles' } | { kind: 'article'; slug: string } | { kind: 'categories' | 'tags' | 'sitemap' };

/** Route patterns for the metrics labels: never the slug itself. */
const PATTERNS: Record<Path['kind'], string> = {
  articles: `${PREFIX}/articles`,
  article: `${PREFIX}/articles/:slug`,
  categories: `${PREFIX}/categories`,
  tags: `${PREFIX}/tags`,
  sitemap: `${PREFIX}/sitemap`,
};

/**
 * GET /api/v1/content/{articles, articles/:slug, categories, tags, sitemap} (spec: Content API).
 * Pipeline: CORS -> route -> method -> blog key -> rate limit -> query -> cached response in the
 * negotiated coding (br, gzip or identity; Vary: Accept-Encoding, an ETag per coding) ->
 * conditional GET. Errors render here, so they carry CORS headers too.
 */
export function createContentApi(app: App): Middleware {
  const delivery = new ContentDelivery(app);
  app.onClose(() => delivery.close());

  return async (ctx, next) => {
    if (!ctx.path.startsWith(PREFIX) || (ctx.path.length > PREFIX.length && ctx.path[PREFIX.length] !== '/')) return next();
    setCorsHeaders(ctx);
    ctx.state.route = `${PREFIX}/*`; // the metrics label until the path is known
    try {
      const path = matchPath(ctx.path.slice(PREFIX.length));
      ctx.state.route = PATTERNS[path.kind];
      if (ctx.method === 'OPTIONS') return answerPreflight(ctx);
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
        ctx.set('Allow', 'GET, HEAD, OPTIONS');
        throw new AppError('method_not_allowed', 405, `Method ${ctx.method} is not allowed: the content API is read-only (GET)`);
      }
      const query = new URLSearchParams(ctx.querystring);
      const key = presentedKey(ctx, query);
      const reader = await delivery.authenticate(key);
      // The spec's message; the details say when the request carried no key at all (issue 24).
      if (!reader) throw new AppError('invalid_key', 401, 'Invalid blog key', key ? {} : { details: { keySent: false, detail: NO_KEY } });
      const wait = app.limits.content(reader.keyHash);
      if (wait) await wait;
      const res = await delivery.respond(reader, toRoute(path, query), chooseEncoding(ctx.get('Accept-Encoding'), CODINGS));
      ctx.set('Cache-Control', CACHE_CONTROL);
      if (res.lastModified) ctx.set('Last-Modified', res.lastModified);
      if (res.etag) {
        // Every answer with a body the coding could change says so, 304s included (RFC 9110 15.4.5).
        ctx.set('Vary', 'Accept-Encoding');
        ctx.set('ETag', res.etag);
        if (isNotModified(ctx, res.etag, res.lastModified)) {
          ctx.status = 304;
          return;
        }
      }
      ctx.status = res.status;
      ctx.type = JSON_TYPE;
      if (res.encoding) ctx.set('Content-Encoding', res.encoding);
      ctx.body = res.body;
    } catch (err) {
      const e = toAppError(err);
      if (e.status >= 500) app.log.error({ err, requestId: ctx.state.requestId }, 'content API request failed');
      ctx.status = e.status;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { error: { code: e.code, message: e.expose ? e.message : 'Internal error', ...(e.expose ? e.details : {}) } };
      const retry = e.details?.retryAfterSeconds;
      if (typeof retry === 'number') ctx.set('Retry-After', String(retry));
    }
  };
}

function matchPath(rest: string): Path {
  const parts = rest.split('/').filter(Boolean);
  if (parts.length === 1 && (parts[0] === 'articles' || parts[0] === 'categories' || parts[0] === 'tags' || parts[0] === 'sitemap')) {
    return parts[0] === 'articles' ? { kind: 'articles' } : { kind: parts[0] };
  }
  if (parts.length === 2 && parts[0] === 'articles') {
    let slug: string;
    try {
      slug = decodeURIComponent(parts[1]);
    } catch {
      throw notFound('article', parts[1]);
    }
    return { kind: 'article', slug: normaliseSlug(slug) };
  }
  throw new AppError('not_found', 404, `No content API route ${PREFIX}${rest}: use /articles, /articles/{slug}, /categories, /tags or /sitemap`);
}

const NO_KEY = 'No key was sent: send the blog key as Authorization: Bearer svc_blog_... (or X-Api-Key, or ?key=)';

/** Spec: Authentication. Bearer header first, then X-Api-Key, then ?key=. */
function presentedKey(ctx: Context, query: URLSearchParams): string {
  const bearer = bearerToken(ctx.get('Authorization'));
  if (bearer) return bearer;
  const header = ctx.get('X-Api-Key').trim();
  if (header) return header;
  return query.get('key')?.trim() ?? '';
}

function toRoute(path: Path, query: URLSearchParams): ContentRoute {
  if (path.kind !== 'articles') return path;
  return {
    kind: 'page',
    page: integer(query, 'page', 0, 0, Number.MAX_SAFE_INTEGER, 'The page parameter must be a whole number, 0 or more (pages are zero-based)'),
    limit: integer(query, 'limit', 10, 1, 100, 'The limit parameter must be a whole number from 1 to 100'),
    category: slugParameter(query, 'category'),
    tag: slugParameter(query, 'tag'),
  };
}

function integer(query: URLSearchParams, name: string, fallback: number, min: number, max: number, message: string): number {
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
function slugParameter(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name);
  if (values.length > 1) throw invalidParameter(name, `The ${name} parameter may be given once`);
  return values.length ? normaliseSlug(values[0]) : undefined;
}

import { createHash } from 'node:crypto';
import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { COMPRESS_MIN_BYTES, type Coding, codedEtag, compress } from '../content/delivery.js';
import { articleSchema, envelope, errorSchema, pageQuerySchema, pageSchema, sitemapSchema, termCountSchema } from '../content/schemas.js';
import { VERSION } from '../version.js';

/**
 * The content API's OpenAPI 3.1 document (GET /api/v1/content/openapi.json), generated from the
 * zod schemas the snapshot builder's output is typed by (content/schemas.ts); the routes,
 * parameters, limits and errors are those of http/content-api.ts. Tests validate the document
 * with a third-party validator and every content API response they receive against it.
 */
export function contentApiDocument(): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer svc_blog_... (preferred; checked first)' });
  const header = registry.registerComponent('securitySchemes', 'apiKeyHeader', { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'X-Api-Key: svc_blog_... (checked second)' });
  const query = registry.registerComponent('securitySchemes', 'apiKeyQuery', { type: 'apiKey', in: 'query', name: 'key', description: '?key=svc_blog_... (checked last; keep it out of logs you do not control)' });
  const security = [{ [bearer.name]: [] }, { [header.name]: [] }, { [query.name]: [] }];

  const text = (description: string, example?: string) => ({ schema: { type: 'string' as const, ...(example ? { example } : {}) }, description });
  // Sent on every answer, errors and 304s included (http/middleware/cors.ts).
  const corsHeaders = {
    'Access-Control-Allow-Origin': text('Any origin may read the answer', '*'),
    'Access-Control-Expose-Headers': text('The headers a browser script may read', 'ETag, Last-Modified, Retry-After, Cache-Control, Allow'),
  };
  const okHeaders = {
    'Cache-Control': text('Exactly this on every success: only the client\'s own cache may keep it, 60 s', 'private, max-age=60'),
    ETag: text('Strong tag of this body in this coding ("<tag>", "<tag>-br", "<tag>-gzip"); send it back in If-None-Match', '"3q2Tn1m0aXfK6QeY8v1m6wXyVbA-br"'),
    'Last-Modified': text('When this content last changed (HTTP date); before the first publish, when the workspace was created', 'Sun, 29 Nov 2026 04:00:00 GMT'),
    Vary: text('Accept-Encoding', 'Accept-Encoding'),
    'Content-Encoding': text('br or gzip when the request accepted it and the body is 1 KB or more', 'br'),
    ...corsHeaders,
  };
  const ok = (description: string, data: z.ZodTypeAny): ResponseConfig => ({ description, headers: okHeaders, content: { 'application/json': { schema: envelope(data) } } });
  type Headers = Record<string, { schema: Record<string, unknown>; description: string }>;
  const failure = (description: string, headers: Headers = {}): ResponseConfig => ({
    description,
    headers: { 'Cache-Control': text('no-store', 'no-store'), ...corsHeaders, ...headers },
    content: { 'application/json': { schema: errorSchema } },
  });
  const notModified: ResponseConfig = { description: 'Not modified: If-None-Match named the current tag of this coding (or If-Modified-Since is not older); no body', headers: okHeaders };
  const common = {
    '401': failure('invalid_key: missing, wrong, regenerated or revoked blog key (message "Invalid blog key")'),
    '405': failure('method_not_allowed: only GET, HEAD and OPTIONS (decided before the path\'s slug is read)', { Allow: text('The methods the content API answers', 'GET, HEAD, OPTIONS') }),
    '429': failure('rate_limited: more than content.rateLimitPerMinute requests this minute with this key; error.retryAfterSeconds', {
      'Retry-After': { schema: { type: 'integer', minimum: 1, example: 42 }, description: 'Whole seconds to wait' },
    }),
    '503': failure('unavailable: the database did not answer within content.timeout (error.dependency, error.retryAfterSeconds), or the daemon is starting or stopping; try again in a moment', {
      'Retry-After': { schema: { type: 'integer', minimum: 1, example: 5 }, description: 'Whole seconds to wait' },
    }),
  };
  const badParameter = failure('invalid_parameter: a parameter out of its limits or given twice; error.parameter names it');

  const slug = z.object({ slug: z.string().openapi({ description: 'Percent-encoded UTF-8; matched in any Unicode normalisation and case' }) });
  const route = (operationId: string, tag: Tag, path: string, summary: string, responses: Record<string, ResponseConfig>, extra: { query?: z.AnyZodObject; params?: z.AnyZodObject; description?: string } = {}) =>
    registry.registerPath({
      method: 'get',
      path: `/api/v1/content${path}`,
      operationId,
      tags: [tag],
      summary,
      ...(extra.description ? { description: extra.description } : {}),
      security,
      request: { ...(extra.query ? { query: extra.query } : {}), ...(extra.params ? { params: extra.params } : {}) },
      responses: { '304': notModified, ...responses, ...common },
    });

  route('listArticles', 'Articles', '/articles', 'A page of published articles, newest first; with q, the matches, best first', { '200': ok('A Page', pageSchema), '400': badParameter }, { query: pageQuerySchema });
  route(
    'getArticle',
    'Articles',
    '/articles/{slug}',
    'One published article, or with preview a draft preview',
    {
      '200': {
        ...ok('The Article. With preview: Cache-Control no-store, X-Robots-Tag noindex, no ETag', articleSchema),
        headers: { ...okHeaders, 'X-Robots-Tag': text('noindex, on a preview only', 'noindex') },
      },
      '400': failure('invalid_parameter: preview given twice'),
      '404': failure('not_found: no published article has this slug; with preview, the token expired, was revoked or is for another article or site'),
      '422': failure('with preview only: body_too_complex, render_timeout or render_failed: svc cannot render the draft body (docs/content-api.md, "Rendering")'),
    },
    {
      params: slug,
      query: z.object({ preview: z.string().optional().openapi({ description: 'A preview token (svc articles preview): the current draft instead' }) }),
    },
  );
  route('listCategories', 'Categories and tags', '/categories', 'Categories with published articles, most articles first', { '200': ok('Categories', z.array(termCountSchema)) });
  route('listTags', 'Categories and tags', '/tags', 'Tags with published articles, most articles first', { '200': ok('Tags', z.array(termCountSchema)) });
  route('getSitemap', 'Sitemap', '/sitemap', 'Every published article, category and tag with its lastmod', { '200': ok('The Sitemap', sitemapSchema) });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/content/openapi.json',
    operationId: 'getOpenApiDocument',
    tags: ['Document'],
    summary: 'This document (no key needed)',
    security: [],
    responses: {
      '200': {
        description: 'The OpenAPI 3.1 document',
        headers: { 'Cache-Control': text('Public: the same for every daemon of a version', 'public, max-age=3600'), ETag: okHeaders.ETag, Vary: okHeaders.Vary, 'Content-Encoding': okHeaders['Content-Encoding'], ...corsHeaders },
        content: { 'application/json': { schema: { type: 'object' } } },
      },
      '304': { description: 'Not modified: If-None-Match named the current tag of this coding; no body', headers: { ETag: okHeaders.ETag, Vary: okHeaders.Vary, ...corsHeaders } },
    },
  });

  const generator = new OpenApiGeneratorV31(registry.definitions);
  return generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'svc content API',
      version: VERSION,
      license: { name: 'MIT', identifier: 'MIT' },
      contact: { name: 'svc', url: 'https://www.npmjs.com/package/svc-content-client' },
      description:
        'Read-only API a blog site uses to fetch its published articles with a blog key. Every success is `{ "data": ... }`, every error `{ "error": { "code", "message" } }`. See docs/content-api.md.',
    },
    servers: [{ url: '/', description: 'The svc daemon (base_url)' }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
  }) as unknown as Record<string, unknown>;
}

const TAGS = {
  Articles: 'Published articles: pages, search, one by slug, draft previews',
  'Categories and tags': 'The categories and tags that have published articles',
  Sitemap: 'Everything published, with lastmod, for a sitemap.xml',
  Document: 'This OpenAPI document',
} as const;
type Tag = keyof typeof TAGS;

/** The document as sent: its bytes in one coding and that coding's strong tag. */
export interface DocumentVariant {
  body: Buffer;
  etag: string;
  encoding: Coding | null;
}

let identity: DocumentVariant | null = null;
const coded = new Map<Coding, Promise<DocumentVariant>>();

/** The serialized document, generated on first use, with its ETag. */
export function contentApiDocumentBytes(): DocumentVariant {
  if (!identity) {
    const body = Buffer.from(JSON.stringify(contentApiDocument()));
    identity = { body, etag: `"${createHash('sha1').update(body).digest('base64url')}"`, encoding: null };
  }
  return identity;
}

/** The document in `coding` (compressed once per coding, then shared), like every content answer. */
export function contentApiDocumentIn(coding: Coding | 'identity'): DocumentVariant | Promise<DocumentVariant> {
  const plain = contentApiDocumentBytes();
  if (coding === 'identity' || plain.body.length < COMPRESS_MIN_BYTES) return plain;
  let made = coded.get(coding);
  if (!made) {
    made = compress(plain.body, coding).then((body) => ({ body, etag: codedEtag(plain.etag, coding), encoding: coding }));
    coded.set(coding, made);
  }
  return made;
}

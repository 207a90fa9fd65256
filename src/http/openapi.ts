import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
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
  const okHeaders = {
    'Cache-Control': text('private, max-age=60', 'private, max-age=60'),
    ETag: text('Strong tag of this body in this coding ("<tag>", "<tag>-br", "<tag>-gzip"); send it back in If-None-Match'),
    'Last-Modified': text('When this content last changed (HTTP date)'),
    Vary: text('Accept-Encoding', 'Accept-Encoding'),
    'Content-Encoding': text('br or gzip when the request accepted it and the body is 1 KB or more'),
  };
  const ok = (description: string, data: z.ZodTypeAny): ResponseConfig => ({ description, headers: okHeaders, content: { 'application/json': { schema: envelope(data) } } });
  type Headers = Record<string, { schema: Record<string, unknown>; description: string }>;
  const failure = (description: string, headers: Headers = {}): ResponseConfig => ({
    description,
    headers: { 'Cache-Control': text('no-store', 'no-store'), ...headers },
    content: { 'application/json': { schema: errorSchema } },
  });
  const notModified: ResponseConfig = { description: 'Not modified: If-None-Match named the current tag of this coding (or If-Modified-Since is not older); no body', headers: okHeaders };
  const common = {
    '401': failure('invalid_key: missing, wrong, regenerated or revoked blog key (message "Invalid blog key")'),
    '405': failure('method_not_allowed: only GET, HEAD and OPTIONS', { Allow: text('GET, HEAD, OPTIONS') }),
    '429': failure('rate_limited: more than content.rateLimitPerMinute requests this minute with this key; error.retryAfterSeconds', {
      'Retry-After': { schema: { type: 'integer', minimum: 1 }, description: 'Whole seconds to wait' },
    }),
    '503': failure('starting or stopping: the daemon is not ready; try again (another daemon, or in a moment)'),
  };
  const badParameter = failure('invalid_parameter: a parameter out of its limits or given twice; error.parameter names it');

  const slug = z.object({ slug: z.string().openapi({ description: 'Percent-encoded UTF-8; matched in any Unicode normalisation and case' }) });
  const route = (path: string, summary: string, responses: Record<string, ResponseConfig>, extra: { query?: z.AnyZodObject; params?: z.AnyZodObject; description?: string } = {}) =>
    registry.registerPath({
      method: 'get',
      path: `/api/v1/content${path}`,
      summary,
      ...(extra.description ? { description: extra.description } : {}),
      security,
      request: { ...(extra.query ? { query: extra.query } : {}), ...(extra.params ? { params: extra.params } : {}) },
      responses: { '304': notModified, ...responses, ...common },
    });

  route('/articles', 'A page of published articles, newest first; with q, the matches, best first', { '200': ok('A Page', pageSchema), '400': badParameter }, { query: pageQuerySchema });
  route(
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
  route('/categories', 'Categories with published articles, most articles first', { '200': ok('Categories', z.array(termCountSchema)) });
  route('/tags', 'Tags with published articles, most articles first', { '200': ok('Tags', z.array(termCountSchema)) });
  route('/sitemap', 'Every published article, category and tag with its lastmod', { '200': ok('The Sitemap', sitemapSchema) });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/content/openapi.json',
    summary: 'This document (no key needed)',
    security: [],
    responses: { '200': { description: 'The OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object' } } } } },
  });

  const generator = new OpenApiGeneratorV31(registry.definitions);
  return generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'svc content API',
      version: VERSION,
      description:
        'Read-only API a blog site uses to fetch its published articles with a blog key. Every success is `{ "data": ... }`, every error `{ "error": { "code", "message" } }`. See docs/content-api.md.',
    },
    servers: [{ url: '/', description: 'The svc daemon (base_url)' }],
  }) as unknown as Record<string, unknown>;
}

let cached: Buffer | null = null;
/** The serialized document, generated on first use. */
export function contentApiDocumentBytes(): Buffer {
  return (cached ??= Buffer.from(JSON.stringify(contentApiDocument())));
}

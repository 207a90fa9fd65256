import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type * as client from '../../packages/content-client/src/types.js';
import type * as schemas from '../../src/content/schemas.js';
import { ContractViolation, checkContentResponse } from '../helpers/openapi-contract.js';
import { PG_URL } from '../helpers/env.js';
import { contentFixture } from './fixture.js';

describe(`GET /api/v1/content/openapi.json (${PG_URL ? 'PostgreSQL' : 'SQLite'})`, () => {
  let f: Awaited<ReturnType<typeof contentFixture>>;
  let doc: any;
  beforeAll(async () => {
    f = await contentFixture();
    const res = await fetch(`${f.base}/openapi.json`); // no key
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    doc = await res.json();
  });
  afterAll(() => f.d.stop());

  it('is a valid OpenAPI 3.1 document (a third-party validator)', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('describes the five endpoints and itself, the three ways to send the key, the limits, every shape and error, and the headers', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(['/articles', '/articles/{slug}', '/categories', '/openapi.json', '/sitemap', '/tags'].map((p) => `/api/v1/content${p}`).sort());
    expect(doc.components.securitySchemes).toEqual({
      bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      apiKeyHeader: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Api-Key' }),
      apiKeyQuery: expect.objectContaining({ type: 'apiKey', in: 'query', name: 'key' }),
    });
    expect(doc.paths['/api/v1/content/openapi.json'].get.security).toEqual([]);
    const list = doc.paths['/api/v1/content/articles'].get;
    const param = (name: string) => list.parameters.find((p: any) => p.name === name).schema;
    expect(param('page')).toMatchObject({ type: 'integer', minimum: 0, default: 0 });
    expect(param('limit')).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 10 });
    expect(param('q')).toMatchObject({ type: 'string', minLength: 1, maxLength: 200 });
    for (const name of ['ArticleIndex', 'Article', 'Page', 'TermCount', 'Sitemap', 'Error', 'Term', 'RelatedPost']) expect(doc.components.schemas).toHaveProperty(name);
    expect(list.responses['200'].content['application/json'].schema).toMatchObject({ properties: { data: { $ref: '#/components/schemas/Page' } }, required: ['data'] });
    for (const status of ['304', '400', '401', '405', '429', '503']) expect(list.responses, status).toHaveProperty(status);
    expect(doc.paths['/api/v1/content/articles/{slug}'].get.responses).toHaveProperty('404');
    expect(Object.keys(list.responses['200'].headers)).toEqual(expect.arrayContaining(['Cache-Control', 'ETag', 'Last-Modified', 'Vary']));
    expect(list.responses['429'].headers).toHaveProperty('Retry-After');
    expect(doc.components.schemas.Error.properties.error.properties).toHaveProperty('retryAfterSeconds');
  });

  it('the response check fails on a body, status or header the document does not allow', async () => {
    const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
      new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'cache-control': 'private, max-age=60', vary: 'Accept-Encoding', etag: '"x"', ...headers } });
    const url = `${f.base}/articles`;
    await expect(checkContentResponse('GET', url, json({ data: { articles: [], total: 0, page: 0, limit: 10 } }))).resolves.toBeUndefined();
    await expect(checkContentResponse('GET', url, json({ data: { articles: [], total: 0, page: 0 } }))).rejects.toThrow(ContractViolation);
    await expect(checkContentResponse('GET', url, json({ data: { articles: [{ id: 'x' }], total: 1, page: 0, limit: 10 } }))).rejects.toThrow(/does not match/);
    await expect(checkContentResponse('GET', url, json({ data: { articles: [], total: 0, page: 0, limit: 10, extra: 1 } }))).rejects.toThrow(ContractViolation);
    await expect(checkContentResponse('GET', url, json({ error: { code: 'x', message: 'y' } }, 418))).rejects.toThrow(/status not documented/);
    await expect(checkContentResponse('GET', url, json({ error: { code: 'rate_limited', message: 'y', retryAfterSeconds: 3 } }, 429))).rejects.toThrow(/Retry-After/);
    await expect(checkContentResponse('GET', url, new Response(JSON.stringify({ data: { articles: [], total: 0, page: 0, limit: 10 } }), { status: 200 }))).rejects.toThrow(/header Cache-Control missing/);
  });

  it('svc-content-client (packages/content-client) has exactly the shapes of the document', () => {
    expectTypeOf<client.ArticleIndex>().toEqualTypeOf<z.infer<typeof schemas.articleIndexSchema>>();
    expectTypeOf<client.Article>().toEqualTypeOf<z.infer<typeof schemas.articleSchema>>();
    expectTypeOf<client.RelatedPost>().toEqualTypeOf<z.infer<typeof schemas.relatedPostSchema>>();
    expectTypeOf<client.Page>().toEqualTypeOf<z.infer<typeof schemas.pageSchema>>();
    expectTypeOf<client.TermCount>().toEqualTypeOf<z.infer<typeof schemas.termCountSchema>>();
    expectTypeOf<client.Sitemap>().toEqualTypeOf<z.infer<typeof schemas.sitemapSchema>>();
    expectTypeOf<client.Term>().toEqualTypeOf<z.infer<typeof schemas.termSchema>>();
  });
});

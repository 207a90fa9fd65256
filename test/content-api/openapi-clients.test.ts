import { execFile } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/env.js';
import { rawRequest } from '../helpers/raw-http.js';
import { contentFixture } from './fixture.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

/** What a consumer of the generated types writes: openapi-fetch, typed by openapi-typescript's output. */
const CONSUMER = `
import createClient from 'openapi-fetch';
import type { operations, paths } from './content-api.js';

type Article = operations['getArticle']['responses'][200]['content']['application/json']['data'];

const client = createClient<paths>({ baseUrl: process.env.BASE_URL!, headers: { Authorization: \`Bearer \${process.env.BLOG_KEY}\` } });

async function main(): Promise<void> {
  const list = await client.GET('/api/v1/content/articles', { params: { query: { page: 0, limit: 5 } } });
  const slug: string = list.data!.data.articles[0].slug;
  const one = await client.GET('/api/v1/content/articles/{slug}', { params: { path: { slug } } });
  const article: Article = one.data!.data;
  const missing = await client.GET('/api/v1/content/articles/{slug}', { params: { path: { slug: 'no-such-article' } } });
  const tags = await client.GET('/api/v1/content/tags');
  const sitemap = await client.GET('/api/v1/content/sitemap');
  const bad = await client.GET('/api/v1/content/articles', { params: { query: { limit: 500 } } });
  console.log(JSON.stringify({
    total: list.data!.data.total,
    title: article.title,
    related: article.relatedPosts.length,
    missing: [missing.response.status, missing.error?.error.code],
    tags: tags.data!.data.map((t) => t.slug),
    sitemap: sitemap.data!.data.articles.length,
    bad: [bad.response.status, bad.error?.error.code],
  }));
}
void main();
`;

describe('what generated clients and tools see in the OpenAPI document', () => {
  let f: Awaited<ReturnType<typeof contentFixture>>;
  let doc: any;
  beforeAll(async () => {
    f = await contentFixture();
    doc = await (await fetch(`${f.base}/openapi.json`)).json();
  });
  afterAll(() => f.d.stop());

  it('names, summarises and tags every operation, and has a licence and a contact', () => {
    const operations = Object.values(doc.paths).flatMap((item: any) => Object.values(item)) as any[];
    expect(operations.length).toBe(6);
    for (const op of operations) {
      expect(op.operationId, JSON.stringify(op.summary)).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.summary).toBeTruthy();
      expect(op.tags).toHaveLength(1);
      expect(doc.tags.map((t: any) => t.name)).toContain(op.tags[0]);
    }
    expect(new Set(operations.map((op) => op.operationId)).size).toBe(operations.length);
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    expect(doc.info.contact.url).toMatch(/^https:\/\//);
  });

  it('gives header examples that are what is sent', async () => {
    const a = await f.publish();
    for (const [path, op, status] of [['/articles', '/articles', '200'], [`/articles/${a.slug}`, '/articles/{slug}', '200'], ['/articles?limit=0', '/articles', '400'], ['/articles/x', '/articles/{slug}', '404']] as const) {
      const res = await f.api(path);
      expect(res.status).toBe(Number(status));
      const documented = doc.paths[`/api/v1/content${op}`].get.responses[status].headers as Record<string, { schema: { example?: unknown } }>;
      for (const name of ['Cache-Control', 'Vary', 'Access-Control-Allow-Origin', 'Access-Control-Expose-Headers']) {
        if (!documented[name]) continue;
        expect(String(documented[name].schema.example), `${path} ${name}`).toBe(res.headers.get(name));
      }
      expect(documented['Access-Control-Allow-Origin'], path).toBeDefined();
    }
    const ok = doc.paths['/api/v1/content/articles'].get.responses['200'].headers;
    expect(new Date(ok['Last-Modified'].schema.example).toUTCString()).toBe(ok['Last-Modified'].schema.example);
    expect(ok.ETag.schema.example).toMatch(/^"[\w-]+"$/);
  });

  it('is served with an ETag, answers If-None-Match with 304, and compresses like every answer', async () => {
    const plain = await rawRequest(`${f.base}/openapi.json`);
    expect(plain.status).toBe(200);
    const etag = plain.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(plain.headers.vary).toBe('Accept-Encoding');
    const again = await rawRequest(`${f.base}/openapi.json`, { 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const gz = await rawRequest(`${f.base}/openapi.json`, { 'Accept-Encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers.etag).toBe(`${etag.slice(0, -1)}-gzip"`);
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    expect((await rawRequest(`${f.base}/openapi.json`, { 'Accept-Encoding': 'gzip', 'If-None-Match': gz.headers.etag as string })).status).toBe(304);
    expect((await rawRequest(`${f.base}/openapi.json`, { 'Accept-Encoding': 'br' })).headers['content-encoding']).toBe('br');
  });

  it('generates a TypeScript client (openapi-typescript + openapi-fetch) that compiles and runs against the daemon', async () => {
    await f.publish({ title: 'Generated one', focusKeyword: 'shared' });
    await f.publish({ title: 'Generated two', focusKeyword: 'shared' });
    const dir = await tempDir();
    await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    await mkdir(path.join(dir, 'src'));
    await writeFile(path.join(dir, 'src/content-api.ts'), astToString(await openapiTS(doc)));
    await writeFile(path.join(dir, 'src/main.ts'), CONSUMER);
    await writeFile(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', outDir: 'out', rootDir: 'src', skipLibCheck: true, types: ['node'], typeRoots: [path.join(ROOT, 'node_modules/@types')] }, include: ['src'] }),
    );
    await writeFile(path.join(dir, 'package.json'), '{"type":"module"}');
    // A generated-types mistake (a missing operationId, a wrong shape) is a compile error here.
    const compiled = await run(process.execPath, [TSC, '-p', dir]).catch((e) => e);
    expect(`${compiled.stdout ?? ''}${compiled.stderr ?? ''}`).toBe('');
    const { stdout } = await run(process.execPath, [path.join(dir, 'out/main.js')], { env: { PATH: process.env.PATH, BASE_URL: f.d.url, BLOG_KEY: f.key } });
    const out = JSON.parse(stdout);
    expect(out).toMatchObject({ title: 'Generated two', related: 2, missing: [404, 'not_found'], tags: ['shared'], bad: [400, 'invalid_parameter'] });
    expect(out.total).toBeGreaterThanOrEqual(2);
  }, 60_000);
});

import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/raw-http.js';
import { contentFixture } from './fixture.js';

const LONG_BODY = Array.from({ length: 12 }, (_, i) => `## Part ${i + 1}\n\nGardening notes for part ${i + 1}: soil, compost, water and light in the right amounts.`).join('\n\n');

/** Compressions of this app's cache so far, by coding (the observable that proves "once per entry"). */
async function compressions(f: Awaited<ReturnType<typeof contentFixture>>): Promise<Record<string, number>> {
  const metric = await f.d.app.metrics.contentCompressions.get();
  return Object.fromEntries(metric.values.map((v) => [String(v.labels.encoding), v.value]));
}

/** One daemon and a dozen long articles (a sitemap over 1 KB), made by the first test that asks. */
let made: Promise<{ f: Awaited<ReturnType<typeof contentFixture>>; article: { slug: string } }> | undefined;
const world = () =>
  (made ??= (async () => {
    const f = await contentFixture({ jobs: false });
    const article = await f.publish({ bodyMarkdown: LONG_BODY });
    for (let i = 0; i < 11; i++) await f.publish({ bodyMarkdown: LONG_BODY });
    return { f, article };
  })());

async function get(path: string, headers: Record<string, string> = {}, method = 'GET') {
  const { f } = await world();
  return rawRequest(`${f.base}${path}`, { Authorization: `Bearer ${f.key}`, ...headers }, method);
}

describe('compressed responses', () => {
  it('sends br and gzip that decode to exactly the identity bytes, with Vary and an ETag per coding', async () => {
    const { article } = await world();
    for (const path of ['/articles', `/articles/${article.slug}`, '/sitemap']) {
      const plain = await get(path);
      expect(plain.status, path).toBe(200);
      expect(plain.headers['content-encoding'], path).toBeUndefined();
      expect(plain.headers.vary, path).toBe('Accept-Encoding');
      expect(plain.body.length, path).toBeGreaterThan(1024);
      const br = await get(path, { 'Accept-Encoding': 'br' });
      const gz = await get(path, { 'Accept-Encoding': 'gzip' });
      expect(br.headers['content-encoding'], path).toBe('br');
      expect(gz.headers['content-encoding'], path).toBe('gzip');
      expect(brotliDecompressSync(br.body).equals(plain.body), path).toBe(true);
      expect(gunzipSync(gz.body).equals(plain.body), path).toBe(true);
      expect(br.body.length).toBeLessThan(plain.body.length);
      expect(Number(br.headers['content-length'])).toBe(br.body.length);
      for (const r of [br, gz]) expect(r.headers.vary).toBe('Accept-Encoding');
      const tags = new Set([plain.headers.etag, br.headers.etag, gz.headers.etag]);
      expect(tags.size, path).toBe(3);
      for (const r of [plain, br, gz]) expect(r.headers.etag).toMatch(/^"[\w-]+"$/);
    }
  }, 60_000); // the first test also builds the world

  it('answers 304 to the ETag of the coding it would send, with Vary, and a full answer to another coding', async () => {
    const { article } = await world();
    const path = `/articles/${article.slug}`;
    const br = await get(path, { 'Accept-Encoding': 'br' });
    const same = await get(path, { 'Accept-Encoding': 'br', 'If-None-Match': br.headers.etag! });
    expect(same.status).toBe(304);
    expect(same.headers.etag).toBe(br.headers.etag);
    expect(same.headers.vary).toBe('Accept-Encoding');
    expect(same.body.length).toBe(0);
    const gz = await get(path, { 'Accept-Encoding': 'gzip', 'If-None-Match': br.headers.etag! });
    expect(gz.status).toBe(200);
    expect(gz.headers['content-encoding']).toBe('gzip');
    const plain = await get(path, { 'If-None-Match': br.headers.etag! });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const plain304 = await get(path, { 'If-None-Match': plain.headers.etag! });
    expect(plain304.status).toBe(304);
    const gz304 = await get(path, { 'Accept-Encoding': 'gzip, deflate', 'If-None-Match': `"x", ${gz.headers.etag}` });
    expect(gz304.status).toBe(304);
  });

  it('follows the weights of Accept-Encoding (RFC 9110 12.5.3)', async () => {
    const { article } = await world();
    const cases: Array<[string, string | undefined]> = [
      ['', undefined],
      ['identity', undefined],
      ['br;q=0', undefined],
      ['gzip;q=0, br;q=0', undefined],
      ['identity;q=0', undefined], // nothing acceptable: identity anyway
      ['*;q=0', undefined],
      ['deflate', undefined],
      ['br;q=0, gzip', 'gzip'],
      ['gzip, br', 'br'],
      ['GZIP', 'gzip'],
      ['x-gzip', 'gzip'],
      ['*', 'br'],
      ['*, br;q=0', 'gzip'],
      ['br;q=0.5, gzip;q=0.8', 'gzip'],
      ['gzip;q=0.5, identity', undefined],
      ['gzip;q=0.5', 'gzip'],
      ['br;q=1.5, gzip', 'gzip'], // a malformed weight: that entry is ignored
      ['br;q=abc', undefined],
      [' br ; q=0.9 , gzip ; q=0.1 ', 'br'],
    ];
    const path = `/articles/${article.slug}`;
    for (const [header, expected] of cases) {
      const res = await get(path, header === '' ? {} : { 'Accept-Encoding': header });
      expect(res.status, header).toBe(200);
      expect(res.headers['content-encoding'], JSON.stringify(header)).toBe(expected);
    }
  });

  it('answers HEAD with the coded length and no body', async () => {
    const { article } = await world();
    const path = `/articles/${article.slug}`;
    const br = await get(path, { 'Accept-Encoding': 'br' });
    const head = await get(path, { 'Accept-Encoding': 'br' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-encoding']).toBe('br');
    expect(Number(head.headers['content-length'])).toBe(br.body.length);
    expect(head.body.length).toBe(0);
  });

  it('sends bodies under 1 KB and errors as they are', async () => {
    const tags = await get('/tags', { 'Accept-Encoding': 'br, gzip' });
    expect(tags.status).toBe(200);
    expect(tags.body.length).toBeLessThan(1024);
    expect(tags.headers['content-encoding']).toBeUndefined();
    expect(tags.headers.vary).toBe('Accept-Encoding');
    const missing = await get('/articles/no-such-article', { 'Accept-Encoding': 'br' });
    expect(missing.status).toBe(404);
    expect(missing.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(missing.body.toString()).error.code).toBe('not_found');
    const bad = await get('/articles?limit=0', { 'Accept-Encoding': 'gzip' });
    expect(bad.status).toBe(400);
    expect(bad.headers['content-encoding']).toBeUndefined();
  });

  it('compresses each cached response once per coding, concurrent first requests included, and again after a change', async () => {
    const { f } = await world();
    await f.publish({ bodyMarkdown: LONG_BODY }); // a new version of the sitemap, not compressed yet
    const before = await compressions(f);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => get('/sitemap', { 'Accept-Encoding': i % 2 ? 'br' : 'gzip' })));
    for (let i = 0; i < 5; i++) answers.push(await get('/sitemap', { 'Accept-Encoding': 'br' }));
    expect(new Set(answers.map((a) => a.headers.etag)).size).toBe(2);
    const after = await compressions(f);
    expect((after.br ?? 0) - (before.br ?? 0)).toBe(1);
    expect((after.gzip ?? 0) - (before.gzip ?? 0)).toBe(1);
    // A publish makes a new version of the sitemap: compressed once more, and the old ETag is stale.
    await f.publish({ bodyMarkdown: LONG_BODY });
    const fresh = await Promise.all([get('/sitemap', { 'Accept-Encoding': 'br' }), get('/sitemap', { 'Accept-Encoding': 'br', 'If-None-Match': answers[1].headers.etag! })]);
    expect(fresh[1].status).toBe(200);
    expect(fresh[0].headers.etag).not.toBe(answers[1].headers.etag);
    expect((await compressions(f)).br - (after.br ?? 0)).toBe(1);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { BlogClient, ContentApiError } from '../../packages/content-client/src/index.js';
import { createPreview } from '../../src/publishing/previews.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { contentFixture } from '../content-api/fixture.js';
import { checkedFetch } from '../helpers/openapi-contract.js'; // every response checked against the OpenAPI document

describe('svc-content-client BlogClient against the real daemon', () => {
  afterEach(() => {
    delete process.env.SVC_URL;
  });

  it('has the template client methods with their signatures, plus categories, tags and the sitemap', async () => {
    const f = await contentFixture();
    const a = await f.publish({ title: 'Client one', contentType: 'GUIDE', focusKeyword: 'shared', featuredImageUrl: 'https://img.example/a.png' });
    const b = await f.publish({ title: 'Client two', slug: 'кофе-мир', focusKeyword: 'shared' });
    const client = new BlogClient(f.key, { baseUrl: `${f.d.url}/`, fetch: checkedFetch });

    const all = await client.getArticles(0, 10);
    expect(Object.keys(all)).toEqual(['articles', 'total']);
    expect(all.total).toBe(2);
    expect(all.articles.map((x) => x.id)).toEqual([b.id, a.id]);
    // The template types say image is a string: '' for an article without one.
    expect(all.articles.map((x) => x.image)).toEqual(['', 'https://img.example/a.png']);
    expect((await client.getArticles(1, 1)).articles.map((x) => x.id)).toEqual([a.id]);
    expect((await client.getCategoryArticles('guides', 0)).articles.map((x) => x.id)).toEqual([a.id]);
    expect(await client.getTagArticles('shared', 0, 10)).toMatchObject({ total: 2 });

    const article = await client.getArticle('кофе-мир');
    expect(article).toMatchObject({ id: b.id, image: '', published: true, deleted: false, relatedPosts: [{ id: a.id }] });
    expect(await client.getArticle('missing')).toBeNull();

    expect(await client.getCategories()).toEqual([
      { title: 'Blog', slug: 'blog', count: 1 },
      { title: 'Guides', slug: 'guides', count: 1 },
    ]);
    expect(await client.getTags()).toEqual([{ title: 'shared', slug: 'shared', count: 2 }]);
    expect((await client.getSitemap()).articles.map((x) => x.slug)).toEqual(['кофе-мир', a.slug]);
  });

  it('decodes a slug handed over percent-encoded (Next.js params) once before encoding it', async () => {
    const f = await contentFixture();
    const a = await f.publish({ title: 'Japanese', slug: '日本語-ガイド', focusKeyword: 'お茶', contentType: 'HOW_TO' });
    const seen: string[] = [];
    const client = new BlogClient(f.key, { baseUrl: f.d.url, fetch: (url, init) => (seen.push(url), checkedFetch(url, init)) });
    expect((await client.getArticle(encodeURIComponent('日本語-ガイド')))?.id).toBe(a.id);
    expect((await client.getArticle('日本語-ガイド'))?.id).toBe(a.id);
    expect(seen[0]).toBe(seen[1]);
    expect(seen[0]).toBe(`${f.d.url}/api/v1/content/articles/${encodeURIComponent('日本語-ガイド')}`);
    expect((await client.getTagArticles(encodeURIComponent('お茶'), 0)).articles.map((x) => x.id)).toEqual([a.id]);
    expect((await client.getTagArticles('お茶', 0)).articles.map((x) => x.id)).toEqual([a.id]);
    // Text that is no percent-encoding is sent as given (and is simply not found).
    expect(await client.getArticle('100%-sure')).toBeNull();
  });

  it('searches with q and reads a draft with a preview token', async () => {
    const f = await contentFixture({ siteUrl: 'https://blog.example.com' });
    const hit = await f.publish({ title: 'Cold brew at home', bodyMarkdown: '## Steps\n\nSteep the coffee overnight in cold water.' });
    await f.publish({ title: 'Garden tools', bodyMarkdown: '## Spades\n\nDig.' });
    const client = new BlogClient(f.key, { baseUrl: f.d.url, fetch: checkedFetch });
    expect((await client.search('overnight')).articles.map((x) => x.id)).toEqual([hit.id]);
    expect((await client.getArticles(0, 10, { q: 'overnight' })).total).toBe(1);
    expect((await client.getCategoryArticles('blog', 0, 10, { q: 'spades' })).total).toBe(1);

    const ws = await getWorkspace(f.d.app, f.ws.id);
    const draft = await f.d.app.db('articles').where({ id: hit.id }).first();
    const grant = await createPreview(f.d.app, ws, draft.slug);
    expect((await client.getArticle(hit.slug, { preview: grant.token }))?.id).toBe(hit.id);
    expect(await client.getArticle(hit.slug, { preview: 'svc_preview_wrong' })).toBeNull();
  });

  it('takes the base URL from SVC_URL, and says what is missing', async () => {
    const f = await contentFixture();
    expect(() => new BlogClient('')).toThrow(/blog key must be given/);
    expect(() => new BlogClient(f.key)).toThrow(/SVC_URL/);
    process.env.SVC_URL = f.d.url;
    expect((await new BlogClient(f.key).getArticles(0)).total).toBe(0);
  });

  it('throws ContentApiError with the code for a bad key or bad parameters, and for an answer that is not the API', async () => {
    const f = await contentFixture();
    const bad = new BlogClient('svc_blog_nope', { baseUrl: f.d.url, fetch: checkedFetch });
    await expect(bad.getArticles(0)).rejects.toMatchObject({ name: 'ContentApiError', status: 401, code: 'invalid_key', message: 'Invalid blog key' });
    await expect(bad.getArticle('x')).rejects.toMatchObject({ status: 401 });
    const good = new BlogClient(f.key, { baseUrl: f.d.url, fetch: checkedFetch });
    const err = await good.getArticles(0, 500).catch((e) => e);
    expect(err).toBeInstanceOf(ContentApiError);
    expect(err).toMatchObject({ status: 400, code: 'invalid_parameter' });
    const proxy = new BlogClient(f.key, { baseUrl: f.d.url, fetch: async () => ({ status: 502, ok: false, json: async () => { throw new SyntaxError('Unexpected token <'); } }) });
    await expect(proxy.getTags()).rejects.toMatchObject({ status: 502, code: 'http_error', message: 'The content API answered 502' });
  });
});

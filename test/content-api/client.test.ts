import { describe, expect, it } from 'vitest';
import { ContentApiError, createContentClient } from '../../src/client/index.js';
import { createContentClient as fromPackageEntry } from '../../src/index.js';
import { contentFixture } from './fixture.js';
import { checkedFetch } from '../helpers/openapi-contract.js'; // every response checked against the OpenAPI document

describe('typed content client against the real daemon', () => {
  it('implements the template client methods and the extra lists', async () => {
    const f = await contentFixture();
    const a = await f.publish({ title: 'Client one', contentType: 'GUIDE', focusKeyword: 'shared' });
    const b = await f.publish({ title: 'Client two', slug: 'кофе-мир', focusKeyword: 'shared' });
    const client = createContentClient({ baseUrl: `${f.d.url}/`, key: f.key, fetch: checkedFetch });
    expect(fromPackageEntry).toBe(createContentClient);

    const all = await client.getArticles(0, 10);
    expect(all.total).toBe(2);
    expect(all.articles.map((x) => x.id)).toEqual([b.id, a.id]);
    expect(Object.keys(all)).toEqual(['articles', 'total']);
    expect((await client.getArticles(1, 1)).articles.map((x) => x.id)).toEqual([a.id]);
    expect((await client.getCategoryArticles('guides', 0, 10)).articles.map((x) => x.id)).toEqual([a.id]);
    expect(await client.getTagArticles('shared', 0, 10)).toMatchObject({ total: 2 });

    const article = await client.getArticle('кофе-мир');
    expect(article).toMatchObject({ id: b.id, published: true, deleted: false, relatedPosts: [{ id: a.id }] });
    expect(await client.getArticle('missing')).toBeNull();

    expect(await client.getCategories()).toEqual([
      { title: 'Blog', slug: 'blog', count: 1 },
      { title: 'Guides', slug: 'guides', count: 1 },
    ]);
    expect(await client.getTags()).toEqual([{ title: 'shared', slug: 'shared', count: 2 }]);
    expect((await client.getSitemap()).articles.map((x) => x.slug)).toEqual(['кофе-мир', a.slug]);
  });

  it('throws ContentApiError with the code for a bad key or bad parameters', async () => {
    const f = await contentFixture();
    const bad = createContentClient({ baseUrl: f.d.url, key: 'svc_blog_nope', fetch: checkedFetch });
    await expect(bad.getArticles()).rejects.toMatchObject({ name: 'ContentApiError', status: 401, code: 'invalid_key', message: 'Invalid blog key' });
    const good = createContentClient({ baseUrl: f.d.url, key: f.key, fetch: checkedFetch });
    const err = await good.getArticles(0, 500).catch((e) => e);
    expect(err).toBeInstanceOf(ContentApiError);
    expect(err).toMatchObject({ status: 400, code: 'invalid_parameter' });
  });

  it('uses the fetch it is given', async () => {
    const f = await contentFixture();
    const seen: string[] = [];
    const client = createContentClient({ baseUrl: f.d.url, key: f.key, fetch: (input, init) => (seen.push(String(input)), checkedFetch(input, init)) });
    await client.getTags();
    expect(seen).toEqual([`${f.d.url}/api/v1/content/tags`]);
  });
});

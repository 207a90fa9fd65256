import { beforeAll, describe, expect, it } from 'vitest';
import { contentFixture } from './fixture.js';

describe('GET /articles, /categories, /tags, /sitemap', () => {
  let f: Awaited<ReturnType<typeof contentFixture>>;
  const ids: string[] = []; // oldest first
  beforeAll(async () => {
    f = await contentFixture();
    const types = ['BLOG_POST', 'GUIDE', 'BLOG_POST', 'LISTICLE', 'BLOG_POST', 'GUIDE', 'BLOG_POST'];
    for (let i = 0; i < types.length; i++) {
      const a = await f.publish({ title: `Post ${i}`, contentType: types[i], focusKeyword: i % 2 === 0 ? 'Even Posts' : 'odd posts', secondaryKeywords: i < 3 ? ['early'] : [] });
      ids.push(a.id);
    }
  });

  it('pages newest first with the default limit 10 and the envelope { data }', async () => {
    const res = await f.api('/articles');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await res.json();
    expect(Object.keys(body)).toEqual(['data']);
    expect(body.data).toMatchObject({ total: 7, page: 0, limit: 10 });
    expect(body.data.articles.map((a: any) => a.id)).toEqual([...ids].reverse());
    expect(body.data.articles[0]).not.toHaveProperty('html');
  });

  it('walks pages and answers a page past the end with [] and the true total', async () => {
    const seen: string[] = [];
    for (let page = 0; page < 4; page++) {
      const { data } = await f.json(`/articles?page=${page}&limit=2`);
      expect(data).toMatchObject({ total: 7, page, limit: 2 });
      seen.push(...data.articles.map((a: any) => a.id));
    }
    expect(seen).toEqual([...ids].reverse());
    expect((await f.json('/articles?page=4&limit=2')).data).toEqual({ articles: [], total: 7, page: 4, limit: 2 });
    expect((await f.json('/articles?page=1000000&limit=100')).data.articles).toEqual([]);
  });

  it('accepts limit 100 and refuses bad page and limit values with invalid_parameter', async () => {
    expect((await f.json('/articles?limit=100')).data.limit).toBe(100);
    const cases: Array<[string, string]> = [
      ['limit=101', 'limit'],
      ['limit=0', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=ten', 'limit'],
      ['limit=1.5', 'limit'],
      ['page=-1', 'page'],
      ['page=abc', 'page'],
      ['page=', 'page'],
      ['page=1&page=2', 'page'],
    ];
    for (const [query, parameter] of cases) {
      const res = await f.api(`/articles?${query}`);
      expect(res.status, query).toBe(400);
      const body = await res.json();
      expect(body.error).toMatchObject({ code: 'invalid_parameter', parameter });
      expect(body.error.message).toContain(parameter);
    }
  });

  it('filters by category, by tag, and by both (AND); unknown slugs give an empty Page', async () => {
    const blog = (await f.json('/articles?category=blog')).data;
    expect(blog.total).toBe(4);
    expect(blog.articles.map((a: any) => a.id)).toEqual([ids[6], ids[4], ids[2], ids[0]]);
    const page1 = (await f.json('/articles?category=blog&limit=3&page=1')).data;
    expect(page1.articles.map((a: any) => a.id)).toEqual([ids[0]]);
    const even = (await f.json('/articles?tag=even-posts')).data;
    expect(even.articles.map((a: any) => a.id)).toEqual([ids[6], ids[4], ids[2], ids[0]]);
    const both = (await f.json('/articles?category=guides&tag=odd-posts')).data;
    expect(both).toMatchObject({ total: 2, page: 0, limit: 10 });
    expect(both.articles.map((a: any) => a.id)).toEqual([ids[5], ids[1]]);
    const bothPaged = (await f.json('/articles?category=blog&tag=early&limit=1&page=1')).data;
    expect(bothPaged).toMatchObject({ total: 2, articles: [{ id: ids[0] }] });
    for (const q of ['category=nope', 'tag=nope', 'category=blog&tag=nope', 'category=guides&tag=even-posts']) {
      expect((await f.json(`/articles?${q}`)).data, q).toEqual({ articles: [], total: 0, page: 0, limit: 10 });
    }
  });

  it('lists categories and tags with counts', async () => {
    const categories = (await f.json('/categories')).data;
    expect(categories).toEqual([
      { title: 'Blog', slug: 'blog', count: 4 },
      { title: 'Guides', slug: 'guides', count: 2 },
      { title: 'Lists', slug: 'lists', count: 1 },
    ]);
    const tags = (await f.json('/tags')).data;
    expect(tags).toEqual([
      { title: 'Even Posts', slug: 'even-posts', count: 4 },
      { title: 'early', slug: 'early', count: 3 },
      { title: 'odd posts', slug: 'odd-posts', count: 3 },
    ]);
  });

  it('serves the sitemap: every article with lastmod = updatedAt and its url, plus categories and tags', async () => {
    const { data } = await f.json('/sitemap');
    const page = (await f.json('/articles?limit=100')).data.articles;
    expect(data.articles).toEqual(page.map((a: any) => ({ slug: a.slug, lastmod: a.updatedAt, url: `https://example.com/blog/${a.slug}` })));
    expect(data.categories.map((c: any) => c.slug).sort()).toEqual(['blog', 'guides', 'lists']);
    expect(data.tags.map((c: any) => c.slug).sort()).toEqual(['early', 'even-posts', 'odd-posts']);
    for (const t of [...data.categories, ...data.tags]) expect(t.lastmod).toMatch(/Z$/);
  });

  it('answers unknown content routes with 404 and other methods with 405', async () => {
    const res = await f.api('/nothing');
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('not_found');
    const post = await f.api('/articles', { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect((await post.json()).error.code).toBe('method_not_allowed');
    const del = await f.api(`/articles/x`, { method: 'DELETE' });
    expect(del.status).toBe(405);
  });
});

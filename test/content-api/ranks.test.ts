import { describe, expect, it } from 'vitest';
import { insertDrafts, updateArticle } from '../../src/articles/service.js';
import { withTransaction } from '../../src/db/tx.js';
import { deleteArticle, publishArticle, unpublishArticle } from '../../src/publishing/publish.js';
import { publishMany } from '../../src/publishing/publish-many.js';
import { getWorkspace } from '../../src/workspaces/service.js';
import { contentFixture } from './fixture.js';

// Pages are served from dense ranks kept up to date on every change (no OFFSET). After a mix of
// unpublishes, deletes and republishes that change category and tags, every way of paging must
// still agree with the full, filtered list.
describe('paging stays consistent after removals and republishes', () => {
  it('agrees with the full list for every page size, category and tag', async () => {
    const f = await contentFixture();
    const types = ['BLOG_POST', 'GUIDE', 'BLOG_POST', 'GUIDE', 'BLOG_POST', 'LISTICLE', 'BLOG_POST', 'GUIDE'];
    const arts = [];
    for (let i = 0; i < types.length; i++) arts.push(await f.publish({ title: `R${i}`, contentType: types[i], focusKeyword: `k${i % 3}`, secondaryKeywords: i % 2 ? ['odd'] : [] }));
    await unpublishArticle(f.d.app, f.ws, arts[2].id);
    await deleteArticle(f.d.app, f.ws, arts[0].id);
    await updateArticle(f.d.app, f.ws, arts[4].id, { contentType: 'GUIDE', focusKeyword: 'k1', secondaryKeywords: ['odd', 'new tag'] });
    await publishArticle(f.d.app, f.ws, arts[4].id);
    await updateArticle(f.d.app, f.ws, arts[5].id, { focusKeyword: 'k2', secondaryKeywords: [] });
    await publishArticle(f.d.app, f.ws, arts[5].id);
    await publishArticle(f.d.app, f.ws, arts[2].id); // back, at its first publish date (publishedAt survives an unpublish)

    const all = (await f.json('/articles?limit=100')).data.articles as any[];
    expect(all.map((a) => a.title)).toEqual(['R7', 'R6', 'R5', 'R4', 'R3', 'R2', 'R1']);
    const filters: Array<[string, (a: any) => boolean]> = [
      ['', () => true],
      ['category=guides', (a) => a.category.slug === 'guides'],
      ['category=blog', (a) => a.category.slug === 'blog'],
      ['tag=odd', (a) => a.tags.some((t: any) => t.slug === 'odd')],
      ['tag=k1', (a) => a.tags.some((t: any) => t.slug === 'k1')],
      ['tag=new-tag', (a) => a.tags.some((t: any) => t.slug === 'new-tag')],
      ['category=guides&tag=odd', (a) => a.category.slug === 'guides' && a.tags.some((t: any) => t.slug === 'odd')],
    ];
    for (const [filter, keep] of filters) {
      const expected = all.filter(keep).map((a) => a.id);
      for (const limit of [1, 2, 3, 4]) {
        const seen: string[] = [];
        for (let page = 0; page * limit < expected.length + limit; page++) {
          const { data } = await f.json(`/articles?${filter}&page=${page}&limit=${limit}`);
          expect(data.total, `${filter} limit ${limit}`).toBe(expected.length);
          seen.push(...data.articles.map((a: any) => a.id));
        }
        expect(seen, `${filter} limit ${limit}`).toEqual(expected);
      }
    }
    expect(((await f.json('/sitemap')).data.articles as any[]).map((e) => e.slug)).toEqual(all.map((a) => a.slug));
    const counts = Object.fromEntries(((await f.json('/categories')).data as any[]).map((c) => [c.slug, c.count]));
    expect(counts).toEqual({ blog: 2, guides: 4, lists: 1 });
    const tags = Object.fromEntries(((await f.json('/tags')).data as any[]).map((c) => [c.slug, c.count]));
    expect(tags).toEqual({ k0: 2, k1: 3, k2: 2, odd: 4, 'new-tag': 1 });
  });

  it('keeps the sitemap in order across its stored blocks (more than 256 articles)', async () => {
    const f = await contentFixture();
    // The first 250 published at once, older first, as an import publishes them (one block); the
    // last 20 one at a time, as they are written: they fill that block and open the next.
    const ws = await getWorkspace(f.d.app, f.ws.id);
    const dated = (i: number) => new Date(Date.parse('2024-01-01T00:00:00Z') + i * 3_600_000).toISOString();
    const items = Array.from({ length: 250 }, (_, i) => ({ input: { title: `S${i}`, slug: `s${i}`, bodyMarkdown: 'Short.' }, imported: { publishedAt: dated(i), updatedAt: dated(i) } }));
    const arts = await withTransaction(f.d.app.db, (trx) => insertDrafts({ ...f.d.app, db: trx }, ws, items));
    expect((await publishMany(f.d.app, ws, arts)).published).toHaveLength(250);
    for (let i = 250; i < 270; i++) arts.push(await f.publish({ title: `S${i}`, bodyMarkdown: 'Short.' }));
    const blocks = await f.d.app.db('content_sitemap_blocks').where({ workspace_id: f.ws.id }).count({ n: '*' }).first();
    expect(Number(blocks!.n)).toBe(2);
    await unpublishArticle(f.d.app, f.ws, arts[10].id);
    await deleteArticle(f.d.app, f.ws, arts[260].id);
    await updateArticle(f.d.app, f.ws, arts[5].id, { title: 'S5 again' });
    await publishArticle(f.d.app, f.ws, arts[5].id);
    const expected = arts.filter((_, i) => i !== 10 && i !== 260).map((a) => a.slug).reverse();
    const { data } = await f.json('/sitemap');
    expect(data.articles.map((e: any) => e.slug)).toEqual(expected);
    const listed: string[] = [];
    for (let page = 0; page < 3; page++) listed.push(...(await f.json(`/articles?limit=100&page=${page}`)).data.articles.map((a: any) => a.slug));
    expect(listed).toEqual(expected);
  });
});

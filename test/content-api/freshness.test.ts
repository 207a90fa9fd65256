import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { seedArticle } from '../helpers/seed.js';
import { contentFixture } from './fixture.js';

describe('caching headers and conditional requests', () => {
  it('sends exactly Cache-Control: private, max-age=60, an ETag and Last-Modified, and answers 304s', async () => {
    const f = await contentFixture();
    const a = await f.publish();
    for (const path of ['/articles', `/articles/${a.slug}`, '/categories', '/tags', '/sitemap']) {
      const res = await f.api(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('cache-control')).toBe('private, max-age=60');
      const etag = res.headers.get('etag')!;
      expect(etag).toMatch(/^"[\w-]+"$/);
      const lastModified = res.headers.get('last-modified')!;
      expect(Date.parse(lastModified)).not.toBeNaN();
      // Node's fetch adds Cache-Control: no-cache to conditional requests; still a 304.
      const again = await f.api(path, { headers: { 'If-None-Match': etag, 'Cache-Control': 'no-cache' } });
      expect(again.status, path).toBe(304);
      expect(again.headers.get('etag')).toBe(etag);
      expect(await again.text()).toBe('');
      const since = await f.api(path, { headers: { 'If-Modified-Since': lastModified } });
      expect(since.status, path).toBe(304);
      const other = await f.api(path, { headers: { 'If-None-Match': '"something-else"' } });
      expect(other.status, path).toBe(200);
    }
  });

  it('changes the ETag when the content changes', async () => {
    const f = await contentFixture();
    await f.publish();
    const first = (await f.api('/articles')).headers.get('etag')!;
    await f.publish();
    const res = await f.api('/articles', { headers: { 'If-None-Match': first } });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).not.toBe(first);
  });
});

describe('freshness across processes (CLI in another App, same database)', () => {
  it('reflects publish, republish, unpublish and delete the moment the command returns', async () => {
    const f = await contentFixture();
    const a = await seedArticle(f.d.app, f.ws, { title: 'Fresh one' });
    // Warm every cache first.
    expect((await f.json('/articles')).data.total).toBe(0);
    expect((await f.api(`/articles/${a.slug}`)).status).toBe(404);
    await f.json('/sitemap');
    await f.json('/tags');

    const cli = (args: string[]) => runCli([...args, '--workspace', f.ws.name], f.cli);
    let r = await cli(['articles', 'publish', a.slug]);
    expect(r.code, r.stderr).toBe(0);
    expect((await f.json('/articles')).data.articles.map((x: any) => x.id)).toEqual([a.id]);
    const first = (await f.json(`/articles/${a.slug}`)).data;
    expect((await f.json('/sitemap')).data.articles).toHaveLength(1);

    r = await cli(['articles', 'edit', a.slug, '--title', 'Fresh two']);
    expect(r.code, r.stderr).toBe(0);
    expect((await f.json(`/articles/${a.slug}`)).data.title).toBe('Fresh one');
    r = await cli(['articles', 'publish', a.slug]);
    expect(r.code, r.stderr).toBe(0);
    const second = (await f.json(`/articles/${a.slug}`)).data;
    expect(second.title).toBe('Fresh two');
    expect(second.publishedAt).toBe(first.publishedAt);
    expect(second.updatedAt > first.updatedAt).toBe(true);

    r = await cli(['articles', 'unpublish', a.slug]);
    expect(r.code, r.stderr).toBe(0);
    expect((await f.api(`/articles/${a.slug}`)).status).toBe(404);
    expect((await f.json('/articles')).data).toMatchObject({ articles: [], total: 0 });
    expect((await f.json('/sitemap')).data.articles).toEqual([]);
    expect((await f.json('/tags')).data).toEqual([]);

    r = await cli(['articles', 'publish', a.slug]);
    expect(r.code, r.stderr).toBe(0);
    expect((await f.api(`/articles/${a.slug}`)).status).toBe(200);
    r = await cli(['articles', 'delete', a.slug, '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect((await f.api(`/articles/${a.slug}`)).status).toBe(404);
    expect((await f.json('/articles')).data.total).toBe(0);
    expect((await f.json('/categories')).data).toEqual([]);
  });

  it('serves a burst of concurrent readers the state committed before they asked', async () => {
    const f = await contentFixture();
    for (let round = 1; round <= 5; round++) {
      await runCli(['articles', 'add', '--title', `Burst ${round}`, '--workspace', f.ws.name], f.cli);
      const r = await runCli(['articles', 'publish', `burst-${round}`, '--workspace', f.ws.name], f.cli);
      expect(r.code, r.stderr).toBe(0);
      const totals = await Promise.all(Array.from({ length: 20 }, () => f.json('/articles').then((b) => b.data.total)));
      expect(new Set(totals)).toEqual(new Set([round]));
    }
  });

  it('stays fresh with a database pool of one connection (the version read takes its turn on it)', async () => {
    const f = await contentFixture({ overrides: { 'database.poolMax': 1 } });
    expect((await f.json('/articles')).data.total).toBe(0);
    const r = await runCli(['articles', 'add', '--title', 'Pool one', '--workspace', f.ws.name], f.cli);
    expect(r.code, r.stderr).toBe(0);
    expect((await runCli(['articles', 'publish', 'pool-one', '--workspace', f.ws.name], f.cli)).code).toBe(0);
    expect((await f.json('/articles')).data.articles.map((a: any) => a.slug)).toEqual(['pool-one']);
  });
});

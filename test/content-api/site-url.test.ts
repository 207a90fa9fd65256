import { describe, expect, it, onTestFinished } from 'vitest';
import { createApp } from '../../src/app.js';
import { createLogger } from '../../src/lib/log.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { getWorkspace, updateWorkspace } from '../../src/workspaces/service.js';
import { runCli } from '../helpers/cli.js';
import { TestClock } from '../helpers/clock.js';
import { seedArticle } from '../helpers/seed.js';
import { contentFixture } from './fixture.js';

// Issue 11: article urls follow the workspace's site URL and content path, composed when served.
describe('content API: changing the site URL or content path', () => {
  it('moves every url, the JSON-LD page and the sitemap at once, also when another process changed it', async () => {
    // The daemon's clock runs a minute behind the CLI's: the change comes after the publishes
    // at HTTP-date resolution (whole seconds), as it does for real.
    const clock = new TestClock();
    clock.advance(-60_000);
    const f = await contentFixture({ jobs: false, clock });
    await f.publish({ title: 'Hello world' });
    await f.publish({ title: 'Crème brûlée', slug: 'crème-brûlée' });
    const before = await f.api('/articles/hello-world');
    const etag = before.headers.get('etag')!;
    const lastModified = before.headers.get('last-modified')!;
    expect((await before.json()).data.url).toBe('https://example.com/blog/hello-world');
    const sitemapEtag = (await f.api('/sitemap')).headers.get('etag')!;
    const page = await (await f.api('/articles')).text();

    // The CLI is another App with its own connections: only the database tells the daemon.
    const set = await runCli(['workspaces', 'set', '-w', f.ws.name, '--site-url', 'https://blog.example.org/news/', '--content-path', 'posts'], { env: f.d.env, cwd: f.d.dir });
    expect(set.stderr).toBe('');

    const after = await f.api('/articles/hello-world', { headers: { 'If-None-Match': etag } });
    expect(after.status).toBe(200);
    const { data } = await after.json();
    expect(data.url).toBe('https://blog.example.org/news/posts/hello-world');
    expect(JSON.parse(data.schemaJsonLd).mainEntityOfPage).toEqual({ '@type': 'WebPage', '@id': data.url });
    expect(after.headers.get('etag')).not.toBe(etag);
    expect(Date.parse(after.headers.get('last-modified')!)).toBeGreaterThan(Date.parse(lastModified));
    expect((await f.api('/articles/hello-world', { headers: { 'If-Modified-Since': lastModified } })).status, 'a client that only knows the old date gets the new url').toBe(200);

    const sitemap = await f.api('/sitemap', { headers: { 'If-None-Match': sitemapEtag } });
    expect(sitemap.status).toBe(200);
    expect((await sitemap.json()).data.articles.map((e: { url: string }) => e.url).sort()).toEqual([
      'https://blog.example.org/news/posts/cr%C3%A8me-br%C3%BBl%C3%A9e',
      'https://blog.example.org/news/posts/hello-world',
    ]);
    expect(await (await f.api('/articles')).text(), 'lists carry no url: unchanged').toBe(page);

    // Clearing the site URL falls back to the website; a republish keeps the composed url.
    await runCli(['workspaces', 'set', '-w', f.ws.name, '--site-url', '', '--content-path', '/'], { env: f.d.env, cwd: f.d.dir });
    expect((await f.json('/articles/hello-world')).data.url).toBe('https://example.com/hello-world');
    // The stored urls (https://example.com/blog/...) start with the new prefix: still stale.
    expect((await f.json('/sitemap')).data.articles.map((e: { url: string }) => e.url).sort()).toEqual([
      'https://example.com/cr%C3%A8me-br%C3%BBl%C3%A9e',
      'https://example.com/hello-world',
    ]);
    await runCli(['articles', 'publish', 'hello-world', '-w', f.ws.name], { env: f.d.env, cwd: f.d.dir });
    expect((await f.json('/articles/hello-world')).data.url).toBe('https://example.com/hello-world');
    expect((await f.json('/sitemap')).data.articles.map((e: { url: string }) => e.url)).toContain('https://example.com/hello-world');
  });

  it('publishes racing a settings change made by another process all end up with the new urls', async () => {
    const f = await contentFixture({ jobs: false });
    const drafts = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => seedArticle(f.d.app, f.ws, { title: `Post ${i}` })));
    const ws = await getWorkspace(f.d.app, f.ws.id); // read before the change, as a slow publisher would
    const other = await createApp({ config: f.d.config, log: createLogger('silent') }); // its own connections and events
    onTestFinished(() => other.close());
    await Promise.all([...drafts.map((a) => publishArticle(f.d.app, ws, a.id)), updateWorkspace(other, f.ws.id, { siteUrl: 'https://new.example' })]);
    const urls = (await f.json('/sitemap')).data.articles.map((e: { url: string }) => e.url);
    expect(urls.sort()).toEqual(drafts.map((a) => `https://new.example/blog/${a.slug}`).sort());
    for (const a of drafts) expect((await f.json(`/articles/${a.slug}`)).data.url).toBe(`https://new.example/blog/${a.slug}`);
  });
});

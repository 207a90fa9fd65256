import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { importWorld, slugDates } from './world.js';

describe('import a Hugo site (YAML and TOML front matter, page bundles, drafts)', () => {
  it('imports and publishes in one command; the content API and the webhook show the old slugs and dates', async () => {
    const started = Date.now();
    const w = await importWorld({ webhook: true });
    w.fixture('hugo');
    const r = await w.cli(['articles', 'import', '--publish', 'hugo/content']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Imported 4 articles into ${w.ws.name.replace(/\./g, '\\.')}: 3 published, 1 draft\n`));
    // Said once each, never a reason to refuse the batch.
    expect(r.stderr.split('\n').filter(Boolean)).toEqual([
      'note: Skipped 1: Hugo section pages (_index.md, lists rather than posts): hugo/content/posts/_index.md',
      'note: Front matter keys not carried over (svc has no field for them): layout (1 file: hugo/content/posts/naive-date.md), weight (1 file: hugo/content/posts/second-post/index.md)',
      'note: 2 dates without a time zone read as UTC: hugo/content/posts/naive-date.md: date 2020-01-02 03:04:05, hugo/content/posts/work-in-progress.md: date 2024-08-09',
    ]);

    // Newest first by the old dates; lastmod as updatedAt; the draft stays out.
    const list = await w.api('/articles');
    expect(list.body.data.total).toBe(3);
    expect(slugDates(list.body.data.articles)).toEqual([
      ['second-post', '2022-02-03T04:05:06.000Z', '2022-05-01T00:00:00.000Z'],
      ['first-post', '2021-03-04T08:15:00.000Z', '2023-06-07T08:00:00.000Z'],
      ['naive-date', '2020-01-02T03:04:05.000Z', '2020-01-02T03:04:05.000Z'],
    ]);
    // The list changed now: Last-Modified is not the old site's date (or If-Modified-Since would answer 304 to a stale copy).
    expect(Date.parse(list.headers.get('last-modified')!)).toBeGreaterThanOrEqual(Math.floor(started / 1000) * 1000);
    expect((await w.api('/articles/work-in-progress')).status).toBe(404);

    const first = (await w.api('/articles/first-post')).body.data;
    expect(first).toMatchObject({
      title: 'First post: keyword research',
      metaDescription: 'How we pick keywords.',
      category: { slug: 'guides', title: 'Guides' },
      tags: [{ slug: 'seo' }, { slug: 'keyword-research' }, { slug: 'search-volume' }],
      image: 'https://example.com/images/first.png',
      author: 'Ann Author',
      url: 'https://example.com/blog/first-post',
    });
    expect(JSON.parse(first.schemaJsonLd)).toMatchObject({ datePublished: '2021-03-04T08:15:00.000Z', dateModified: '2023-06-07T08:00:00.000Z' });
    expect(first.html).toContain('<img src="https://example.com/images/chart.png" alt="a chart"');
    // TOML front matter, a page bundle's folder as slug, a free category kept as a tag, cover { image, alt }.
    expect((await w.api('/articles/second-post')).body.data).toMatchObject({
      metaDescription: 'A TOML front matter post.',
      category: { slug: 'blog' },
      tags: [{ slug: 'seo' }, { slug: 'news', title: 'News' }],
      image: 'https://example.com/img/cover.jpg',
      imageAlt: 'A cover',
      // Both share a tag; naive-date is in the same category too.
      relatedPosts: [{ slug: 'naive-date' }, { slug: 'first-post' }],
    });

    const sitemap = (await w.api('/sitemap')).body.data;
    expect(sitemap.articles.map((a: { slug: string; lastmod: string }) => [a.slug, a.lastmod])).toEqual([
      ['second-post', '2022-05-01T00:00:00.000Z'],
      ['first-post', '2023-06-07T08:00:00.000Z'],
      ['naive-date', '2020-01-02T03:04:05.000Z'],
    ]);
    // A tag's lastmod is its latest post's, whatever order they were published in (first-post
    // was updated after second-post, published after it).
    expect(sitemap.tags).toContainEqual({ slug: 'seo', lastmod: '2023-06-07T08:00:00.000Z' });
    expect(sitemap.categories).toEqual([
      { slug: 'blog', lastmod: '2022-05-01T00:00:00.000Z' },
      { slug: 'guides', lastmod: '2023-06-07T08:00:00.000Z' },
    ]);

    // The receiver hears article.published with the same first-publish times.
    const got = await w.receiver!.waitFor(3);
    expect(got.map((x) => [x.body.event, x.body.article.slug, x.body.article.publishedAt]).sort()).toEqual([
      ['article.published', 'first-post', '2021-03-04T08:15:00.000Z'],
      ['article.published', 'naive-date', '2020-01-02T03:04:05.000Z'],
      ['article.published', 'second-post', '2022-02-03T04:05:06.000Z'],
    ]);

    const draft = (await w.cli(['articles', 'show', 'work-in-progress', '--json'])).json();
    expect(draft).toMatchObject({ status: 'draft', importedPublishedAt: '2024-08-09T00:00:00.000Z' });
  });

  it('an older post imported later slots in below, and leaves newer lastmods alone', async () => {
    const w = await importWorld();
    w.fixture('hugo');
    expect((await w.cli(['articles', 'import', '--publish', 'hugo/content'])).code).toBe(0);
    writeFileSync(path.join(w.d.dir, 'older.md'), '---\ntitle: Older\ndate: 2018-01-01T00:00:00Z\ntags: [SEO]\n---\nOld text.\n');
    expect((await w.cli(['articles', 'import', '--publish', 'older.md'])).code).toBe(0);
    const sitemap = (await w.api('/sitemap')).body.data;
    expect(sitemap.articles.map((a: { slug: string }) => a.slug)).toEqual(['second-post', 'first-post', 'naive-date', 'older']);
    expect(sitemap.tags).toContainEqual({ slug: 'seo', lastmod: '2023-06-07T08:00:00.000Z' });
    expect(sitemap.categories).toContainEqual({ slug: 'blog', lastmod: '2022-05-01T00:00:00.000Z' });
    expect((await w.api('/articles?tag=seo&limit=2&page=1')).body.data.articles.map((a: { slug: string }) => a.slug)).toEqual(['naive-date', 'older']);
  });

  it('a republish moves updatedAt to now and keeps the old publishedAt', async () => {
    const w = await importWorld();
    w.fixture('hugo');
    // On a terminal: a bar for the import, then one for the publishing.
    const tty = await runCli(['articles', 'import', '--publish', 'hugo/content', '--workspace', w.ws.name], { env: w.d.env, cwd: w.d.dir, interactive: true });
    expect(tty.code).toBe(0);
    expect(tty.stderr).toContain(`\rImporting [${'#'.repeat(30)}] 4/4\n`);
    expect(tty.stderr).toContain(`\rPublishing [${'#'.repeat(30)}] 3/3\n`);
    const before = Date.now();
    expect((await w.cli(['articles', 'publish', 'first-post'])).code).toBe(0);
    const a = (await w.api('/articles/first-post')).body.data;
    expect(a.publishedAt).toBe('2021-03-04T08:15:00.000Z');
    expect(Date.parse(a.updatedAt)).toBeGreaterThanOrEqual(before);
    expect((await w.api('/articles')).body.data.articles[1].slug).toBe('first-post');
  });
});

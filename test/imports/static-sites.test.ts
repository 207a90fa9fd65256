import { describe, expect, it } from 'vitest';
import { importWorld, slugDates } from './world.js';

describe('import Jekyll, Astro and Next.js posts', () => {
  it('reads each generator\'s keys: dates from Jekyll file names, _drafts, Astro pubDate/updatedDate/heroImage, Next.js excerpt/coverImage/author', async () => {
    const w = await importWorld();
    for (const name of ['jekyll', 'astro', 'nextjs']) w.fixture(name);
    const r = await w.cli(['articles', 'import', '--publish', 'jekyll', 'astro', 'nextjs', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ counts: { imported: 4, published: 3, scheduled: 0, drafts: 1, failed: 0 } });
    expect(r.json().notes).toEqual([
      'Front matter keys not carried over (svc has no field for them): layout (1 file: jekyll/_posts/2019-05-06-welcome-to-jekyll.md)',
      '3 dates without a time zone read as UTC: jekyll/_posts/2019-05-06-welcome-to-jekyll.md: file name date 2019-05-06, astro/src/content/blog/using-mdx.md: pubDate Jun 01 2024, astro/src/content/blog/using-mdx.md: updatedDate Jul 02 2024',
    ]);
    expect(slugDates((await w.api('/articles')).body.data.articles)).toEqual([
      ['using-mdx', '2024-06-01T00:00:00.000Z', '2024-07-02T00:00:00.000Z'],
      ['hello-world', '2020-03-16T05:35:07.322Z', '2020-03-16T05:35:07.322Z'],
      ['welcome-to-jekyll', '2019-05-06T00:00:00.000Z', '2019-05-06T00:00:00.000Z'],
    ]);
    // Jekyll: the slug without the date; space-separated categories, the first naming a content type.
    const jekyll = (await w.api('/articles/welcome-to-jekyll')).body.data;
    expect(jekyll).toMatchObject({ category: { slug: 'how-to' }, tags: [{ slug: 'ruby' }, { slug: 'jekyll' }] });
    // Jekyll's {% highlight %} pair is its code block.
    expect(jekyll.html).toContain("<pre><code class=\"language-ruby\">puts 'hi'\n</code></pre>");
    expect((await w.api('/articles/using-mdx')).body.data).toMatchObject({ metaDescription: 'Lorem ipsum dolor sit amet', image: 'https://example.com/blog-placeholder-5.jpg' });
    expect((await w.api('/articles/hello-world')).body.data).toMatchObject({
      title: 'Learn How to Pre-render Pages Using Static Generation with Next.js',
      metaDescription: 'Lorem ipsum dolor sit amet, consectetur adipiscing elit.',
      image: 'https://cdn.example.net/assets/blog/hello-world/cover.jpg',
      author: 'Tim Neutkens',
    });
    expect((await w.cli(['articles', 'show', 'an-idea', '--json'])).json()).toMatchObject({ status: 'draft', title: 'An idea' });
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { updateArticle } from '../../src/articles/service.js';
import { publishArticle } from '../../src/publishing/publish.js';
import { contentFixture } from './fixture.js';

const BODY = `# The Title In The Body

Intro paragraph with **bold** text and [a link](https://example.org).

## First section

${'word '.repeat(390)}

<script>alert('x')</script>

<img src="https://example.org/a.png" onerror="alert(1)">

[click me](javascript:alert(1))

### A sub heading

## FAQ

### Is this a question?

Yes, it is the answer.

### And another one?

Another answer.
`;

describe('GET /articles/{slug}', () => {
  let f: Awaited<ReturnType<typeof contentFixture>>;
  beforeAll(async () => {
    f = await contentFixture({ siteUrl: 'https://blog.example.com/' });
  });

  it('serves every Article field, computed at publish time', async () => {
    const a = await f.publish({
      title: 'Ignored? no: explicit title',
      bodyMarkdown: BODY,
      contentType: 'GUIDE',
      focusKeyword: 'Garden Tools',
      secondaryKeywords: ['garden tools', 'Pruning', 'Soil care'],
      metaDescription: 'All about tools',
      featuredImageUrl: 'https://img.example.com/x.jpg',
      imageAlt: 'A rake',
      author: 'Ada',
    });
    const { data } = await f.json(`/articles/${a.slug}`);
    expect(data).toMatchObject({
      id: a.id,
      slug: a.slug,
      title: a.title,
      headline: a.title,
      metaDescription: 'All about tools',
      metaTitle: a.title,
      image: 'https://img.example.com/x.jpg',
      imageAlt: 'A rake',
      author: 'Ada',
      focusKeyword: 'Garden Tools',
      category: { id: 'guides', title: 'Guides', slug: 'guides' },
      tags: [
        { id: 'garden-tools', title: 'Garden Tools', slug: 'garden-tools' },
        { id: 'pruning', title: 'Pruning', slug: 'pruning' },
        { id: 'soil-care', title: 'Soil care', slug: 'soil-care' },
      ],
      metaKeywords: 'Garden Tools, Pruning, Soil care',
      url: `https://blog.example.com/blog/${a.slug}`,
      outline: ['First section', 'A sub heading', 'FAQ', 'Is this a question?', 'And another one?'],
      deleted: false,
      published: true,
      relatedPosts: [],
    });
    expect(typeof data.id).toBe('string');
    expect(data.wordCount).toBeGreaterThan(400);
    expect(data.readingTime).toBe(Math.ceil(data.wordCount / 200));
    for (const field of ['publishedAt', 'createdAt', 'updatedAt']) expect(data[field]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // The H1 is the title, not part of the body.
    expect(data.html).not.toContain('<h1');
    expect(data.markdown).not.toContain('# The Title In The Body');
    expect(data.html).toContain('<h2 id="first-section">First section</h2>');
    expect(data.html).toContain('<strong>bold</strong>');
    const ld = JSON.parse(data.schemaJsonLd);
    expect(ld['@graph'][0]).toMatchObject({ '@type': 'Article', headline: a.title, author: { name: 'Ada' }, mainEntityOfPage: { '@id': data.url } });
    expect(ld['@graph'][1]).toMatchObject({
      '@type': 'FAQPage',
      mainEntity: [
        { '@type': 'Question', name: 'Is this a question?', acceptedAnswer: { text: 'Yes, it is the answer.' } },
        { '@type': 'Question', name: 'And another one?', acceptedAnswer: { text: 'Another answer.' } },
      ],
    });
  });

  it('removes scripts, event handlers and javascript: links from html', async () => {
    const a = await f.publish({ bodyMarkdown: BODY });
    const { data } = await f.json(`/articles/${a.slug}`);
    expect(data.html).not.toMatch(/<script/i);
    expect(data.html).not.toMatch(/onerror/i);
    expect(data.html).not.toMatch(/javascript:/i);
    expect(data.html).toContain('<img src="https://example.org/a.png" />');
  });

  it('serves a URL-encoded non-ASCII slug', async () => {
    const a = await f.publish({ title: 'Привет мир', slug: 'привет-мир' });
    const res = await f.api(`/articles/${encodeURIComponent('привет-мир')}`);
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({ id: a.id, slug: 'привет-мир', url: `https://blog.example.com/blog/${encodeURIComponent('привет-мир')}` });
  });

  it('answers 404 not_found for an unknown slug and for a draft', async () => {
    for (const slug of ['no-such-post', (await f.publish()).slug + '-x']) {
      const res = await f.api(`/articles/${slug}`);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: { code: 'not_found', message: `Article "${slug}" not found` } });
    }
    const { seedArticle } = await import('../helpers/seed.js');
    const draft = await seedArticle(f.d.app, f.ws);
    expect((await f.api(`/articles/${draft.slug}`)).status).toBe(404);
  });

  it('keeps the live snapshot when the article is edited, until it is republished (which moves updatedAt)', async () => {
    const a = await f.publish({ title: 'Before edit' });
    const first = (await f.json(`/articles/${a.slug}`)).data;
    await updateArticle(f.d.app, f.ws, a.id, { title: 'After edit', bodyMarkdown: '## Changed\n\nNew text.' });
    const still = (await f.json(`/articles/${a.slug}`)).data;
    expect(still.title).toBe('Before edit');
    expect(still.updatedAt).toBe(first.updatedAt);
    await new Promise((r) => setTimeout(r, 5));
    await publishArticle(f.d.app, f.ws, a.id);
    const after = (await f.json(`/articles/${a.slug}`)).data;
    expect(after.title).toBe('After edit');
    expect(after.outline).toEqual(['Changed']);
    expect(after.publishedAt).toBe(first.publishedAt);
    expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(first.updatedAt));
  });
});

describe('relatedPosts', () => {
  it('lists up to 3 posts: most shared tags first, then same category, then newest', async () => {
    const f = await contentFixture();
    const main = await f.publish({ title: 'Main', contentType: 'BLOG_POST', focusKeyword: 'alpha', secondaryKeywords: ['beta', 'gamma'] });
    const twoTags = await f.publish({ title: 'Two tags', contentType: 'LISTICLE', focusKeyword: 'alpha', secondaryKeywords: ['beta'] });
    const oneTagSameCat = await f.publish({ title: 'One tag same category', contentType: 'BLOG_POST', focusKeyword: 'gamma' });
    const oneTagOtherCat = await f.publish({ title: 'One tag other category', contentType: 'GUIDE', focusKeyword: 'beta' });
    await f.publish({ title: 'Same category only', contentType: 'BLOG_POST', focusKeyword: 'delta' });
    await f.publish({ title: 'Unrelated', contentType: 'COMPARISON', focusKeyword: 'zeta' });
    const { data } = await f.json(`/articles/${main.slug}`);
    expect(data.relatedPosts).toEqual([
      { id: twoTags.id, headline: 'Two tags', slug: twoTags.slug },
      { id: oneTagSameCat.id, headline: 'One tag same category', slug: oneTagSameCat.slug },
      { id: oneTagOtherCat.id, headline: 'One tag other category', slug: oneTagOtherCat.slug },
    ]);
    const lonely = await f.publish({ title: 'Lonely', contentType: 'HOW_TO', focusKeyword: 'omega' });
    expect((await f.json(`/articles/${lonely.slug}`)).data.relatedPosts).toEqual([]);
    const sameCat = (await f.json(`/articles/${oneTagSameCat.slug}`)).data.relatedPosts.map((p: any) => p.headline);
    expect(sameCat).toEqual(['Main', 'Same category only']);
  });
});

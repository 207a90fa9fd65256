import { describe, expect, it } from 'vitest';
import { importWorld, slugDates } from './world.js';

describe('import a WordPress WXR export', () => {
  it('posts with post_date_gmt, categories, tags, slugs (percent-encoded ones decoded), Yoast fields and featured images; drafts stay drafts; pages, attachments and trash skipped', async () => {
    const w = await importWorld();
    w.fixture('wordpress-export.xml');
    const r = await w.cli(['articles', 'import', '--publish', 'wordpress-export.xml', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = r.json();
    expect(report.counts).toEqual({ imported: 3, already: 0, published: 2, scheduled: 0, drafts: 1, failed: 0 });
    expect(report.notes).toEqual([
      'Skipped 1: WordPress pages (svc imports posts): wordpress-export.xml: page "about"',
      'Skipped 1: WordPress attachments (their URLs stay in the posts that show them): wordpress-export.xml: attachment "photo"',
      'Skipped 1: WordPress posts in the trash or auto-drafts: wordpress-export.xml: post "trashed__trashed"',
    ]);
    expect(slugDates((await w.api('/articles')).body.data.articles)).toEqual([
      ['block-editor-post', '2024-05-01T10:00:00.000Z', '2024-06-01T10:00:00.000Z'],
      ['привет-мир', '2015-03-04T05:06:07.000Z', '2015-03-04T05:06:07.000Z'],
    ]);
    const block = (await w.api('/articles/block-editor-post')).body.data;
    expect(block).toMatchObject({
      title: 'Block editor post & friends',
      // Yoast's title was a template (%%title%% %%sep%%): the post title serves instead.
      metaTitle: 'Block editor post & friends',
      metaDescription: 'Yoast description of the block post.',
      focusKeyword: 'block editor',
      category: { slug: 'comparisons' },
      tags: [{ slug: 'block-editor' }, { slug: 'wordpress' }, { slug: 'news-notes', title: 'News & Notes' }],
      image: 'https://old.example.com/wp-content/uploads/2024/05/photo.jpg',
      imageAlt: 'Photo alt text',
      author: 'Wendy Press',
    });
    expect(block.markdown).toBe('Written in the **block editor**.\n\n## A heading\n\n![A photo](https://old.example.com/wp-content/uploads/2024/05/photo.jpg)\n\n```\necho "hello"\n```');
    // The classic editor's blank-line paragraphs, [caption] and <pre>; the slug as WordPress showed it.
    const classic = await w.api(`/articles/${encodeURIComponent('привет-мир')}`);
    expect(classic.status).toBe(200);
    expect(classic.body.data).toMatchObject({ metaDescription: 'The classic excerpt & more.', category: { slug: 'blog' }, tags: [] });
    expect(classic.body.data.markdown).toBe(
      'First paragraph of the classic editor.  \nSame paragraph, next line.\n\n![Captioned](https://old.example.com/wp-content/uploads/cap.jpg)\n\nThe caption text\n\n' +
        'Second paragraph with [a link](https://example.org).\n\n```\ncode\n  kept\n\n  with a blank line\n```',
    );
    expect((await w.cli(['articles', 'show', 'a-wordpress-draft', '--json'])).json()).toMatchObject({ status: 'draft', importedPublishedAt: null, author: 'Wendy Press' });
  });
});

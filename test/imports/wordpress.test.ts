import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { importWorld, slugDates } from './world.js';

describe('import a WordPress WXR export', () => {
  it('on a terminal, the Reading bar of one export counts the items in it, not the one file', async () => {
    const w = await importWorld();
    w.fixture('wordpress-export.xml');
    w.fixture('ghost-export.json');
    const tty = (file: string) => runCli(['articles', 'import', file, '--workspace', w.ws.name], { env: w.d.env, cwd: w.d.dir, interactive: true });
    const wxr = await tty('wordpress-export.xml');
    expect(wxr.code, wxr.stderr).toBe(0);
    expect(wxr.stderr).toContain(`\rReading [${' '.repeat(30)}] 0/6\r`);
    expect(wxr.stderr).toContain(`\rReading [${'#'.repeat(30)}] 6/6\n`);
    const ghost = await tty('ghost-export.json');
    expect(ghost.code, ghost.stderr).toBe(0);
    expect(ghost.stderr).toContain(`\rReading [${'#'.repeat(30)}] 5/5\n`);
  });

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

  it('hostile HTML in a post is still sanitised when it is published', async () => {
    const w = await importWorld();
    const body = '<p onclick="steal()">Hi <a href="javascript:alert(1)">click</a></p><script>alert(1)</script><img src="https://x.example/a.png" onerror="alert(1)">' +
      '<table onmouseover="x()"><tr><td>no heading row</td></tr></table><iframe src="https://evil.example/x"></iframe><iframe src="https://www.youtube.com/embed/abc"></iframe>';
    writeFileSync(
      path.join(w.d.dir, 'hostile.xml'),
      `<?xml version="1.0"?><rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:wp="http://wordpress.org/export/1.2/"><channel><item>
      <title>Hostile</title><content:encoded><![CDATA[${body}]]></content:encoded><wp:post_id>1</wp:post_id><wp:post_date_gmt>2020-01-01 00:00:00</wp:post_date_gmt>
      <wp:post_name>hostile</wp:post_name><wp:status>publish</wp:status><wp:post_type>post</wp:post_type></item></channel></rss>`,
    );
    const r = await w.cli(['articles', 'import', '--publish', 'hostile.xml']);
    expect(r.code, r.stderr).toBe(0);
    const { html, markdown } = (await w.api('/articles/hostile')).body.data;
    for (const bad of ['<script', 'onclick', 'onerror', 'onmouseover', 'javascript:', 'evil.example']) {
      expect(html).not.toContain(bad);
      // HTML the markdown keeps (a table without a heading row, iframes) is cleaned at import too.
      if (bad !== 'javascript:') expect(markdown).not.toContain(bad);
    }
    expect(html).toContain('<img src="https://x.example/a.png"');
    expect(html).toContain('<td>no heading row</td>');
    expect(html).toContain('src="https://www.youtube.com/embed/abc"');
  });
});

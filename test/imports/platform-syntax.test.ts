import { cpSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { platformSyntax } from '../../src/imports/body-syntax.js';
import { remainingTags, templateTags } from '../../src/imports/shortcodes.js';
import { withMediaShortcodes } from '../../src/imports/wordpress-media.js';
import { wxr, write } from './samples.js';
import { importWorld } from './world.js';

// Public content of each platform, kept under test/fixtures/ with its source and licence (SOURCES.md).
const SHARED = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');

const DOCUSAURUS_MD = `---
title: Release notes
slug: /release-notes
---

# Version 3.0 is out

Use a \`{/* truncate */}\` comment to cut the list view, or \`<!-- truncate -->\`.

{/* truncate */}

:::note[Before you upgrade]

Read the guide. {/* a note for editors */}

\`\`\`ts title="docusaurus.config.ts"
// {/* stays */}
:::tip
export default {};
\`\`\`

:::

:::warning
Node 18 is required.
:::

## Migrating {#migrating}

See [the steps](#migrating).
`;

describe('platform syntax is rendered, never shown as text', () => {
  it('Docusaurus .md: MDX comments go (never inside code), admonitions become titled block quotes, fence titles stay, a headline other than the title stays', async () => {
    const w = await importWorld();
    write(w.d.dir, 'release.md', DOCUSAURUS_MD);
    const r = await w.cli(['articles', 'import', '--publish', 'release.md', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().notes).toEqual([]);
    const { html, metaDescription } = (await w.api('/articles/release-notes')).body.data;
    expect(html).toContain('<h1 id="version-30-is-out">Version 3.0 is out</h1>');
    expect(html).toContain('<p>Use a <code>{/* truncate */}</code> comment to cut the list view, or <code>&lt;!-- truncate --&gt;</code>.</p>');
    expect(html).toContain('<blockquote>\n<p><strong>Before you upgrade</strong></p>\n<p>Read the guide. </p>\n<figure>\n<figcaption>docusaurus.config.ts</figcaption><pre><code class="language-ts">// {/* stays */}\n:::tip\nexport default {};\n</code></pre>\n</figure></blockquote>');
    expect(html).toContain('<blockquote>\n<p><strong>Warning</strong></p>\n<p>Node 18 is required.</p>\n</blockquote>');
    expect(html).toContain('<h2 id="migrating">Migrating</h2>\n<p>See <a href="#migrating">the steps</a>.</p>');
    expect(html.match(/\{\/\*|:::/g)).toEqual(['{/*', '{/*', ':::']); // only in code
    expect(metaDescription).not.toContain('a note for editors');
  });

  it("Docusaurus's template MDX post: its :::tip with a code block inside is a titled block quote", async () => {
    const w = await importWorld();
    cpSync(path.join(SHARED, 'docusaurus-template'), path.join(w.d.dir, 'docusaurus'), { recursive: true });
    const r = await w.cli(['articles', 'import', '--publish', path.join('docusaurus', 'blog'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const { html } = (await w.api('/articles/mindddddd')).body.data;
    expect(html).toContain('<blockquote>\n<p><strong>Tip</strong></p>\n<p>Use the power of React to create interactive blog posts.</p>\n<pre><code class="language-js">&lt;button onClick={() =&gt; alert(\'button clicked!\')}&gt;Click me!&lt;/button&gt;\n</code></pre>');
    expect(html).not.toContain(':::');
    expect(html).not.toContain('Click me!</p>'); // the JSX button outside the code is left out, as MDX components are
    expect(r.json().notes).toContain(`MDX import/export lines and components were left out (svc publishes markdown; what the components showed is not in the post): ${path.join('docusaurus', 'blog', '2021-08-01-mdx-blog-post.mdx')}`);
  });

  it("Hexo's video tag plugins and Jekyll's kramdown attribute lines: players and no stray {: .class}", async () => {
    const w = await importWorld();
    cpSync(path.join(SHARED, 'hexo-unit-test'), path.join(w.d.dir, 'hexo'), { recursive: true });
    cpSync(path.join(SHARED, 'jekyll-guides'), path.join(w.d.dir, 'guides'), { recursive: true });
    const r = await w.cli(['articles', 'import', '--publish', path.join('hexo', 'source', '_posts', 'videos.md'), path.join('guides', 'avoiding-burnout.md'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().notes).toContain(`kramdown attribute lists ({: .class}) were left out (svc renders no classes): ${path.join('guides', 'avoiding-burnout.md')}`);
    const videos = (await w.api('/articles/videos')).body.data.html;
    expect(videos).toContain('<iframe src="https://www.youtube-nocookie.com/embed/TIbZDRXM-Tg"');
    expect(videos).toContain('<iframe src="https://player.vimeo.com/video/82090131"');
    expect(videos).not.toContain('{%');
    const burnout = (await w.api('/articles/avoiding-burnout')).body.data;
    expect(burnout.html).not.toContain('{:');
    expect(burnout.markdown).not.toContain('{:');
  });

  it('WordPress [audio], [video], [gallery] and [embed], and video URLs alone on a line: links, images and players, each named', async () => {
    const w = await importWorld();
    const attachment = (id: number, url: string) =>
      `<item><title>img</title><wp:post_id>${id}</wp:post_id><wp:post_type>attachment</wp:post_type><wp:status>inherit</wp:status><wp:attachment_url>${url}</wp:attachment_url></item>`;
    const content = [
      '[audio mp3="https://x.example/wp-content/uploads/song.mp3"][/audio]',
      '[video src="https://x.example/wp-content/uploads/clip.mp4"]',
      '[gallery ids="11,12"]',
      '[embed]https://vimeo.com/76979871[/embed]',
      'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
      'https://twitter.com/WordPress/status/1013795442009587712',
      '<code>[audio src="kept.mp3"]</code>',
    ].join('\n\n');
    const xml = wxr([{ id: 1, name: 'media', content }]).replace('</channel>', `${attachment(11, 'https://x.example/a.jpg')}${attachment(12, 'https://x.example/b.jpg')}</channel>`);
    write(w.d.dir, 'media.xml', xml);
    const r = await w.cli(['articles', 'import', '--publish', 'media.xml', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().notes).toEqual(
      expect.arrayContaining([
        'WordPress audio and video players became links to their files (svc renders no players): media.xml: post "media"',
        'Tweets embedded by their URL are shown as links (svc embeds no tweets): media.xml: post "media"',
      ]),
    );
    const { html } = (await w.api('/articles/media')).body.data;
    expect(html).toContain('<a href="https://x.example/wp-content/uploads/song.mp3">Audio: song.mp3</a>');
    expect(html).toContain('<a href="https://x.example/wp-content/uploads/clip.mp4">Video: clip.mp4</a>');
    expect(html).toContain('<img src="https://x.example/a.jpg" alt="" />');
    expect(html).toContain('<img src="https://x.example/b.jpg" alt="" />');
    expect(html).toContain('<iframe src="https://player.vimeo.com/video/76979871"');
    expect(html).toContain('<iframe src="https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ"');
    expect(html).not.toContain('%5C');
    expect(html).toContain('<code>[audio src="kept.mp3"]</code>');
  });

  it('images given as /paths in a markdown body point at --base-url, as featured images do; code, links and other URLs stay', async () => {
    const w = await importWorld();
    write(w.d.dir, 'pictures.md', `---
title: Pictures
image: /assets/cover.jpg
---

![Logo](/assets/logo.png "The logo") and ![Spaced]( </assets/a b.jpg> ).

![CDN](//cdn.example/x.png) ![Remote](https://img.example/y.png) [About](/about)

\`![Code](/assets/in-code.png)\`
`);
    const r = await w.cli(['articles', 'import', '--publish', '--base-url', 'https://old.example.com/blog/', 'pictures.md', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const { markdown, html, image } = (await w.api('/articles/pictures')).body.data;
    expect(image).toBe('https://old.example.com/assets/cover.jpg');
    expect(markdown).toContain('![Logo](https://old.example.com/assets/logo.png "The logo") and ![Spaced]( <https://old.example.com/assets/a b.jpg> ).');
    expect(markdown).toContain('![CDN](//cdn.example/x.png) ![Remote](https://img.example/y.png) [About](/about)');
    expect(markdown).toContain('`![Code](/assets/in-code.png)`');
    expect(html).toContain('<img src="https://old.example.com/assets/logo.png" alt="Logo" title="The logo" />');
    expect(html).toContain('<img src="https://old.example.com/assets/a%20b.jpg" alt="Spaced" />');
  });

  it('hostile bodies cost one pass: openings never closed, long lines of spaces (each would take minutes if rescanned)', () => {
    const n = 100_000;
    const notes: string[] = [];
    const opens = `${'{/* '.repeat(n)}*/} and ${'{/* '.repeat(n)}`;
    expect(platformSyntax(opens, (t) => notes.push(t))).toBe(` and ${'{/* '.repeat(n)}`);
    const spaces = ' '.repeat(n);
    for (const line of [`## a${spaces}b`, `:::tip x${spaces}y\ntext\n:::`, `{{< youtube abc${spaces}x`, `https://youtu.be/abcdefghijk${spaces}x`]) {
      expect(platformSyntax(line, (t) => notes.push(t)).length).toBeGreaterThan(n);
    }
    const shortcodes = '[audio src="x'.repeat(n);
    expect(withMediaShortcodes(shortcodes, { attachments: new Map(), note: () => {} })).toBe(shortcodes);
    // Template tags: openings of one pair kind closed by another, and single tags never closed.
    for (const body of ['{{< highlight go >}}\nx\n'.repeat(n / 10) + '{{< /notice >}}\n', '{% highlight go %}\nx\n'.repeat(n / 10) + '{% endnote %}\n', '{{< figure '.repeat(n / 10), '{% gist '.repeat(n / 10), '{% callout x'.repeat(n / 10)]) {
      expect(templateTags(body, new Set())).toBe(body);
      expect(remainingTags(body).length).toBeGreaterThan(0);
    }
  });
});

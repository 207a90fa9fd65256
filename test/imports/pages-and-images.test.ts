import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { png } from '../images/png.js';
import { wxr } from './samples.js';
import { importWorld } from './world.js';

const SHARED = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A shared fixture imported with --publish from `dir` inside it: the world and the JSON report. */
async function importShared(fixture: string, dir: string) {
  const w = await importWorld();
  cpSync(path.join(SHARED, fixture), path.join(w.d.dir, fixture), { recursive: true });
  const r = await w.cli(['articles', 'import', '--publish', path.join(fixture, dir), '--json']);
  expect(r.code, r.stderr + r.stdout).toBe(0);
  return { w, report: r.json() };
}

describe('pages around the posts are not posts', () => {
  it("Eleventy's starter imported whole: its about page (outside the posts collection its directory data file names) and its 404 (kept out of collections) are skipped by name; the five posts come in", async () => {
    const { w, report } = await importShared('eleventy-base-blog', 'content');
    expect(report.counts).toMatchObject({ imported: 5, failed: 0 });
    const content = path.join('eleventy-base-blog', 'content');
    expect(report.notes).toContain(`Skipped 1: pages Eleventy keeps out of its collections (eleventyExcludeFromCollections: true): ${path.join(content, '404.md')}`);
    expect(report.notes).toContain(`Skipped 1: pages outside Eleventy's posts collection (not tagged posts, post, blog in front matter or a directory data file): ${path.join(content, 'about.md')}`);
    expect((await w.api('/articles/about')).status).toBe(404);
  });

  it('a list page (pagination in its front matter) and files never published (permalink: false) are skipped by name; in a Jekyll or Hexo site, pages outside _posts are', async () => {
    const w = await importWorld();
    const site = path.join(w.d.dir, 'site');
    mkdirSync(path.join(site, '_posts'), { recursive: true });
    mkdirSync(path.join(site, '_drafts'), { recursive: true });
    writeFileSync(path.join(site, '_posts', '2024-01-02-hello.md'), '---\ntitle: Hello\n---\nA post.\n');
    writeFileSync(path.join(site, '_drafts', 'later.md'), '---\ntitle: Later\n---\nA draft.\n');
    writeFileSync(path.join(site, 'about.md'), '---\ntitle: About\nlayout: page\n---\nAbout me.\n');
    writeFileSync(path.join(site, 'blog.md'), '---\nlayout: home\npagination:\n  data: collections.posts\n  size: 10\n---\n{% for post in pagination.items %}{{ post.data.title }}{% endfor %}\n');
    writeFileSync(path.join(site, '_posts', '2024-01-03-hidden.md'), '---\ntitle: Hidden\npermalink: false\n---\nNot written out.\n');
    const r = await w.cli(['articles', 'import', 'site', '--json']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const report = r.json();
    expect(report.imported.map((a: { slug: string }) => a.slug).sort()).toEqual(['hello', 'later']);
    expect(report.notes).toContain(`Skipped 1: list pages (pagination in their front matter: the old site built them from other posts): ${path.join('site', 'blog.md')}`);
    expect(report.notes).toContain(`Skipped 1: files the old site did not publish (permalink: false): ${path.join('site', '_posts', '2024-01-03-hidden.md')}`);
    expect(report.notes).toContain(`Skipped 1: pages outside _posts and _drafts (Jekyll and Hexo publish only those as posts): ${path.join('site', 'about.md')}`);
  });
});

describe("Beautiful Hugo's post with a quoted value running onto an unindented line", () => {
  it('imports as Hugo reads it, the repair named', async () => {
    const { w, report } = await importShared('beautifulhugo', path.join('content', 'post'));
    expect(report.counts).toMatchObject({ imported: 2, failed: 0 });
    const a = (await w.api('/articles/meta-ai-search-summary-limits')).body.data;
    expect(a.title).toBe('Manage robot meta tags an limit AI Overview from using page contents');
    expect(a.metaDescription).toBe('This feature adds the ability to apply robot meta data on page through using custom page paramaters.');
    expect(a.tags.map((t: { title: string }) => t.title)).toEqual(['example', 'summary', 'limits', 'search', 'robots', 'meta tags']);
    expect(report.notes).toContain(
      `Front matter read as Hugo reads it: a quoted value running onto unindented lines, which YAML refuses (description); write it on one line or indent it: ${path.join('beautifulhugo', 'content', 'post', '2026-05-10-meta-ai-search-summary-limits.md')}`,
    );
    const md = (await w.api('/articles/test-markdown')).body.data;
    expect(md.author).toBe('[Michael Henderson](https://example.com), [Jane Doe](https://example.com)');
  });

  it('a quoted value that never closes is still refused with the parser’s reason', async () => {
    const w = await importWorld();
    writeFileSync(path.join(w.d.dir, 'open.md'), '---\ntitle: "Open\nand never closed\n---\nBody.\n');
    const r = await w.cli(['articles', 'import', 'open.md']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('open.md: the front matter is not valid YAML');
  });
});

describe("Hugo's figure shortcode and srcset images beside a post", () => {
  it('are stored and rewritten, every srcset candidate; one that is missing is named with its post', async () => {
    const w = await importWorld();
    const bundle = path.join(w.d.dir, 'site', 'content', 'posts', 'photos');
    mkdirSync(bundle, { recursive: true });
    const [fig, small, large, webp] = [png(4, 3, 1), png(2, 2, 2), png(6, 6, 3), png(5, 5, 4)];
    writeFileSync(path.join(bundle, 'fig.png'), fig);
    writeFileSync(path.join(bundle, 'small.png'), small);
    writeFileSync(path.join(bundle, 'large.png'), large);
    writeFileSync(path.join(bundle, 'wide.png'), webp);
    writeFileSync(
      path.join(bundle, 'index.md'),
      [
        '---',
        'title: Photos',
        'date: 2024-01-02T10:00:00Z',
        '---',
        '{{< figure src="fig.png" caption="A figure" >}}',
        '',
        '<img src="small.png" srcset="small.png 1x, large.png 2x" alt="Two sizes">',
        '',
        '<picture><source srcset="wide.png 800w, gone.png 1600w" media="(min-width: 600px)"><img src="small.png" alt="Art directed"></picture>',
        '',
        '`<img srcset="code.png 2x">` stays code.',
        '',
        '<img src="https://x.example/a.png" srcset="javascript:alert(1) 2x, https://x.example/b.png 3x" onerror="alert(2)">',
        '',
      ].join('\n'),
    );
    const env = { ...w.d.env, SVC_SERVER_BASE_URL: w.d.url };
    const r = await runCli(['articles', 'import', '--publish', 'site', '--json', '--workspace', w.ws.name], { env, cwd: w.d.dir });
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const url = (b: Buffer) => `${w.d.url}/media/${sha(b)}.png`;
    const source = path.join('site', 'content', 'posts', 'photos', 'index.md');
    expect(r.json().images).toMatchObject({ used: 4, added: 4, left: [{ source, image: 'gone.png', reason: 'no such file' }] });
    const a = (await w.api('/articles/photos')).body.data;
    expect(a.html).toContain(`<figure><img src="${url(fig)}" alt="A figure" /><figcaption>A figure</figcaption></figure>`);
    expect(a.html).toContain(`<img src="${url(small)}" srcset="${url(small)} 1x, ${url(large)} 2x" alt="Two sizes" />`);
    expect(a.html).toContain(`<picture><source srcset="${url(webp)} 800w, gone.png 1600w" media="(min-width: 600px)" /><img src="${url(small)}" alt="Art directed" /></picture>`);
    expect(a.markdown).toContain('`<img srcset="code.png 2x">` stays code.');
    // The renderer keeps srcset with its http(s) candidates only, and no handlers.
    expect(a.html).toContain('<img src="https://x.example/a.png" srcset="https://x.example/b.png 3x" />');
    expect(a.html).not.toMatch(/javascript:|onerror/);
    for (const b of [fig, small, large, webp]) expect((await fetch(url(b))).status).toBe(200);
  });
});

describe("Hexo's built-in tag plugins", () => {
  it('blockquote with its source, pullquote, raw, link, img and iframe become what Hexo showed; what svc cannot embed is a link, named', async () => {
    const w = await importWorld();
    mkdirSync(path.join(w.d.dir, 'source', '_posts'), { recursive: true });
    writeFileSync(
      path.join(w.d.dir, 'source', '_posts', 'tags.md'),
      [
        'title: Tags',
        'date: 2024-03-01 10:00:00',
        '---',
        '{% blockquote David Levithan, Wide Awake http://example.org/wide-awake Wide Awake %}',
        'Do not just ask.',
        '{% endblockquote %}',
        '',
        '{% pullquote %}',
        'A quote pulled out.',
        '{% endpullquote %}',
        '',
        '{% raw %}',
        'Shown {{ as is }}.',
        '{% endraw %}',
        '',
        'See {% link The Hexo docs https://hexo.io/docs/ true Hexo %} and {% img left /images/a.png 200 100 \'"A title" "An alt"\' %}.',
        '',
        '{% iframe https://www.youtube.com/embed/ZJthWmvUzzc 560 315 %}',
        '',
        '{% iframe https://example.org/widget 100% 300 %}',
        '',
        'Use <code>{% raw %}{% img %}{% endraw %}</code> for images.',
        '',
      ].join('\n'),
    );
    const r = await w.cli(['articles', 'import', '--publish', 'source', '--json']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const a = (await w.api('/articles/tags')).body.data;
    expect(a.html).toContain('<blockquote>\n<p>Do not just ask.</p>\n<p>— <strong>David Levithan</strong>, <a href="http://example.org/wide-awake">Wide Awake</a></p>\n</blockquote>');
    expect(a.html).toContain('<blockquote>\n<p>A quote pulled out.</p>\n</blockquote>');
    expect(a.html).toContain('<a href="https://hexo.io/docs/" title="Hexo">The Hexo docs</a>');
    expect(a.html).toContain('<img src="https://example.com/images/a.png" alt="An alt" title="A title" />');
    expect(a.html).toContain('<iframe src="https://www.youtube-nocookie.com/embed/ZJthWmvUzzc"');
    expect(a.html).toContain('<a href="https://example.org/widget">https://example.org/widget</a>');
    expect(a.markdown).toContain('Shown {{ as is }}.');
    expect(a.html).toContain('Use <code>{% img %}</code> for images.');
    expect(r.json().notes).toContain(`Pages embedded in an iframe are shown as links (svc embeds only YouTube and Vimeo players): ${path.join('source', '_posts', 'tags.md')}`);
    expect(a.html.replace('<code>{% img %}</code>', '')).not.toMatch(/\{%/);
  });
});

describe("WordPress.com's [audio URL]", () => {
  it('the file given as the first word (as in the theme unit test data) becomes a link to it, named; no stray bracket', async () => {
    const w = await importWorld();
    const url = 'https://wpthemetestdata.files.wordpress.com/2008/06/originaldixielandjazzbandwithalbernard-stlouisblues.mp3';
    writeFileSync(path.join(w.d.dir, 'audio.xml'), wxr([{ id: 9, title: 'Post Format: Audio', name: 'post-format-audio', content: `<a href="${url}">St. Louis Blues</a>\n\n[audio ${url}]` }]));
    const r = await w.cli(['articles', 'import', '--publish', 'audio.xml', '--json']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const a = (await w.api('/articles/post-format-audio')).body.data;
    expect(a.html).toContain(`<a href="${url}">Audio: originaldixielandjazzbandwithalbernard-stlouisblues.mp3</a>`);
    expect(a.html).not.toMatch(/\[audio|%5C%5D/);
    expect(r.json().notes).toContain('WordPress audio and video players became links to their files (svc renders no players): audio.xml: post "post-format-audio"');
  });
});

describe('JSX style attributes in a Docusaurus .md post', () => {
  it('are left out so the tag is HTML again and its text shows, named (as in Prettier 1.15’s release notes)', async () => {
    const w = await importWorld();
    writeFileSync(
      path.join(w.d.dir, '2018-11-07-styled.md'),
      '---\ntitle: Styled\n---\n<h1 style={{padding: 0, marginBottom: "-2rem"}}>🎂</h1>\n\nRun <span style={{color: "#5af78e"}}>cat</span> now. `<b style={{x: 1}}>` stays code.\n',
    );
    const r = await w.cli(['articles', 'import', '--publish', '2018-11-07-styled.md', '--json']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const a = (await w.api('/articles/styled')).body.data;
    expect(a.html).toContain('Run cat now.');
    expect(a.html.replace(/<code>[^<]*<\/code>/, '')).not.toMatch(/style|\{\{/);
    expect(a.html).toContain('🎂</h1>');
    expect(a.html).toContain('<code>&lt;b style={{x: 1}}&gt;</code>');
    expect(r.json().notes).toContain('JSX style attributes (style={{...}}) were left out: svc renders no styles: 2018-11-07-styled.md');
  });
});

describe('an import whose images pass images.workspaceMaxBytes', () => {
  it('is refused before anything is stored, saying how much its new images need in all (not one file at a time); images the workspace holds count once', async () => {
    const w = await importWorld();
    const site = path.join(w.d.dir, 'site');
    mkdirSync(path.join(site, '_posts'), { recursive: true });
    const [held, one, two] = [png(4, 4, 1), png(5, 5, 2), png(6, 6, 3)];
    for (const [name, bytes] of [['held.png', held], ['one.png', one], ['two.png', two]] as const) writeFileSync(path.join(site, '_posts', name), bytes);
    writeFileSync(path.join(site, '_posts', '2024-01-02-a.md'), '---\ntitle: A\n---\n![held](held.png) ![one](one.png)\n');
    writeFileSync(path.join(site, '_posts', '2024-01-03-b.md'), '---\ntitle: B\n---\n![two](two.png)\n');
    const cap = { ...w.d.env, SVC_IMAGES_WORKSPACE_MAX_BYTES: String(held.length + one.length + two.length - 1) };
    const first = await runCli(['images', 'add', path.join('site', '_posts', 'held.png'), '--workspace', w.ws.name], { env: cap, cwd: w.d.dir });
    expect(first.code, first.stderr).toBe(0);
    const r = await runCli(['articles', 'import', 'site', '--workspace', w.ws.name], { env: cap, cwd: w.d.dir });
    expect(r.code, r.stdout).not.toBe(0);
    expect(r.stderr).toContain(`The 2 new images of these posts (${((one.length + two.length) / 1024).toFixed(1)} KB) do not fit: the workspace's images already take ${(held.length / 1024).toFixed(1)} KB`);
    expect(Number((await w.d.app.db('images').where({ workspace_id: w.ws.id }).count({ n: '*' }).first())!.n)).toBe(1);
    expect(Number((await w.d.app.db('articles').where({ workspace_id: w.ws.id }).count({ n: '*' }).first())!.n)).toBe(0);
  });
});

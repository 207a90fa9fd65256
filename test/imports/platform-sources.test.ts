import { cpSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importWorld } from './world.js';

const SHARED = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');

// Real public posts of each platform, kept under test/fixtures/ with their source, commit and
// licence (SOURCES.md): what a reader of the old site saw is what svc serves, and what it cannot
// show is named per post in the import summary.
async function imported(fixture: string, dir: string, extra: string[] = []) {
  const w = await importWorld();
  cpSync(path.join(SHARED, fixture), path.join(w.d.dir, fixture), { recursive: true });
  const r = await w.cli(['articles', 'import', '--publish', ...extra, dir, '--json']);
  expect(r.code, r.stderr + r.stdout).toBe(0);
  const summary = r.json() as { notes: string[]; counts: { imported: number; failed: number } };
  return { w, summary, article: async (slug: string) => (await w.api(`/articles/${slug}`)).body.data };
}

const prose = (html: string) => html.replace(/<pre>[\s\S]*?<\/pre>|<code[^>]*>[\s\S]*?<\/code>/g, '');

describe('every platform’s own syntax, on real posts', () => {
  it("Hugo Coder's example posts: built-in shortcodes become the player, a link to the tweet (named), callouts quoted under their kind", async () => {
    const { summary, article } = await imported('hugo-coder', 'hugo-coder/content/posts');
    expect(summary.counts).toMatchObject({ imported: 2, failed: 0 });
    const rich = await article('rich-content');
    expect(rich.html).toContain('<iframe src="https://www.youtube-nocookie.com/embed/ZJthWmvUzzc"');
    expect(rich.html).toContain('<iframe src="https://player.vimeo.com/video/48912912"');
    expect(rich.html).toContain('<a href="https://x.com/SanDiegoZoo/status/1453110110599868418">');
    expect(summary.notes).toContain('Tweets embedded by their URL are shown as links (svc embeds no tweets): hugo-coder/content/posts/rich-content.md');
    const more = await article('more-rich-content');
    for (const [title, text] of [['Note', 'One note here.'], ['Tip', "I'm giving a tip about something."], ['Warning', 'This is the last warning!'], ['Error', 'There is an error in your code.']]) {
      expect(more.html).toContain(`<blockquote>\n<p><strong>${title}</strong></p>\n<p>${text}</p>\n</blockquote>`);
    }
    expect(`${rich.html}${more.html}`).not.toMatch(/\{\{|\{%/);
  });

  it("Hexo's own release notes: {% note %} tag pairs are quoted under their kind, code stays code", async () => {
    const { summary, article } = await imported('hexo-site', 'hexo-site/source/_posts');
    expect(summary.counts).toMatchObject({ imported: 1, failed: 0 });
    const a = await article('hexo-7-0-0-released');
    expect(a.title).toBe('Hexo 7.0.0 Released');
    expect(a.publishedAt).toBe('2023-11-03T00:00:00.000Z');
    expect(a.html).toContain('<blockquote>\n<p><strong>Warning</strong></p>\n<p>Some of the built-in tags have been dropped');
    expect(a.html).toContain('<blockquote>\n<p><strong>Info</strong></p>\n<p>No need to install it');
    expect(a.html).toContain('<code class="language-sh">$ npm i hexo-tag-embed');
    expect(prose(a.html)).not.toMatch(/\{%/);
    expect(summary.notes.join('\n')).not.toContain('kept as text');
  });

  it("Eleventy's own blog: front-matter variables and the url filter resolve, links between posts follow them, Nunjucks comments and one-line callouts do not show, what stays is named", async () => {
    const { summary, article } = await imported('eleventy-website', 'eleventy-website/blog');
    expect(summary.counts).toMatchObject({ imported: 4, failed: 0 });
    const v3 = await article('eleventy-v3');
    expect(v3.html).toContain('<strong><a href="https://github.com/11ty/eleventy/releases/tag/v3.0.0">Eleventy v3.0.0: Possums ❤️ ESM</a></strong>');
    expect(v3.html).toContain('<a href="https://example.com/blog/three-point-oh-beta-one">Eleventy v3.0.0-beta.1 now available</a>');
    // The card written as HTML around the variable, and the variable passed through urlencode.
    expect(v3.html).toContain('<a href="https://github.com/11ty/eleventy/releases/tag/v3.0.0">\n  <img src="https://screenshot.11ty.app/https%3A%2F%2Fgithub.com%2F11ty%2Feleventy%2Freleases%2Ftag%2Fv3.0.0/opengraph/"');
    expect(v3.html).not.toContain('{{');
    const survey = await article('community-survey');
    expect(survey.html).toMatch(/^<blockquote>\n<p><strong>New Survey Alert<\/strong><\/p>\n<p>This is last year’s survey\./);
    const pro = await article('build-awesome-pro');
    expect(pro.html).not.toContain('autoplay disabled');
    expect(summary.notes).toContain('Template tags of the old site with no meaning svc knows were kept as text ({{ config.kickstarterUrl }}, {% include %}): eleventy-website/blog/2026-04-28-build-awesome-pro.md');
  });

  it("Eleventy's high-performance starter: links written with the url filter point at the imported posts", async () => {
    const { summary, article } = await imported('eleventy-hpb', 'eleventy-hpb/posts');
    expect(summary.counts).toMatchObject({ imported: 3, failed: 0 });
    const second = await article('secondpost');
    expect(second.html).toContain('<a href="https://example.com/blog/firstpost">First post</a>');
    expect(second.html).toContain('<a href="https://example.com/blog/thirdpost">Third post</a>');
    expect(summary.notes.join('\n')).toContain('/posts/firstpost/ -> https://example.com/blog/firstpost');
  });

  it("Astro Cactus's admonitions (remark directives in a .md file) are quoted under their kind or their own title", async () => {
    const { article } = await imported('astro-cactus', 'astro-cactus/content/posts');
    const a = await article('admonitions');
    expect(a.html).toContain('<blockquote>\n<p><strong>Note</strong></p>\n<p>Highlights information that users should take into account, even when skimming.</p>\n</blockquote>');
    expect(a.html).toContain('<p><strong>My custom title</strong></p>');
    expect(prose(a.html)).not.toContain(':::');
  });

  it("Docusaurus's own blog: {/* truncate */}, heading ids in MDX comments, <!--truncate--> and :::info do not show; code titles are captions", async () => {
    const { article } = await imported('docusaurus-website', 'docusaurus-website/blog');
    const i18n = await article('releasing-docusaurus-i18n');
    expect(i18n.html).toContain('<h2 id="translate-your-site">Translate your site</h2>');
    expect(i18n.html).not.toMatch(/\{\/\*|truncate/);
    expect(i18n.metaDescription).not.toContain('truncate');
    const search = await article('algolia-docsearch-migration');
    expect(search.html).toContain('<blockquote>\n<p><strong>Info</strong></p>');
    expect(search.html).toContain('<figcaption>docusaurus.config.js</figcaption>');
    expect(search.html).toContain('<h3 id="im-using-docusaurus-and-docsearch-can-i-migrate">');
  });

  it("Gatsby's starters: a post of the official blog starter and one of Lumen (slug with its /posts/ prefix, named as moved)", async () => {
    const official = await imported('gatsby-starter-blog', 'gatsby-starter-blog/content/blog');
    expect(await official.article('my-second-post')).toMatchObject({ title: 'My Second Post!', publishedAt: '2015-05-06T23:46:37.121Z' });
    const lumen = await imported('gatsby-lumen', 'gatsby-lumen/content/posts');
    const a = await lumen.article('a-brief-history-of-typography');
    expect(a.title).toBe('A Brief History of Typography');
    expect(lumen.summary.notes.join('\n')).toContain('/posts/a-brief-history-of-typography -> a-brief-history-of-typography');
  });
});

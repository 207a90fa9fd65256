import { createHash } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { wordSimilarity, wxrBodies } from './similarity.js';
import { importWorld } from './world.js';

// More real public sources of each platform, kept under test/fixtures/ with their source, commit
// and licence (SOURCES.md): every post accounted for, its text as the old site had it, the
// platform's syntax not shown as text, images and links carried, what differs named.
const SHARED = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function imported(fixture: string, arg: string, opts: { env?: boolean; prepare?: (dir: string) => void; drafts?: boolean } = {}) {
  const w = await importWorld();
  cpSync(path.join(SHARED, fixture), path.join(w.d.dir, fixture), { recursive: true });
  opts.prepare?.(w.d.dir);
  const env = opts.env ? { ...w.d.env, SVC_SERVER_BASE_URL: w.d.url } : w.d.env;
  const r = await runCli(['articles', 'import', ...(opts.drafts ? [] : ['--publish']), arg, '--json', '--workspace', w.ws.name], { env, cwd: w.d.dir });
  expect(r.code, r.stderr + r.stdout).toBe(0);
  const report = r.json() as { notes: string[]; counts: Record<string, number>; imported: Array<{ slug: string; status: string }>; images: { used: number; left: unknown[] } };
  const article = async (slug: string) => (await w.api(`/articles/${slug}`)).body.data;
  return { w, report, article };
}

const shown = (html: string) => html.replace(/<pre>[\s\S]*?<\/pre>|<code[^>]*>[\s\S]*?<\/code>/g, '');

describe('WordPress exports of three sites', () => {
  it("the WordPress importer's own export of a WordPress 3.1 site: every post in, pages counted, text as WordPress had it", async () => {
    const file = path.join('wordpress-importer', 'small-export.xml');
    const { report, article } = await imported('wordpress-importer', file);
    expect(report.counts).toMatchObject({ imported: 6, published: 5, drafts: 1, failed: 0 });
    expect(report.notes).toContain(`Private WordPress posts were imported as drafts: ${file}: post "private-post"`);
    expect(report.notes.find((n) => n.startsWith('Skipped 5: WordPress pages'))).toBeDefined();
    const source = wxrBodies(readFileSync(path.join(SHARED, file), 'utf8'));
    for (const a of report.imported.filter((x) => x.status === 'published')) {
      const got = await article(a.slug);
      expect(wordSimilarity(source.get(a.slug)!, got.html), a.slug).toBeGreaterThanOrEqual(0.99);
    }
  });

  it("the accessibility theme unit test data (WordPress.com): captions in either form, a YouTube URL alone on its line, a gallery without ids and a password named, prose in brackets not taken for a shortcode", async () => {
    const file = path.join('wordpress-a11y', 'a11y-unit-test-data.xml');
    const { report, article } = await imported('wordpress-a11y', file);
    expect(report.counts).toMatchObject({ imported: 10, failed: 0 });
    expect(report.notes).toContain(`WordPress galleries without the ids of their images were left out (add the images to these posts): ${file}: post "post-format-gallery"`);
    expect(report.notes).toContain(`Password-protected WordPress posts were imported as drafts: ${file}: post "template-password-protected"`);
    expect(report.notes.join('\n')).not.toContain('shortcodes were kept as text');
    expect((await article('post-format-image-caption')).html).toContain('Bell on wharf in San Francisco');
    // WordPress before 3.4 kept the caption in the shortcode's caption="..." attribute.
    expect((await article('post-format-image-linked')).html).toContain('Chunk of resinous blackboy husk, Clarkson, Western Australia. This burns like a spinifex log.');
    expect((await article('post-format-video-youtube')).html).toContain('<iframe src="https://www.youtube-nocookie.com/embed/SQEQr7c0-dw"');
    const standard = await article('post-format-standard');
    expect(standard.html).toContain('coracles [simple boat]');
    const source = wxrBodies(readFileSync(path.join(SHARED, file), 'utf8'));
    expect(wordSimilarity(source.get('post-format-standard')!, standard.html)).toBeGreaterThanOrEqual(0.99);
    for (const slug of ['post-format-gallery', 'post-format-image-caption', 'post-format-image-linked', 'template-more-tag']) expect(shown((await article(slug)).html)).not.toMatch(/\[\/?(gallery|caption)\b|<!--more-->/);
  });

  it('WordPress Content Framework (a WordPress 4.1 export): 23 posts in, pages and menu items counted, text as WordPress had it', async () => {
    const file = path.join('wordpress-wpcf', 'wordpress-content-framework-wxr.xml');
    const { report, article } = await imported('wordpress-wpcf', file);
    expect(report.counts).toMatchObject({ imported: 23, published: 23, failed: 0 });
    expect(report.notes.find((n) => n.startsWith('Skipped 5: WordPress pages'))).toBeDefined();
    expect(report.notes.find((n) => n.startsWith('Skipped 10: WordPress "nav_menu_item" items'))).toBeDefined();
    const source = wxrBodies(readFileSync(path.join(SHARED, file), 'utf8'));
    for (const a of report.imported) expect(wordSimilarity(source.get(a.slug)!, (await article(a.slug)).html), a.slug).toBeGreaterThanOrEqual(0.99);
  });
});

describe('a Ghost 0.7 blog and the same blog moved to Jekyll', () => {
  it("Ghost 0.x marks pages with page: 1: they are skipped, not imported as posts; a script is named; the text is Ghost's", async () => {
    const file = path.join('ghost-0.7-blog', 'ghost.json');
    const { report, article } = await imported('ghost-0.7-blog', file);
    expect(report.counts).toMatchObject({ imported: 5, published: 4, drafts: 1, failed: 0 });
    expect(report.notes).toContain(`Skipped 1: Ghost pages (svc imports posts): ${file}: page "about-me"`);
    expect(report.notes).toContain(`Ghost posts with scripts (embedded widgets) lost them: svc publishes no scripts: ${file}: post "on-icon-fonts"`);
    const export_ = JSON.parse(readFileSync(path.join(SHARED, file), 'utf8')).db[0].data.posts as Array<{ slug: string; html: string; status: string; page: number }>;
    for (const p of export_.filter((x) => x.status === 'published' && !x.page)) expect(wordSimilarity(p.html, (await article(p.slug)).html), p.slug).toBeGreaterThanOrEqual(0.98);
    const mono = await article('mono');
    expect(mono.html).toContain('<img src="https://example.com/content/images/2015/01/Paul-Davis--20150111-.jpg" alt="Mono Screenshot"');
  });

  it('the Jekyll posts of the same blog: a date with a one-digit hour is read as Jekyll reads it; footnotes render as kramdown renders them; a CodePen script, which svc does not show, is named', async () => {
    const posts = path.join('jekyll-paul-davis', '_posts');
    const { report, article } = await imported('jekyll-paul-davis', posts);
    expect(report.counts).toMatchObject({ imported: 4, published: 4, failed: 0 });
    expect((await article('burnout')).publishedAt).toBe('2015-11-18T00:27:00.000Z');
    // Footnotes render as Jekyll's kramdown renders them: nothing to name.
    expect(report.notes.join('\n')).not.toMatch(/footnote/i);
    const mono = (await article('mono')).html;
    expect(mono).toContain('humanly possible<sup><a href="#fn-1" id="fn-ref-1">1</a></sup>');
    expect(mono).toContain('For posterity<sup><a href="#fn-2" id="fn-ref-2">2</a></sup>');
    expect(mono).toMatch(/<section class="footnotes">\s*<ol>\s*<li id="fn-1">\s*<p>Which is good for my contribution streak too\. <a href="#fn-ref-1" aria-label="Back to reference 1">↩<\/a><\/p>\s*<\/li>\s*<li id="fn-2">/);
    expect(mono).not.toContain('[^');
    expect((await article('burnout')).html).toContain('<li id="fn-1">\n<p>It was meant to be around 45 minutes long.');
    expect(report.notes).toContain(`Scripts in the body (embedded widgets such as a CodePen or a form) were left out: svc publishes no scripts (what they showed is not in the post): ${path.join(posts, '2014-04-26-on-icon-fonts.markdown')}`);
    const ghost = await imported('ghost-0.7-blog', path.join('ghost-0.7-blog', 'ghost.json'));
    for (const slug of ['starting-again', 'mono']) expect(wordSimilarity((await ghost.article(slug)).html, (await article(slug)).html), slug).toBeGreaterThanOrEqual(0.95);
  });
});

describe('a Docusaurus blog, an Astro theme and a Gatsby theme', () => {
  it("Prettier's blog (Docusaurus): authors from authors.yml, images beside the posts stored, truncate markers and heading ids not shown", async () => {
    const { w, report, article } = await imported('prettier-blog', path.join('prettier-blog', 'blog'), { env: true });
    expect(report.counts).toMatchObject({ imported: 2, failed: 0 });
    expect(report.images).toMatchObject({ used: 2, left: [] });
    const deep = await article('cli-deep-dive');
    expect(deep.author).toBe('Fabio Spampinato');
    const arch = readFileSync(path.join(SHARED, 'prettier-blog', 'blog', 'assets', 'prettier-architecture.png'));
    expect(deep.html).toContain(`<img src="${w.d.url}/media/${sha(arch)}.png"`);
    const release = await article('3.8.0');
    expect(release.author).toBe('Fisker Cheung');
    expect(release.html).toContain('<h4 id="change-18593">');
    expect(shown(release.html)).not.toMatch(/truncate|\{#change/);
  });

  it('AstroWind (Astro): the featured image, author and tags from its front matter; the MDX components named', async () => {
    const { report, article } = await imported('astrowind', path.join('astrowind', 'src', 'data', 'post'));
    expect(report.counts).toMatchObject({ imported: 2, failed: 0 });
    const a = await article('get-started-website-with-astro-tailwind-css');
    expect(a).toMatchObject({ author: 'John Smith', publishedAt: '2023-08-12T00:00:00.000Z' });
    expect(a.featuredImageUrl ?? a.image).toMatch(/^https:\/\/images\.unsplash\.com\/photo-1516996087931/);
    expect(a.tags.map((t: { title: string }) => t.title)).toEqual(expect.arrayContaining(['astro', 'tailwind css']));
    expect(report.notes).toContain(`MDX import/export lines and components were left out (svc publishes markdown; what the components showed is not in the post): ${path.join('astrowind', 'src', 'data', 'post', 'markdown-elements-demo-post.mdx')}`);
    const source = readFileSync(path.join(SHARED, 'astrowind', 'src', 'data', 'post', 'get-started-website-with-astro-tailwind-css.md'), 'utf8').split('\n---\n').slice(1).join('\n---\n');
    expect(wordSimilarity(source, a.html)).toBeGreaterThanOrEqual(0.97);
  });

  it("LekoArts' minimal blog (Gatsby): its slug override, the image beside the post stored, the banner the fixture leaves out named", async () => {
    const posts = path.join('gatsby-minimal-blog', 'content', 'posts');
    const { w, report, article } = await imported('gatsby-minimal-blog', posts, { env: true });
    expect(report.counts).toMatchObject({ imported: 2, failed: 0 });
    expect((await article('normal-text-override')).title).toBe('Normal Text');
    const potions = readFileSync(path.join(SHARED, 'gatsby-minimal-blog', 'content', 'posts', 'with-images', 'potions.jpg'));
    expect((await article('with-images')).html).toContain(`<img src="${w.d.url}/media/${sha(potions)}.jpg" alt="Potions Class"`);
    expect(report.images.left).toEqual([{ source: path.join(posts, 'with-images', 'index.mdx'), image: './defence-against-the-dark-arts.jpg', reason: 'no such file' }]);
  });
});

describe("Ghost 4.1's starter content, every post whole", () => {
  const file = path.join('ghost-v4-fixtures', 'ghost-4.1-export.json');
  const source = () => JSON.parse(readFileSync(path.join(SHARED, file), 'utf8'));
  const posts = (source().db[0].data.posts as Array<{ slug: string; html: string; type: string; visibility: string }>).filter((p) => p.type === 'post');

  async function accountedFor(prepare?: (dir: string) => void) {
    const got = await imported('ghost-v4-fixtures', file, { prepare });
    const { report } = got;
    expect(report.counts).toMatchObject({ imported: 7, published: 6, drafts: 1, failed: 0 });
    expect(report.notes).toContain(`Skipped 3: Ghost pages (svc imports posts): ${file}: page "about", ${file}: page "privacy", ${file}: page "contribute"`);
    expect(report.imported.map((a) => a.slug).sort()).toEqual(posts.map((p) => p.slug).sort());
    expect(report.notes).toContain(`Ghost posts with scripts (embedded widgets) lost them: svc publishes no scripts: ${file}: post "integrations"`);
    expect(report.notes.find((n) => n.startsWith('Ghost posts for members or paid subscribers'))).toContain(`${file}: post "sell"`);
    return got;
  }

  it("from Ghost's html: every post in, pages named, bodies as Ghost rendered them, the bookmark card a link and its description, links between posts followed", async () => {
    const { article } = await accountedFor();
    for (const p of posts.filter((x) => x.visibility === 'public')) expect(wordSimilarity(p.html, (await article(p.slug)).html), p.slug).toBeGreaterThanOrEqual(0.99);
    const write = (await article('write')).html;
    expect(write).toContain('<a href="https://opensubscriptionplatforms.com/">Open Subscription Platforms</a>');
    expect(write).toContain('A shared movement for independent subscription data.');
    expect(write).not.toMatch(/<p>\[<\/p>|\]\(/);
    expect(write).toMatch(/<iframe [^>]*src="https:\/\/www\.youtube(-nocookie)?\.com\/embed\/hmH3XMlms8E/);
    expect(write).toContain('Peaceful places');
    const welcome = (await article('welcome')).html;
    for (const slug of ['design', 'write', 'portal', 'sell', 'grow', 'integrations']) expect(welcome).toContain(`<a href="https://example.com/blog/${slug}">`);
  });

  it("from the mobiledoc alone (an export without html): the cards render to the same text, the code card's caption included", async () => {
    const { article } = await accountedFor((dir) => {
      const ex = source();
      for (const p of ex.db[0].data.posts) delete p.html;
      writeFileSync(path.join(dir, file), JSON.stringify(ex));
    });
    for (const p of posts.filter((x) => x.visibility === 'public')) expect(wordSimilarity(p.html, (await article(p.slug)).html), p.slug).toBeGreaterThanOrEqual(0.99);
    expect((await article('design')).html).toContain('A snippet from a post template');
    expect((await article('write')).html).toContain('<a href="https://opensubscriptionplatforms.com/">Open Subscription Platforms</a>');
  });
});

describe('a Hexo template site (mmdjiji/hexo-template)', () => {
  it('its post without a date is imported, published and its date named; fences written "``` bash" keep their language; braces in code stay; the text is the source\'s', async () => {
    const posts = path.join('hexo-template', 'source', '_posts');
    const { report, article } = await imported('hexo-template', posts);
    expect(report.counts).toMatchObject({ imported: 1, published: 1, failed: 0 });
    expect(report.imported[0]).toMatchObject({ slug: 'hello-template', status: 'published' });
    expect(report.notes).toEqual([
      `Posts in _posts without a date were dated at import (Hexo dates them by their file's creation time, which a copy does not keep): give each a date: to keep the old one: ${path.join(posts, 'hello-template.md')}`,
    ]);
    const a = await article('hello-template');
    expect(a.title).toBe('Hexo Template');
    expect(a.html).toContain('<pre><code class="language-bash">$ npm install hexo-cli -g');
    expect(a.html).toContain('root: /{Your project name}');
    const source = readFileSync(path.join(SHARED, posts, 'hello-template.md'), 'utf8').split('\n---\n').slice(1).join('\n---\n');
    // A fence's language (```yml) is an attribute in the html, not text.
    expect(wordSimilarity(source.replace(/^```\s*\w+$/gm, '```'), a.html)).toBeGreaterThanOrEqual(0.99);
  });

  it('imported as drafts, its post without a date is named too, with the date publishing will give it', async () => {
    const posts = path.join('hexo-template', 'source', '_posts');
    const { w, report } = await imported('hexo-template', posts, { drafts: true });
    expect(report.counts).toMatchObject({ imported: 1, drafts: 1, published: 0, failed: 0 });
    expect(report.notes).toEqual([
      `Posts in _posts without a date were imported without one: publishing them dates them at the time they are published (Hexo dates them by their file's creation time, which a copy does not keep): give each a date: to keep the old one: ${path.join(posts, 'hello-template.md')}`,
    ]);
    // What the note says: published later (by the CLI, which reads the wall clock), the post is dated then.
    const before = Math.floor(Date.now() / 1000) * 1000;
    const r = await w.cli(['articles', 'publish', 'hello-template']);
    expect(r.code, r.stderr).toBe(0);
    const at: string = (await w.api('/articles/hello-template')).body.data.publishedAt;
    expect(Date.parse(at) >= before && Date.parse(at) <= Date.now(), `${at} is when it was published`).toBe(true);
  });
});

import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { expectCleanError } from '../cli/sandbox.js';
import { wxr, write } from './samples.js';
import { importWorld } from './world.js';

// Public content of each platform, kept under test/fixtures/ with its source and licence (SOURCES.md).
const SHARED = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');

async function withShared(name: string) {
  const w = await importWorld();
  cpSync(path.join(SHARED, name), path.join(w.d.dir, name), { recursive: true });
  return w;
}

describe('nothing is refused that the platform publishes', () => {
  it("Hexo's test posts: front matter with only its closing ---, and the post without a title, as Hexo publishes them", async () => {
    const w = await withShared('hexo-unit-test');
    const r = await w.cli(['articles', 'import', '--publish', 'hexo-unit-test', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().counts).toMatchObject({ imported: 4, published: 4, failed: 0 });
    const posts = path.join('hexo-unit-test', 'source', '_posts');
    expect(r.json().notes).toContain(`Posts without a title were given one from their file name (as Jekyll shows them) (check it): ${path.join(posts, 'no-title.md')}`);
    expect((await w.api('/articles/no-title')).body.data).toMatchObject({ title: 'No Title', publishedAt: '2013-12-25T22:57:49.000Z' });
    const categories = (await w.api('/articles/categories')).body.data;
    expect(categories).toMatchObject({ title: 'Categories', tags: [{ title: 'Foo' }, { title: 'Bar' }, { title: 'Baz' }] });
    expect(categories.markdown).toBe('\nThis post contains 3 categories. Make sure your theme can display all of the categories.');
  });

  it("Eleventy's starter: `tags: second tag` is one tag, JavaScript front matter of constants is read (a draft stays a draft)", async () => {
    const w = await withShared('eleventy-base-blog');
    const r = await w.cli(['articles', 'import', '--publish', 'eleventy-base-blog', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().counts).toMatchObject({ imported: 5, published: 4, drafts: 1, failed: 0 });
    expect((await w.api('/articles/firstpost')).body.data.tags).toEqual([expect.objectContaining({ title: 'another tag' })]);
    expect((await w.api('/articles/fourthpost')).body.data.tags).toEqual([expect.objectContaining({ title: 'second tag' })]);
    expect((await w.api('/articles/thirdpost')).body.data.tags.map((t: { title: string }) => t.title)).toEqual(['second tag', 'posts with two tags']);
    expect((await w.cli(['articles', 'show', 'fifthpost', '--json'])).json()).toMatchObject({ status: 'draft', title: 'This is a fifth post' });
    // Its fourth post shows <img src="./possum.png"> from its own folder, which the fixture leaves out: named with the post.
    expect(r.json().notes).toContain(
      `Images beside posts not carried over (left as written, they do not show on svc): ${path.join('eleventy-base-blog', 'content', 'blog', 'fourthpost', 'fourthpost.md')}: ./possum.png (no such file)`,
    );
  });

  it('JavaScript front matter that is code is refused by name, not as a missing --- line', async () => {
    const w = await importWorld();
    write(w.d.dir, 'code.md', '---js\nconst title = "A";\nconst tags = ["a"].map((t) => t.toUpperCase());\n---\nBody.\n');
    expectCleanError(await w.cli(['articles', 'import', 'code.md']), 1, 'code.md: the front matter is JavaScript (---js, Eleventy) and svc runs no code: only constants with a plain value (const title = "A post";) are read, not "const tags = [\\"a\\"].map((t) => t.toUpperCase());"');
  });

  it('a Docusaurus slug written as a path, a WordPress post with an empty title, a category named by its title, a date beyond scheduling', async () => {
    const w = await importWorld();
    write(w.d.dir, 'docusaurus.md', '---\ntitle: Welcome\nslug: /welcome\ncontentType: Guides\n---\nHello.\n');
    write(w.d.dir, 'nested.md', '---\ntitle: Nested\nslug: /2021/08/nested/\ncontentType: how to\n---\nHello.\n');
    write(w.d.dir, 'far.md', '---\ntitle: Far\ndate: 2050-01-01T00:00:00Z\n---\nLater.\n');
    write(w.d.dir, 'untitled.xml', wxr([{ id: 7, title: '', name: 'untitled', content: '<p>This post has no title, but it does have a body of text that is long.</p>' }]));
    const r = await w.cli(['articles', 'import', '--publish', 'docusaurus.md', 'nested.md', 'far.md', 'untitled.xml', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = r.json();
    expect(report.counts).toMatchObject({ imported: 4, published: 3, drafts: 1, failed: 0 });
    expect(report.moved).toEqual([{ source: 'nested.md', from: '/2021/08/nested/', to: 'nested' }]);
    expect(report.notes).toEqual(
      expect.arrayContaining([
        'Posts dated more than 10 years ahead were imported as drafts (svc schedules at most 10 years ahead): publish or schedule them when the date is nearer: far.md',
        'Posts without a title were given one from the start of their text (WordPress showed none) (check it): untitled.xml: post "untitled"',
      ]),
    );
    expect((await w.api('/articles/welcome')).body.data).toMatchObject({ category: { slug: 'guides' } });
    expect((await w.api('/articles/nested')).body.data).toMatchObject({ category: { slug: 'how-to' } });
    expect((await w.api('/articles/untitled')).body.data).toMatchObject({ title: 'This post has no title, but it does…' });
    expect((await w.cli(['articles', 'show', 'far', '--json'])).json()).toMatchObject({ status: 'draft' });
    write(w.d.dir, 'bad-type.md', '---\ntitle: Poem\ncontentType: Poems\n---\nx\n');
    expectCleanError(await w.cli(['articles', 'import', 'bad-type.md']), 1, 'bad-type.md: Invalid article: contentType: content type must be one of BLOG_POST, GUIDE, HOW_TO, LISTICLE, COMPARISON');
  });

  it('an expiryDate note names only dates still to come; a draft past its expiry gets neither note', async () => {
    const w = await importWorld();
    mkdirSync(path.join(w.d.dir, 'posts'));
    writeFileSync(path.join(w.d.dir, 'posts', 'old-draft.md'), '---\ntitle: Old draft\ndraft: true\ndate: 2020-01-01T00:00:00Z\nexpiryDate: 2021-01-01T00:00:00Z\n---\nBody.\n');
    const r = await w.cli(['articles', 'import', 'posts', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().notes.filter((n: string) => n.includes('expiryDate'))).toEqual([]);
  });
});

describe('links between imported posts follow them', () => {
  it("Eleventy's starter links posts by their source files; permalinks and the old site's URLs are followed too; the note lists each", async () => {
    const w = await withShared('eleventy-base-blog');
    write(w.d.dir, path.join('eleventy-base-blog', 'content', 'blog', 'links.md'), [
      '---\ntitle: Links\npermalink: /2020/01/links-post/\n---',
      '[old URL](https://example.com/2018/05/firstpost/#section-header), [permalink](/2020/01/links-post/), [tag list](/tags/firstpost/), [elsewhere](https://other.example/firstpost/), `[in code](/blog/firstpost.md)`',
      '',
    ].join('\n'));
    const r = await w.cli(['articles', 'import', '--publish', 'eleventy-base-blog', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const first = (await w.api('/articles/firstpost')).body.data.url;
    const third = (await w.api('/articles/thirdpost')).body.data.url;
    expect(first).toMatch(/^https:\/\/example\.com\/.*firstpost$/);
    const second = (await w.api('/articles/secondpost')).body.data.html;
    expect(second).toContain(`<a href="${first}">First post</a>`);
    expect(second).toContain(`<a href="${third}">Third post</a>`);
    const links = (await w.api('/articles/links-post')).body.data;
    expect(links.html).toContain(`<a href="${first}#section-header">old URL</a>`);
    expect(links.html).toContain('<a href="/2020/01/links-post/">permalink</a>'); // itself: left alone
    expect(links.html).toContain('<a href="/tags/firstpost/">tag list</a>');
    expect(links.html).toContain('<a href="https://other.example/firstpost/">elsewhere</a>');
    expect(links.markdown).toContain('`[in code](/blog/firstpost.md)`');
    expect(r.json().notes).toContain(`Links between imported posts now point where svc serves them: https://example.com/2018/05/firstpost/#section-header -> ${first}#section-header, /blog/firstpost.md -> ${first}, blog/thirdpost.md -> ${third}`);
  });
});

import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { write } from './samples.js';
import { importWorld } from './world.js';

const SHARED = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');

describe('what each platform meant is honoured', () => {
  it("MDX (Astro's blog starter, as published): import lines and components are left out with a note; the text stays", async () => {
    const w = await importWorld();
    cpSync(path.join(SHARED, 'astro-blog'), path.join(w.d.dir, 'blog'), { recursive: true });
    const r = await w.cli(['articles', 'import', '--publish', 'blog', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().notes).toContain(`MDX import/export lines and components were left out (svc publishes markdown; what the components showed is not in the post): ${path.join('blog', 'using-mdx.mdx')}`);
    const { markdown, html } = (await w.api('/articles/using-mdx')).body.data;
    for (const gone of ['import ServerIsland', 'import HeaderLink', 'ServerIsland', 'HeaderLink', 'Fallback for 3000ms', 'onclick', 'Embedded component']) expect(markdown).not.toContain(gone);
    expect(markdown).toMatch(/^## Server Island\n\nThis theme comes with the \[@astrojs\/mdx\]/);
    expect(html).toContain('<h2 id="why-mdx">Why MDX?</h2>');
    expect(html).toContain('<a href="https://mdxjs.com/docs/what-is-mdx">MDX Syntax Documentation</a>');
  });

  it("Hugo's expiryDate in the past makes a draft, publishDate in the future schedules; both are said", async () => {
    // The CLI reads the wall clock: a date a month ahead is in the future whenever this runs.
    const ahead = new Date(Date.now() + 30 * 86_400_000);
    ahead.setUTCHours(9, 0, 0, 0);
    const w = await importWorld();
    mkdirSync(path.join(w.d.dir, 'posts'));
    const post = (name: string, fm: string) => writeFileSync(path.join(w.d.dir, 'posts', `${name}.md`), `---\ntitle: ${name}\n${fm}\n---\nBody.\n`);
    post('expired', 'date: 2020-01-01T00:00:00Z\nexpiryDate: 2024-01-01T00:00:00Z');
    post('expires-later', 'date: 2020-01-01T00:00:00Z\nexpiryDate: 2099-01-01T00:00:00Z');
    post('future', `date: 2020-01-01T00:00:00Z\npublishDate: ${ahead.toISOString()}`);
    const r = await w.cli(['articles', 'import', '--publish', 'posts', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = r.json();
    expect(report.counts).toMatchObject({ imported: 3, published: 1, scheduled: 1, drafts: 1 });
    expect(report.imported.map((a: { slug: string; status: string; date: string }) => [a.slug, a.status, a.date])).toEqual([
      ['expired', 'draft', '2020-01-01T00:00:00.000Z'],
      ['expires-later', 'published', '2020-01-01T00:00:00.000Z'],
      ['future', 'scheduled', ahead.toISOString()],
    ]);
    expect(report.notes).toEqual(
      expect.arrayContaining([
        `Posts past their expiryDate (no longer shown on the old site) were imported as drafts: ${path.join('posts', 'expired.md')}`,
        `An expiryDate still to come is not carried over (svc does not unpublish on a date): unpublish these then: ${path.join('posts', 'expires-later.md')}`,
        `Posts dated in the future (publishDate or date) wait for that date: scheduled with --publish: ${path.join('posts', 'future.md')}`,
      ]),
    );
  });

  it('a title taken from the # H1 of a markdown file is shown once (issue 24): the served body leaves that H1 out, keeps later ones', async () => {
    const w = await importWorld();
    write(w.d.dir, 'h1.md', '# The Title\n\nIntro.\n\n# Part two\n\nMore.\n');
    const r = await w.cli(['articles', 'import', '--publish', 'h1.md']);
    expect(r.code, r.stderr).toBe(0);
    const a = (await w.api('/articles/h1')).body.data;
    expect(a.title).toBe('The Title');
    expect(a.markdown).toBe('Intro.\n\n# Part two\n\nMore.\n');
    expect(a.html).not.toContain('The Title');
  });

  it('Ghost 0.x: the `image` field is the feature image and /content/images paths in bodies point at --base-url', async () => {
    const w = await importWorld();
    // Ghost 0.x exports: { db: [{ meta, data }] } with `image`, `markdown` and `html`, dates as epoch milliseconds.
    write(
      w.d.dir,
      'ghost0.json',
      JSON.stringify({
        db: [{ meta: { exported_on: 1420070400000, version: '003' }, data: { posts: [{ id: 1, uuid: 'u1', title: 'Old Ghost', slug: 'old-ghost', markdown: 'Hi ![x](/content/images/2014/09/in-body.jpg)', html: '<p>Hi <img src="/content/images/2014/09/in-body.jpg" alt="x"></p>', image: '/content/images/2014/09/cover.jpg', page: 0, status: 'published', published_at: 1410000000000, updated_at: 1410000000000 }] } }],
      }),
    );
    const r = await w.cli(['articles', 'import', '--publish', '--base-url', 'https://old-ghost.example', 'ghost0.json']);
    expect(r.code, r.stderr).toBe(0);
    const a = (await w.api('/articles/old-ghost')).body.data;
    expect(a.image).toBe('https://old-ghost.example/content/images/2014/09/cover.jpg');
    expect(a.markdown).toBe('Hi ![x](https://old-ghost.example/content/images/2014/09/in-body.jpg)');
  });
});

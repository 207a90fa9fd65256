import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importWorld } from './world.js';

const post = (title: string, extra = '') => `---\ntitle: ${title}\ndate: 2022-12-21T10:00:00Z\n${extra}---\nBody of ${title}.\n`;

function files(dir: string, map: Record<string, string>) {
  for (const [name, text] of Object.entries(map)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
}

describe('URLs are kept as the old site served them', () => {
  it('slugs from file names keep dots and underscores, percent-encoded names decode, explicit slugs like hugo_build are accepted; what svc cannot keep is listed old -> new', async () => {
    const w = await importWorld();
    files(w.d.dir, {
      '_posts/2022-12-21-jekyll-sass-converter-3.0-released.markdown': '---\ntitle: Sass converter 3.0\n---\nOut now.\n',
      'blog/my_post.md': post('My post'),
      'blog/%E4%BD%A0%E5%A5%BD.md': post('Hello in Chinese'),
      'blog/build.md': post('Hugo build', 'slug: hugo_build\n'),
      'blog/c++ tips.md': post('C++'),
      'blog/Hello World.md': post('Spaces'),
    });
    const r = await w.cli(['articles', 'import', '--publish', '_posts', 'blog', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = r.json();
    expect(report.imported.map((a: { slug: string }) => a.slug).sort()).toEqual(
      ['c-tips', 'hello-world', 'hugo_build', 'jekyll-sass-converter-3.0-released', 'my_post', '你好'].sort(),
    );
    expect(report.moved).toEqual([
      { source: path.join('blog', 'Hello World.md'), from: 'Hello World', to: 'hello-world' },
      { source: path.join('blog', 'c++ tips.md'), from: 'c++ tips', to: 'c-tips' },
    ]);
    expect(report.notes).toContain(
      'URLs that move (svc slugs are letters and digits joined by single - . or _; redirect the old ones): Hello World -> hello-world (blog/Hello World.md), c++ tips -> c-tips (blog/c++ tips.md)',
    );
    // The content API serves them at those slugs, and the sitemap lists their URLs unchanged.
    for (const slug of ['my_post', 'jekyll-sass-converter-3.0-released', 'hugo_build']) {
      const got = await w.api(`/articles/${slug}`);
      expect(got.status, slug).toBe(200);
      expect(got.body.data.slug).toBe(slug);
      expect(got.body.data.url).toBe(`https://example.com/blog/${slug}`);
    }
    expect((await w.api(`/articles/${encodeURIComponent('你好')}`)).status).toBe(200);
    expect((await w.api('/articles/My_Post')).status).toBe(200);
    const sitemap = (await w.api('/sitemap')).body.data.articles.map((a: { url: string }) => a.url);
    expect(sitemap).toContain('https://example.com/blog/my_post');
    expect(sitemap).toContain('https://example.com/blog/jekyll-sass-converter-3.0-released');
    // An explicit slug svc cannot serve is refused by its value, in an import and by hand.
    files(w.d.dir, { 'odd/odd.md': post('Odd', 'slug: "C++ tips"\n') });
    const odd = await w.cli(['articles', 'import', 'odd']);
    expect(odd.code).toBe(1);
    expect(odd.stderr).toContain('not "c++ tips"');
    const bad = await w.cli(['articles', 'add', '--title', 'X', '--slug', 'a__b']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('not "a__b"');
  });

  it('Hugo page bundles are named after their folder; a multilingual site imports one language with --lang, and says so', async () => {
    const w = await importWorld();
    files(w.d.dir, {
      'content/posts/emoji-support/index.en.md': post('Emoji Support'),
      'content/posts/emoji-support/index.zh-cn.md': post('Emoji 支持'),
      'content/posts/plain/index.md': post('Plain bundle'),
      'content/posts/markdown-syntax.en.md': post('Markdown Syntax'),
      'content/posts/markdown-syntax.fr.md': post('Syntaxe Markdown'),
      'content/posts/about.go.md': post('About Go'),
      'content/posts/_index.en.md': '---\ntitle: Posts\n---\n',
    });
    const without = await w.cli(['articles', 'import', 'content']);
    expect(without.code).toBe(1);
    expect(without.stderr).toContain(`${path.join('content', 'posts', 'emoji-support', 'index.en.md')}: a translation (en, zh-cn) of one post: import one language with --lang (e.g. --lang en)`);
    const r = await w.cli(['articles', 'import', '--publish', '--lang', 'en', 'content', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = r.json();
    expect(report.imported.map((a: { slug: string }) => a.slug).sort()).toEqual(['about.go', 'emoji-support', 'markdown-syntax', 'plain']);
    expect(report.notes).toContain(
      `Skipped 2: translations into other languages than en (--lang en): ${path.join('content', 'posts', 'emoji-support', 'index.zh-cn.md')}, ${path.join('content', 'posts', 'markdown-syntax.fr.md')}`,
    );
    expect(report.notes).toContain(
      `Posts read in en (--lang en), their language suffix left out of the slug: ${path.join('content', 'posts', 'emoji-support', 'index.en.md')}, ${path.join('content', 'posts', 'markdown-syntax.en.md')}`,
    );
    expect((await w.api('/articles/emoji-support')).body.data.title).toBe('Emoji Support');
    expect((await w.cli(['articles', 'import', '--lang', 'english!', 'content'])).code).toBe(2);
    // An export is read whatever its name says.
    writeFileSync(path.join(w.d.dir, 'blog.fr.json'), JSON.stringify({ db: [{ data: { posts: [{ id: '1', type: 'post', status: 'published', slug: 'from-ghost', title: 'From Ghost', html: '<p>x</p>' }] } }] }));
    expect((await w.cli(['articles', 'import', '--lang', 'en', 'blog.fr.json', '--json'])).json().counts.imported).toBe(1);
  });
});

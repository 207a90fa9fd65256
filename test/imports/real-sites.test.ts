import { cpSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importWorld } from './world.js';

// Public content of each platform, kept under test/fixtures/ with its source and licence (SOURCES.md).
const SHARED = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');

describe('real sites move in with their URLs', () => {
  it("a post of Jekyll's own blog keeps its slug with the dot, its dated time zone, its author and its reference links", async () => {
    const w = await importWorld();
    cpSync(path.join(SHARED, 'jekyll-docs'), path.join(w.d.dir, 'jekyll'), { recursive: true });
    const r = await w.cli(['articles', 'import', '--publish', path.join('jekyll', '_posts'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().moved).toEqual([]);
    const a = (await w.api('/articles/jekyll-sass-converter-3.0-released')).body.data;
    expect(a).toMatchObject({ title: 'Jekyll Sass Converter 3.0 Released', publishedAt: '2022-12-21T12:22:15.000Z', author: 'ashmaroli', tags: [{ slug: 'community' }] });
    expect(a.html).toContain('<a href="https://github.com/sass/dart-sass#behavioral-differences-from-ruby-sass">Behavioral Differences from Ruby Sass</a>');
  });

  it("a Hugo theme's bilingual page bundle (LoveIt's emoji-support): refused without --lang, one language per workspace with it, named after its folder", async () => {
    const w = await importWorld();
    cpSync(path.join(SHARED, 'hugo-loveit'), path.join(w.d.dir, 'site'), { recursive: true });
    const posts = path.join('site', 'content', 'posts');
    const refused = await w.cli(['articles', 'import', posts]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('a translation (en, zh-cn) of one post: import one language with --lang (e.g. --lang en)');
    const en = await w.cli(['articles', 'import', '--publish', '--lang', 'en', posts, '--json']);
    expect(en.code, en.stderr).toBe(0);
    expect(en.json().notes).toContain(`Skipped 1: translations into other languages than en (--lang en): ${path.join(posts, 'emoji-support', 'index.zh-cn.md')}`);
    const a = (await w.api('/articles/emoji-support')).body.data;
    expect(a).toMatchObject({ title: 'Emoji Support', publishedAt: '2019-10-01T09:55:28.000Z', metaDescription: 'Guide to emoji usage in Hugo and LoveIt.' });
    expect(a.html).toContain('<th align="center">icon</th>');

    const other = await importWorld();
    cpSync(path.join(SHARED, 'hugo-loveit'), path.join(other.d.dir, 'site'), { recursive: true });
    const zh = await other.cli(['articles', 'import', '--publish', '--lang', 'zh-cn', posts]);
    expect(zh.code, zh.stderr).toBe(0);
    expect((await other.api('/articles/emoji-support')).body.data.title).toBe('Emoji 支持');
  });

  it("Jekyll's own guides keep their numbered # sections under the front-matter title, and # comments inside code stay code", async () => {
    const w = await importWorld();
    cpSync(path.join(SHARED, 'jekyll-guides'), path.join(w.d.dir, 'guides'), { recursive: true });
    const r = await w.cli(['articles', 'import', '--publish', 'guides', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const burnout = (await w.api('/articles/avoiding-burnout')).body.data;
    expect(burnout.title).toBe('Avoiding Burnout');
    // Four H1s further down the body: sections of the guide, not a second title (only an opening # H1 is the headline).
    for (const section of ['1. Use Jekyll', '2. No Guilt About Leaving', '3. Prioritise Maintainers Over Users', '4. Learn To Say No']) {
      expect(burnout.html).toMatch(new RegExp(`<h1 id="[^"]+">${section.replace('.', '\\.')}</h1>`));
    }
    const windows = (await w.api('/articles/windows')).body.data;
    expect(windows.title).toBe('Jekyll on Windows');
    expect(windows.html).not.toContain('<h1');
    expect(windows.html).toContain('# Windows and JRuby does not include zoneinfo files, so bundle the tzinfo-data gem');
  });
});

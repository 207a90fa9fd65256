import { cpSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { expectCleanError } from '../cli/sandbox.js';
import { write } from './samples.js';
import { importWorld } from './world.js';

// Public content of each platform, kept under test/fixtures/ with its source and licence (SOURCES.md).
const SHARED = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');

describe('metadata themes and platforms keep outside the usual keys', () => {
  it("Minimal Mistakes' header.image and header.overlay_image are the featured image; a header with only a colour has none", async () => {
    const w = await importWorld();
    cpSync(path.join(SHARED, 'minimal-mistakes'), path.join(w.d.dir, 'mm'), { recursive: true });
    write(w.d.dir, 'colour.md', '---\ntitle: Colour\nheader:\n  overlay_color: "#333"\n---\nText.\n');
    write(w.d.dir, 'teaser.md', '---\ntitle: Teaser\nheader:\n  teaser: /assets/teaser.jpg\n---\nText.\n');
    write(w.d.dir, 'chirpy.md', '---\ntitle: Chirpy\nimage:\n  path: https://cdn.example.net/chirpy.png\n  alt: A bird\n---\nText.\n');
    const r = await w.cli(['articles', 'import', '--publish', path.join('mm', '_posts'), 'colour.md', 'teaser.md', 'chirpy.md', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect((await w.api('/articles/layout-header-image-external')).body.data.image).toBe('https://farm5.staticflickr.com/4140/4939863887_84705982fd_b.jpg');
    expect((await w.api('/articles/layout-header-overlay-image')).body.data.image).toBe('https://example.com/assets/images/unsplash-image-1.jpg');
    expect((await w.api('/articles/colour')).body.data.image).toBeNull();
    expect((await w.api('/articles/teaser')).body.data.image).toBe('https://example.com/assets/teaser.jpg');
    expect((await w.api('/articles/chirpy')).body.data).toMatchObject({ image: 'https://cdn.example.net/chirpy.png', imageAlt: 'A bird' });
    expect(r.json().notes.join('\n')).not.toContain('header (');
  });

  it("Docusaurus author keys are looked up in the blog's authors.yml; inline authors keep their name; a broken authors file is named", async () => {
    const w = await importWorld();
    cpSync(path.join(SHARED, 'docusaurus-template'), path.join(w.d.dir, 'docusaurus'), { recursive: true });
    const r = await w.cli(['articles', 'import', '--publish', path.join('docusaurus', 'blog'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect((await w.api('/articles/mindddddd')).body.data.author).toBe('Sébastien Lorber');
    expect((await w.api('/articles/first-trtrtrt')).body.data.author).toBe('Gao Wei');

    write(w.d.dir, 'authors.yml', 'endi: [unclosed\n');
    write(w.d.dir, 'keyed.md', '---\ntitle: Keyed\nauthors: [endi]\n---\nText.\n');
    const broken = await w.cli(['articles', 'import', 'keyed.md', '--json']);
    expect(broken.code, broken.stderr).toBe(0);
    expect(broken.json().notes).toEqual([expect.stringMatching(/^Authors files that could not be read were passed by, so posts name their authors by key \(.+\): .*authors\.yml$/)]);
    expect((await w.cli(['articles', 'show', 'keyed', '--json'])).json().author).toBe('endi');
  });

  it("dates without a zone are read in the site's time zone (Hugo's timeZone, Jekyll's timezone), or --timezone, and the note says which", async () => {
    const w = await importWorld();
    mkdirSync(path.join(w.d.dir, 'hugo', 'content', 'posts'), { recursive: true });
    write(w.d.dir, path.join('hugo', 'hugo.toml'), 'baseURL = "https://example.org/"\ntimeZone = "Europe/Berlin"\n');
    write(w.d.dir, path.join('hugo', 'content', 'posts', 'summer.md'), '---\ntitle: Summer\ndate: 2024-07-01T10:00:00\n---\nText.\n');
    mkdirSync(path.join(w.d.dir, 'jekyll', '_posts'), { recursive: true });
    write(w.d.dir, path.join('jekyll', '_config.yml'), 'title: A blog\ntimezone: America/New_York\n');
    write(w.d.dir, path.join('jekyll', '_posts', '2024-01-15-winter.md'), '---\ntitle: Winter\n---\nText.\n');
    const r = await w.cli(['articles', 'import', '--publish', path.join('hugo', 'content', 'posts'), path.join('jekyll', '_posts'), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect((await w.api('/articles/summer')).body.data.publishedAt).toBe('2024-07-01T08:00:00.000Z');
    expect((await w.api('/articles/winter')).body.data.publishedAt).toBe('2024-01-15T05:00:00.000Z');
    expect(r.json().notes).toEqual(
      expect.arrayContaining([
        `1 date without a time zone read in Europe/Berlin: ${path.join('hugo', 'content', 'posts', 'summer.md')}: date 2024-07-01T10:00:00`,
        `1 date without a time zone read in America/New_York: ${path.join('jekyll', '_posts', '2024-01-15-winter.md')}: file name date 2024-01-15`,
      ]),
    );

    const other = await importWorld();
    write(other.d.dir, 'tokyo.md', '---\ntitle: Tokyo\ndate: 2024-01-01 09:00\n---\nText.\n');
    expectCleanError(await other.cli(['articles', 'import', '--timezone', 'Mars/Olympus', 'tokyo.md']), 2, 'error: --timezone takes a time zone name such as Europe/Berlin or America/New_York, not "Mars/Olympus"');
    const tokyo = await other.cli(['articles', 'import', '--publish', '--timezone', 'Asia/Tokyo', 'tokyo.md']);
    expect(tokyo.code, tokyo.stderr).toBe(0);
    expect((await other.api('/articles/tokyo')).body.data.publishedAt).toBe('2024-01-01T00:00:00.000Z');
  });
});

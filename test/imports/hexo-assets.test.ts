import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { png } from '../images/png.js';
import { importWorld } from './world.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

// Hexo with `post_asset_folder: true` keeps a post's images in a folder named after it; its asset
// tags, and plain relative images, name them by file name. Its post_link and post_path tags name
// another post by its file under _posts.
describe("Hexo's asset folders and post links", () => {
  it('asset_img, asset_path and plain relative images are stored from the asset folder; post_link and post_path point where svc serves the post', async () => {
    const w = await importWorld();
    const posts = path.join(w.d.dir, 'blog', 'source', '_posts');
    mkdirSync(path.join(posts, 'trip'), { recursive: true });
    writeFileSync(path.join(w.d.dir, 'blog', '_config.yml'), 'title: Blog\npost_asset_folder: true\npermalink: :year/:i_month/:title/\n');
    const [cover, map, plain] = [png(4, 3, 1), png(2, 2, 2), png(3, 3, 3)];
    writeFileSync(path.join(posts, 'trip', 'cover.png'), cover);
    writeFileSync(path.join(posts, 'trip', 'map.png'), map);
    writeFileSync(path.join(posts, 'trip', 'plain.png'), plain);
    // Files that are not images: svc stores none. The trip's old address is its permalink, the
    // packing list's the site's permalink pattern; an undated post's is unknown.
    writeFileSync(path.join(posts, 'trip', 'route.pdf'), '%PDF-1.4\n');
    writeFileSync(path.join(posts, 'trip', 'tracks.zip'), 'PK');
    mkdirSync(path.join(posts, 'packing'));
    writeFileSync(path.join(posts, 'packing', 'list.pdf'), '%PDF-1.4\n');
    mkdirSync(path.join(posts, 'someday'));
    writeFileSync(path.join(posts, 'someday', 'plan.pdf'), '%PDF-1.4\n');
    // Its post_link names a post that is not in this import: kept as written, and named.
    writeFileSync(path.join(posts, 'someday.md'), 'title: Someday\n---\nThe {% asset_link plan.pdf plan %}. Then {% post_link elsewhere %}.\n');
    writeFileSync(
      path.join(posts, 'trip.md'),
      [
        'title: The trip',
        'date: 2024-01-02 10:00:00',
        'permalink: 2024/01/02/trip/',
        '---',
        '{% asset_img cover.png The view from the top %}',
        '',
        '![The map]({% asset_path map.png %})',
        '',
        '![](plain.png)',
        '',
        'Before it: {% post_link packing %}, or {% post_link packing "what I packed" %}; [the list]({% post_path packing %}).',
        '',
        '{% asset_img gone.png Missing %}',
        '',
        'The route: {% asset_link route.pdf "the route" %}; [the tracks]({% asset_path tracks.zip %}).',
        '',
      ].join('\n'),
    );
    writeFileSync(path.join(posts, 'packing.md'), 'title: "Packing: a list"\ndate: 2024-01-01 10:00:00\n---\nWhat I packed: {% asset_link list.pdf %}.\n');
    const env = { ...w.d.env, SVC_SERVER_BASE_URL: w.d.url };
    const r = await runCli(['articles', 'import', '--publish', 'blog/source/_posts', '--json', '--workspace', w.ws.name], { env, cwd: w.d.dir });
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const report = r.json();
    expect(report.counts).toMatchObject({ imported: 3, failed: 0 });
    const source = path.join('blog', 'source', '_posts', 'trip.md');
    expect(report.images).toMatchObject({ used: 3, added: 3, left: [{ source, image: 'gone.png', reason: 'no such file' }] });
    expect(report.notes.join('\n')).not.toMatch(/asset_img|post_link|post_path|asset_path/);
    const [packingSource, somedaySource] = ['packing.md', 'someday.md'].map((f) => path.join('blog', 'source', '_posts', f));
    const files = report.notes.find((n: string) =>
      n.startsWith("Files beside posts that are not images were not carried over (svc stores images only): links to them point at the old site's copy, or show only their text where the post's old address is unknown (a video's or audio's source then stays as written): "),
    );
    const named = [
      `${source} (route.pdf -> https://example.com/2024/01/02/trip/route.pdf)`,
      `${source} (tracks.zip -> https://example.com/2024/01/02/trip/tracks.zip)`,
      `${packingSource} (list.pdf -> https://example.com/2024/1/packing/list.pdf)`,
      `${somedaySource} (plan.pdf; old address unknown: it has no date (Hexo dates such a post by its file's creation time, which a copy does not keep))`,
    ];
    for (const each of named) expect(files).toContain(each);
    const url = (b: Buffer) => `${w.d.url}/media/${sha(b)}.png`;
    const trip = (await w.api('/articles/trip')).body.data;
    expect(trip.html).toContain(`<img src="${url(cover)}" alt="The view from the top" title="The view from the top" />`);
    expect(trip.html).toContain(`<img src="${url(map)}" alt="The map" />`);
    expect(trip.html).toContain(`<img src="${url(plain)}" alt="" />`);
    const packing = (await w.api('/articles/packing')).body.data;
    const at = packing.url as string;
    // Without a title, post_link shows the post's title, as Hexo does.
    expect(trip.html).toContain(`Before it: <a href="${at}">Packing: a list</a>, or <a href="${at}">what I packed</a>; <a href="${at}">the list</a>.`);
    expect(trip.html).not.toMatch(/\{%|\.md"/);
    expect(trip.html).toContain('The route: <a href="https://example.com/2024/01/02/trip/route.pdf">the route</a>; <a href="https://example.com/2024/01/02/trip/tracks.zip">the tracks</a>.');
    expect(packing.html).toBe('<p>What I packed: <a href="https://example.com/2024/1/packing/list.pdf">list.pdf</a>.</p>');
    expect((await w.api('/articles/someday')).body.data.html).toBe('<p>The plan. Then <a href="elsewhere.md">elsewhere</a>.</p>');
    expect(report.notes).toContain(`Links to post files that are not in this import (kept as written, they lead nowhere on svc until that post is imported too): ${somedaySource} (elsewhere.md)`);
  });

  it("files beside posts point at the old site's copy under every permalink placeholder Hexo documents, or name why the old address is unknown", async () => {
    const w = await importWorld();
    const site = (name: string, config: string, posts: Record<string, { front: string; file: string }>) => {
      const dir = path.join(w.d.dir, name, 'source', '_posts');
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(w.d.dir, name, '_config.yml'), config);
      for (const [stem, post] of Object.entries(posts)) {
        mkdirSync(path.join(dir, stem), { recursive: true });
        writeFileSync(path.join(dir, stem, post.file), '%PDF-1.4\n');
        writeFileSync(path.join(dir, `${stem}.md`), `${post.front}\n---\nThe {% asset_link ${post.file} %}.\n`);
      }
    };
    // :category is the slugs of the post's category and its parents, through category_map and
    // filename_case; :post_title the title as a slug; :hash SHA-1 of the file's slug and the date's seconds.
    site('hexo-a', 'post_asset_folder: true\npermalink: :category/:post_title-:hash/\ndefault_category: misc\nfilename_case: 1\ncategory_map:\n  Reisen: travel\n', {
      trip: { front: 'title: "Über den Wolken!"\ndate: 2024-01-02 10:00:00\ncategories: [Reisen, Asien]', file: 'route.pdf' },
      plain: { front: 'title: Plain\ndate: 2024-02-03 04:05:06', file: 'a.pdf' },
      both: { front: 'title: Both\ndate: 2024-02-04 00:00:00\ncategories: [[Travel], [Food]]', file: 'b.pdf' },
    });
    // new_post_name's date prefix is not part of :title; a front matter slug does not change it (as in Hexo);
    // :lang comes from the front matter, else permalink_defaults; :id only from the front matter.
    // Hexo serves the asset folder of a post at `x.html` under `x/`.
    site('hexo-b', 'post_asset_folder: true\npermalink: :lang/:id/:title.html\nnew_post_name: :year-:month-:day-:title.md\npermalink_defaults:\n  lang: en\n', {
      '2024-03-04-notes': { front: 'title: Notes\nid: 42\nslug: notes-slug', file: 'report.pdf' },
      '2024-03-05-later': { front: 'title: Later\nlang: de', file: 'x.pdf' },
      '2024-03-06-german': { front: 'title: Deutsch\nid: 7\nlang: de', file: 'y.pdf' },
    });
    const r = await runCli(['articles', 'import', 'hexo-a/source/_posts', 'hexo-b/source/_posts', '--json', '--workspace', w.ws.name], { env: w.d.env, cwd: w.d.dir });
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.json().counts).toMatchObject({ imported: 6, failed: 0 });
    const hash = (slug: string, utc: number) => createHash('sha1').update(slug + String(utc / 1000)).digest('hex').slice(0, 12);
    const a = (f: string) => path.join('hexo-a', 'source', '_posts', f);
    const b = (f: string) => path.join('hexo-b', 'source', '_posts', f);
    const files = r.json().notes.find((n: string) => n.startsWith('Files beside posts that are not images'));
    for (const each of [
      `${a('trip.md')} (route.pdf -> https://example.com/travel/asien/uber-den-wolken-${hash('trip', Date.UTC(2024, 0, 2, 10))}/route.pdf)`,
      `${a('plain.md')} (a.pdf -> https://example.com/misc/plain-${hash('plain', Date.UTC(2024, 1, 3, 4, 5, 6))}/a.pdf)`,
      `${a('both.md')} (b.pdf; old address unknown: the permalink's :category is one of its several categories, and which one Hexo took the files do not say)`,
      `${b('2024-03-04-notes.md')} (report.pdf -> https://example.com/en/42/notes/report.pdf)`,
      `${b('2024-03-05-later.md')} (x.pdf; old address unknown: the permalink's :id is Hexo's database id, which the files do not keep (an id in the post's front matter gives it))`,
      `${b('2024-03-06-german.md')} (y.pdf -> https://example.com/de/7/german/y.pdf)`,
    ]) {
      expect(files).toContain(each);
    }
  });
});

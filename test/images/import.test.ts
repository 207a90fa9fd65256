import { createHash } from 'node:crypto';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { importWorld } from '../imports/world.js';
import { png } from './png.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('images travel with their posts on import', () => {
  it('a Hugo page bundle: its images (markdown, reference, <img>, the cover) are stored and served, the article points there; what cannot be carried is named per post; a re-import stores nothing twice', async () => {
    const w = await importWorld();
    const dir = w.d.dir;
    const bundle = path.join(dir, 'site', 'content', 'posts', 'my-trip');
    mkdirSync(path.join(bundle, 'gallery'), { recursive: true });
    const beach = png(6, 4, 1);
    const cover = png(8, 5, 2);
    const one = png(2, 2, 3);
    writeFileSync(path.join(bundle, 'beach.png'), beach);
    writeFileSync(path.join(bundle, 'cover.png'), cover);
    writeFileSync(path.join(bundle, 'gallery', 'one.png'), one);
    writeFileSync(path.join(dir, 'outside.png'), png(1, 1, 4));
    symlinkSync(path.join(dir, 'outside.png'), path.join(bundle, 'escape.png'));
    writeFileSync(
      path.join(bundle, 'index.md'),
      [
        '---',
        'title: My trip',
        'date: 2024-01-02T10:00:00Z',
        'cover:',
        '  image: cover.png',
        '  alt: The cover',
        '---',
        'Intro ![Beach](./beach.png "A beach") and <img src="beach.png" alt="again">',
        '',
        '![Missing](missing.png) ![Out](../../../../outside.png) ![Link](escape.png)',
        '',
        'See ![the gallery][one] and the [remote one](https://cdn.example.org/x.png).',
        '',
        '`![code](./beach.png)` and `![gone](./gone.png)` stay as code.',
        '',
        '[one]: gallery/one.png',
        '',
      ].join('\n'),
    );
    const env = { ...w.d.env, SVC_SERVER_BASE_URL: w.d.url };
    const run = () => runCli(['articles', 'import', '--publish', 'site', '--json', '--workspace', w.ws.name], { env, cwd: dir });
    const r = await run();
    expect(r.code, r.stderr).toBe(0);
    const url = (b: Buffer) => `${w.d.url}/media/${sha(b)}.png`;
    const source = path.join('site', 'content', 'posts', 'my-trip', 'index.md');
    const report = r.json();
    expect(report.images).toEqual({
      used: 3,
      added: 3,
      left: [
        { source, image: 'missing.png', reason: 'no such file' },
        { source, image: '../../../../outside.png', reason: `lies outside the folder being imported (${path.join(dir, 'site')})` },
        { source, image: 'escape.png', reason: `lies outside the folder being imported (${path.join(dir, 'site')})` },
      ],
    });
    expect(report.notes).toContain('Images beside the posts now served by svc: 3 (3 newly stored, 0 stored already)');
    expect(report.notes.find((n: string) => n.startsWith('Images beside posts not carried over'))).toContain(`${source}: missing.png (no such file)`);

    const article = (await w.api('/articles/my-trip')).body.data;
    expect(article.image).toBe(url(cover));
    expect(article.imageAlt).toBe('The cover');
    expect(article.markdown).toContain(`![Beach](${url(beach)} "A beach") and <img src="${url(beach)}" alt="again">`);
    expect(article.markdown).toContain(`[one]: ${url(one)}`);
    expect(article.markdown).toContain('![Missing](missing.png)');
    expect(article.markdown).toContain('`![code](./beach.png)` and `![gone](./gone.png)` stay as code.');
    expect(article.markdown).toContain('(https://cdn.example.org/x.png)');
    expect(article.html).toContain(`<img src="${url(beach)}" alt="Beach"`);
    expect(article.html).toContain(`<img src="${url(one)}" alt="the gallery"`);
    for (const b of [beach, cover, one]) {
      const res = await fetch(url(b));
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(b)).toBe(true);
    }

    const again = await run();
    expect(again.code, again.stderr).toBe(0);
    expect(again.json().counts).toMatchObject({ imported: 0 });
    expect(again.json().images).toMatchObject({ used: 3, added: 0 });
    expect(Number((await w.d.app.db('images').count({ n: '*' }))[0].n)).toBe(3);
  });

  it('an image over the size limit or not an image stays as written, named with the reason; the post is imported', async () => {
    const w = await importWorld();
    const dir = w.d.dir;
    mkdirSync(path.join(dir, 'blog'));
    writeFileSync(path.join(dir, 'blog', 'big.png'), Buffer.concat([png(4, 4, 1).subarray(0, -12), Buffer.alloc(5000), png(4, 4, 1).subarray(-12)]));
    writeFileSync(path.join(dir, 'blog', 'fake.jpg'), 'text pretending to be a JPEG');
    writeFileSync(path.join(dir, 'blog', 'post.md'), '---\ntitle: Post\nimage: fake.jpg\n---\n![Big](big.png)\n');
    const r = await runCli(['articles', 'import', 'blog', '--json', '--workspace', w.ws.name], { env: { ...w.d.env, SVC_SERVER_BASE_URL: w.d.url, SVC_IMAGES_MAX_BYTES: '4096' }, cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().counts).toMatchObject({ imported: 1 });
    const source = path.join('blog', 'post.md');
    expect(r.json().images.left).toEqual([
      { source, image: 'fake.jpg', reason: expect.stringMatching(/^is not an image svc stores: its bytes are not JPEG/) },
      { source, image: 'big.png', reason: expect.stringMatching(/^is 5\.\d KB \(\d+ bytes\); svc stores images of at most 4\.0 KB \(4096 bytes\)$/) },
    ]);
    expect((await runCli(['articles', 'show', 'post', '--json', '--workspace', w.ws.name], { env: w.d.env, cwd: dir })).json()).toMatchObject({ featuredImageUrl: null });
  });
});

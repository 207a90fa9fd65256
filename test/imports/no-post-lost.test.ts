import { describe, expect, it } from 'vitest';
import { ghostExport, wxr, write } from './samples.js';
import { importWorld } from './world.js';

describe('every post of an export is accounted for', () => {
  it('two WordPress posts sharing a post_name: the first is imported, the second reported by name; counts add up', async () => {
    const w = await importWorld();
    const posts = Array.from({ length: 6 }, (_, i) => ({ id: i + 1 }));
    posts.push({ id: 40, name: 'shared', title: 'First of two' } as never, { id: 41, name: 'shared', title: 'Second of two' } as never);
    write(w.d.dir, 'dup.xml', wxr(posts));
    const r = await w.cli(['articles', 'import', '--publish', '--keep-going', 'dup.xml', '--json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout).error;
    expect(report.counts).toMatchObject({ imported: 7, failed: 1 });
    expect(report.counts.imported + report.counts.already + report.counts.failed).toBe(posts.length);
    expect(report.failed).toEqual([{ source: 'dup.xml: post "shared" (ID 41)', error: 'the slug "shared" is also used by dup.xml: post "shared"' }]);
    expect((await w.api('/articles/shared')).body.data.title).toBe('First of two');

    // Without --keep-going nothing is written and the message names the second post.
    const again = await importWorld();
    write(again.d.dir, 'dup.xml', wxr(posts));
    const refused = await again.cli(['articles', 'import', 'dup.xml']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('dup.xml: post "shared" (ID 41): the slug "shared" is also used by dup.xml: post "shared"');
  });

  it('a WordPress post with more tags than an article holds keeps the first 50, and says so (theme unit test "edge-case-many-categories")', async () => {
    const w = await importWorld();
    const tags = Array.from({ length: 60 }, (_, i) => `<category domain="post_tag" nicename="tag-${i}"><![CDATA[Tag ${i}]]></category>`).join('');
    write(w.d.dir, 'many.xml', wxr([{ id: 3, name: 'many-tags', extra: tags }]));
    const r = await w.cli(['articles', 'import', '--publish', 'many.xml', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().notes).toContain('Posts with more than 50 tags and categories keep the first 50 as tags: many.xml: post "many-tags"');
    expect((await w.api('/articles/many-tags')).body.data.tags).toHaveLength(50);
  });

  it('a Ghost post without a title gets advice for Ghost', async () => {
    const w = await importWorld();
    write(w.d.dir, 'untitled.json', ghostExport([{ slug: 'no-title', title: '', html: '<p>x</p>' }]));
    const r = await w.cli(['articles', 'import', 'untitled.json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('untitled.json: post "no-title": the post has no title: give it one in Ghost and export again');
    expect(r.stderr).not.toContain('front matter');
  });
});
